// Call sites of the lock helper: a few lines per client and pattern (templates/<client>/
// call-<pattern>.<ext>) plus the import of the helper, as plain code (quick fixes, Insert Lock
// Snippet) or as a VS Code snippet body with tabstops on the key, the TTL, the fence key and
// the body. No Lua here: that lives once, in the helper.
import type { ClientInfo } from './clients';
import type { PatternId } from './patterns';
import { checkPattern, escapeSnippet, slotDefaults, tabstops } from './render';
import { expand, findClient, indentLike, loadTemplate, SnippetError, type JsFlavor, type SlotValues } from './template';

export interface CallSiteOptions {
  /**
   * Where the helper is, as the language names it in an import: a module specifier
   * (`./lib/locksmith`), a Python module (`app.locksmith`), a Java package, a Go import path, a
   * C# namespace, a PHP path relative to the file (`lib/Locksmith.php`) or class name
   * (`App\Locks\Locksmith`), a Ruby path relative to the file, a Rust module path (`crate::locksmith`).
   */
  helperImport: string;
  /** JavaScript: the importing file's flavor (ts and esm import, cjs requires). Default ts. */
  flavor?: JsFlavor;
}

export interface CallSite {
  /** Lines that import the helper; they belong at the top of the file where the language requires it. */
  imports: string[];
  /** The call site itself, ending in a newline. */
  code: string;
}

/** What each client's call sites name from the helper, per pattern: JavaScript, Python and Rust import names. */
const CALL_SITE_NAMES: Record<string, Record<PatternId, string[]>> = {
  js: { guard: ['withLock'], renew: ['withLock'], fenced: ['withLock'] },
  py: { guard: ['lock'], renew: ['lock'], fenced: ['lock'] },
  rs: { guard: ['Lease'], renew: ['Lease', 'LockOptions'], fenced: ['Lease', 'LockOptions'] },
};

/** The helper's conventional import for each client, used where the project is unknown (static snippets, CLI). */
export const DEFAULT_HELPER_IMPORT: Record<string, string> = {
  ioredis: './locksmith',
  'node-redis': './locksmith',
  'glide-node': './locksmith',
  'glide-go': 'example.com/app/internal/locksmith',
  'glide-java': '',
  'redis-py': 'locksmith',
  'glide-python': 'locksmith',
  jedis: '',
  lettuce: '',
  'spring-data-redis': '',
  'go-redis': 'example.com/app/internal/locksmith',
  redigo: 'example.com/app/internal/locksmith',
  stackexchange: 'Locksmith',
  phpredis: 'Locksmith.php',
  predis: 'Locksmith.php',
  'redis-rb': 'locksmith',
  'redis-rs': 'crate::locksmith',
};

/**
 * The lines that import `names` from the helper: JavaScript, Python and Rust import the names; Java,
 * Go, C#, PHP and Ruby import the helper itself (its class, package, namespace or file).
 */
export function helperImportLines(
  clientId: string,
  names: readonly string[],
  { helperImport, flavor = 'ts' }: CallSiteOptions,
): string[] {
  const client = findClient(clientId);
  checkImport(client, { helperImport });
  const spec = helperImport;
  const listed = names.join(', ');
  switch (client.extension) {
    case 'js':
      return [flavor === 'cjs' ? `const { ${listed} } = require('${spec}');` : `import { ${listed} } from '${spec}';`];
    case 'py':
      return [`from ${spec} import ${listed}`];
    case 'java':
      // The default package needs no import (and cannot be imported from a named one).
      return spec ? [`import ${spec}.Locksmith;`] : [];
    case 'go':
      return [`import "${spec}"`];
    case 'cs':
      return [`using ${spec};`];
    case 'php':
      return spec.endsWith('.php') ? [`require_once __DIR__ . '/${spec}';`] : [`use ${spec};`];
    case 'rb':
      return [`require_relative '${spec}'`];
    case 'rs':
      return [`use ${spec}::${names.length === 1 ? listed : `{${listed}}`};`];
    default:
      throw new SnippetError(`${client.id}: no import form for .${client.extension}`);
  }
}

function importLines(client: ClientInfo, pattern: PatternId, options: CallSiteOptions): string[] {
  const lines = helperImportLines(client.id, CALL_SITE_NAMES[client.extension]?.[pattern] ?? [], options);
  return client.extension === 'rs' ? [...lines, 'use std::time::Duration;'] : lines;
}

function checkImport(client: ClientInfo, options: Pick<CallSiteOptions, 'helperImport'>): void {
  if (/['"\n\\]/.test(options.helperImport) && client.extension !== 'php') {
    throw new SnippetError(`helperImport '${options.helperImport}' has a quote, backslash or newline`);
  }
  if (client.extension === 'php' && /['"\n]/.test(options.helperImport)) {
    throw new SnippetError(`helperImport '${options.helperImport}' has a quote or newline`);
  }
}

/** `ms` (a literal) in the largest of `units` ([name, ms]) that divides it; undefined for an expression or no unit. */
function wholeUnit(ms: string, units: readonly (readonly [string, number])[]): [string, number] | undefined {
  if (!/^\d[\d_]*$/.test(ms)) return undefined;
  const value = Number(ms.replace(/_/g, ''));
  const unit = units.find(([, size]) => value > 0 && value % size === 0);
  return unit && [unit[0], value / unit[1]];
}

/**
 * Go: a lease of `ms` milliseconds as a time.Duration, in the largest unit that divides it
 * (`30*time.Second`, as Go code writes a lease); an integer variable needs the conversion a
 * constant does not.
 */
export function goDuration(ms: string): string {
  if (!/^\d[\d_]*$/.test(ms)) return `time.Duration(${ms})*time.Millisecond`;
  const unit = wholeUnit(ms, [
    ['Hour', 3_600_000],
    ['Minute', 60_000],
    ['Second', 1000],
  ]);
  return unit ? `${unit[1]}*time.${unit[0]}` : `${ms}*time.Millisecond`;
}

/** C#: a lease of `ms` milliseconds as a TimeSpan, in the largest unit that divides it (`TimeSpan.FromSeconds(30)`). */
export function csharpDuration(ms: string): string {
  const unit = wholeUnit(ms, [
    ['Hours', 3_600_000],
    ['Minutes', 60_000],
    ['Seconds', 1000],
  ]);
  return unit ? `TimeSpan.From${unit[0]}(${unit[1]})` : `TimeSpan.FromMilliseconds(${ms})`;
}

/** Rust: a lease of `ms` milliseconds as a std::time::Duration, in whole seconds where it is (`Duration::from_secs(30)`). */
export function rustDuration(ms: string): string {
  const unit = wholeUnit(ms, [['secs', 1000]]);
  return unit ? `Duration::from_${unit[0]}(${unit[1]})` : `Duration::from_millis(${ms})`;
}

/** How a call site of the client writes its lease: Go, C# and Rust take a duration, the others milliseconds. */
const LEASE: Record<string, (ms: string) => string> = { go: goDuration, cs: csharpDuration, rs: rustDuration };

/** A call site's slots: `values` (ttl in ms) over the defaults, the lease as the client's call takes it. */
function callSiteValues(client: ClientInfo, values: SlotValues = {}): ReturnType<typeof slotDefaults> {
  const filled = { ...slotDefaults(client), ...values };
  const lease = LEASE[client.extension];
  return lease ? { ...filled, ttl: lease(filled.ttl) } : filled;
}

/** A call site as plain code: slots filled with `values` (or the defaults); `ttl` in ms. */
export function renderCallSite(
  clientId: string,
  patternId: string,
  values: SlotValues,
  options: CallSiteOptions,
): CallSite {
  const client = findClient(clientId);
  const pattern = checkPattern(patternId);
  const filled = callSiteValues(client, values);
  const code = expand(`${client.id}/call-${pattern}`, loadTemplate(client, `call-${pattern}`), {
    slot: (slot, offset, template) => indentLike(template, offset, filled[slot]),
  });
  return { imports: importLines(client, pattern, options), code };
}

export interface CallSiteSnippet {
  imports: string[];
  /** The VS Code snippet body of the call site, tabstops on the key, the TTL, the fence key and the body. */
  body: string;
}

/** A call site as a VS Code snippet body; the imports come separately, as plain lines. */
export function renderCallSiteSnippet(clientId: string, patternId: string, options: CallSiteOptions): CallSiteSnippet {
  const client = findClient(clientId);
  const pattern = checkPattern(patternId);
  const body = expand(`${client.id}/call-${pattern}`, loadTemplate(client, `call-${pattern}`), {
    slot: tabstops(client, {}, callSiteValues(client)),
    literal: escapeSnippet,
  });
  return { imports: importLines(client, pattern, options), body };
}

/** Lines a call site adds to a file: its imports and its code (the body slot counted as one line). */
export function callSiteLines(callSite: CallSite): number {
  return callSite.imports.length + callSite.code.replace(/\n$/, '').split('\n').length;
}

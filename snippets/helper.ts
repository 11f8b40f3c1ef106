// The lock helper: one module per project and client library, rendered from
// templates/<client>/helper.<ext> (composed with its family's partials and the lock kinds it
// carries: compose.ts) with the pack's scripts embedded once and a header that names the options
// (the kinds among them), the pack version and the scripts' SHA1s. Call sites (callsite.ts) import it.
import type { Pack } from '../pack/pack';
import type { ClientInfo } from './clients';
import { availableKinds, composeHelper, KINDS, kindScripts, LOCK_KINDS, noSuchKind, type Kind } from './compose';
import { checkHelper, headerLines, readHelperHeader, stampDigest, type HelperCheck, type HelperHeader } from './header';
import {
  embeddedScriptNames,
  expand,
  findClient,
  indentLike,
  JS_FLAVORS,
  loadTemplate,
  resolveSpans,
  SnippetError,
  type JsFlavor,
} from './template';

interface OptionSpec {
  name: string;
  /** What the option means, for messages. */
  meaning: string;
  default?: string;
  valid: RegExp;
}

const JAVA_PACKAGE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;
const OPTIONS = {
  flavor: {
    name: 'flavor',
    meaning: `the module flavor: ${JS_FLAVORS.join(', ')} (TypeScript, ES module, CommonJS)`,
    default: 'ts',
    valid: new RegExp(`^(${JS_FLAVORS.join('|')})$`),
  },
  javaPackage: { name: 'package', meaning: 'the Java package, e.g. com.example.locks', valid: JAVA_PACKAGE },
  csNamespace: { name: 'namespace', meaning: 'the C# namespace', default: 'Locksmith', valid: JAVA_PACKAGE },
  phpNamespace: {
    name: 'namespace',
    meaning: 'the PHP namespace, e.g. App\\Locks',
    valid: /^[A-Za-z_]\w*(\\[A-Za-z_]\w*)*$/,
  },
  kinds: {
    name: 'kinds',
    meaning: `parts beyond the plain lock, comma-separated (${KINDS.join(', ')})`,
    valid: /^[a-z-]+(,[a-z-]+)*$/,
  },
} satisfies Record<string, OptionSpec>;

/** Per client: its options, the module's file name, and the template extension. */
interface HelperSpec {
  options: OptionSpec[];
  fileName: (options: Record<string, string>) => string;
  templateExtension?: string;
}

const JS_HELPER: HelperSpec = {
  options: [OPTIONS.flavor, OPTIONS.kinds],
  fileName: (options) => (options.flavor === 'ts' ? 'locksmith.ts' : 'locksmith.js'),
  templateExtension: 'ts',
};
const SPECS: Record<string, HelperSpec> = {
  ioredis: JS_HELPER,
  'node-redis': JS_HELPER,
  'glide-node': JS_HELPER,
  'glide-go': { options: [OPTIONS.kinds], fileName: () => 'locksmith.go' },
  'glide-java': { options: [OPTIONS.javaPackage, OPTIONS.kinds], fileName: () => 'Locksmith.java' },
  'redis-py': { options: [OPTIONS.kinds], fileName: () => 'locksmith.py' },
  'glide-python': { options: [OPTIONS.kinds], fileName: () => 'locksmith.py' },
  jedis: { options: [OPTIONS.javaPackage, OPTIONS.kinds], fileName: () => 'Locksmith.java' },
  lettuce: { options: [OPTIONS.javaPackage, OPTIONS.kinds], fileName: () => 'Locksmith.java' },
  'spring-data-redis': { options: [OPTIONS.javaPackage, OPTIONS.kinds], fileName: () => 'Locksmith.java' },
  'go-redis': { options: [OPTIONS.kinds], fileName: () => 'locksmith.go' },
  redigo: { options: [OPTIONS.kinds], fileName: () => 'locksmith.go' },
  stackexchange: { options: [OPTIONS.csNamespace, OPTIONS.kinds], fileName: () => 'RedisLock.cs' },
  phpredis: { options: [OPTIONS.phpNamespace, OPTIONS.kinds], fileName: () => 'Locksmith.php' },
  predis: { options: [OPTIONS.phpNamespace, OPTIONS.kinds], fileName: () => 'Locksmith.php' },
  'redis-rb': { options: [OPTIONS.kinds], fileName: () => 'locksmith.rb' },
  'redis-rs': { options: [OPTIONS.kinds], fileName: () => 'locksmith.rs' },
};

/** The extension of the client's helper template (TypeScript for both JavaScript flavors). */
const templateExtension = (client: ClientInfo) => SPECS[client.id].templateExtension ?? client.extension;

/** The lock kinds the client's helper can carry beyond the plain lock. */
export function helperKinds(clientId: string): Kind[] {
  const client = findClient(clientId);
  return availableKinds(client, templateExtension(client));
}

/** The kinds named by a `kinds` option value. */
export const kindsOf = (options: Record<string, string | undefined>): Kind[] =>
  KINDS.filter((kind) => (options.kinds ?? '').split(',').includes(kind));

/** A `kinds` option value in KINDS order, or undefined for none. */
const kindsValue = (kinds: readonly string[]) => KINDS.filter((kind) => kinds.includes(kind)).join(',') || undefined;

export type HelperOptions = Record<string, string | undefined>;

/** The options a client's helper takes, with what each means and its default. */
export function helperOptionSpecs(clientId: string): readonly OptionSpec[] {
  return SPECS[findClient(clientId).id].options;
}

/** Checks `options` against the client's, fills defaults; a clear message for anything else. */
export function resolveHelperOptions(client: ClientInfo, options: HelperOptions): Record<string, string> {
  const specs = SPECS[client.id].options;
  const resolved: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const spec = specs.find((candidate) => candidate.name === name);
    if (!spec) {
      const valid = specs.map((candidate) => candidate.name).join(', ') || 'none';
      throw new SnippetError(`the ${client.id} helper has no option '${name}'; its options: ${valid}`);
    }
    if (!spec.valid.test(value)) throw new SnippetError(`${name} '${value}' is not ${spec.meaning}`);
    if (name === 'kinds') {
      const available = availableKinds(client, templateExtension(client));
      const unknown = value.split(',').find((kind) => !(available as string[]).includes(kind));
      if (unknown !== undefined) throw new SnippetError(noSuchKind(client.id, unknown, available));
      const normalized = kindsValue(value.split(','));
      if (normalized) resolved.kinds = normalized;
      continue;
    }
    resolved[name] = value;
  }
  for (const spec of specs) {
    if (resolved[spec.name] === undefined && spec.default !== undefined) resolved[spec.name] = spec.default;
  }
  return resolved;
}

export interface RenderedHelper {
  /** The module's conventional file name (`locksmith.py`, `Locksmith.java`, ...). */
  fileName: string;
  text: string;
  /** The options it was rendered with, defaults filled in (recorded in its header). */
  options: Record<string, string>;
}

/** Lines a template marks `«opt:NAME»` become the option's declaration, or vanish when it is unset. */
function fillOptionLines(template: string, client: ClientInfo, options: Record<string, string>): string {
  return template.replace(/^«opt:(\w+)»\n/gm, (_line, name: string) => {
    const value = options[name];
    if (value === undefined) return '';
    if (name === 'package') return `package ${value};\n\n`;
    if (name === 'namespace') return `namespace ${value};\n\n`;
    throw new SnippetError(`${client.id}/helper: unknown option marker ${name}`);
  });
}

/** The helper module for a client library, with the pack's scripts embedded. */
export function renderHelper(clientId: string, pack: Pack, options: HelperOptions = {}): RenderedHelper {
  const client = findClient(clientId);
  const spec = SPECS[client.id];
  const resolved = resolveHelperOptions(client, options);
  const flavor = resolved.flavor as JsFlavor | undefined;
  const extension = templateExtension(client);
  const composed = composeHelper(client, loadTemplate(client, 'helper', extension), extension, kindsOf(resolved));
  const template = fillOptionLines(resolveSpans(composed, flavor), client, resolved);
  const scripts = embeddedScriptNames(template);
  const title = [
    `Redis Locksmith lock helper for ${client.library}, generated from the Locksmith script pack.`,
    'Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.',
  ];
  const text = expand(`${client.id}/helper`, template, {
    pack,
    slot: (slot) => {
      throw new SnippetError(`${client.id}/helper: a helper has no «${slot}» slot`);
    },
    header: (offset, source) =>
      indentLike(
        source,
        offset,
        [...title, ...headerLines(client.id, resolved, pack, scripts)]
          .map((line) => `${client.comment} ${line}`.trimEnd())
          .join('\n'),
      ),
  });
  return { fileName: spec.fileName(resolved), text: stampDigest(text), options: resolved };
}

/**
 * The options a helper was rendered with, from its header and text: what the header records, for
 * a header from before kinds were recorded (all kinds in one file) the kinds whose scripts it
 * embeds, and for a helper whose core was woken (before the wakeups part) that part.
 */
export function headerOptions(header: HelperHeader, text: string): Record<string, string> {
  const client = findClient(header.client);
  const extension = templateExtension(client);
  const embeds = (kind: Kind) => {
    const scripts = kindScripts(client, kind, extension);
    return scripts.length > 0 && scripts.every((script) => header.scripts.has(script));
  };
  const available = availableKinds(client, extension);
  // Wake-ups were in the core before they became the wakeups part: a helper that embeds the part's
  // scripts (acquire_queued), or subscribes (the JVM helpers embed none; no core or other part
  // names SSUBSCRIBE), carries it, whatever its header records.
  const woken = available.includes('wakeups') && (embeds('wakeups') || /ssubscribe/i.test(text)) ? ['wakeups'] : [];
  // Such a helper that does not record the part is older than it, and had redis-py's asyncio API in its core too.
  if (woken.length && !header.options.kinds?.split(',').includes('wakeups') && available.includes('asyncio'))
    woken.push('asyncio');
  if (header.options.kinds !== undefined) {
    const kinds = kindsValue([...header.options.kinds.split(','), ...woken]);
    return kinds ? { ...header.options, kinds } : header.options;
  }
  // Such a header predates the features: only lock kinds (and waiting in line) can be in it.
  const embedded = available.filter((kind) => (LOCK_KINDS as readonly Kind[]).includes(kind) && embeds(kind));
  const kinds = kindsValue([...embedded, ...woken]);
  return kinds ? { ...header.options, kinds } : header.options;
}

/** Whether a helper file is outdated against `pack` (LOCK008) or was edited by hand; undefined for other files. */
export function checkHelperFile(text: string, pack: Pack): HelperCheck | undefined {
  return checkHelper(text, pack, (header) => renderHelper(header.client, pack, headerOptions(header, text)).text);
}

/** A helper file rendered again from the installed pack: the same client and options, kinds kept. */
export function updatedHelper(text: string, pack: Pack): RenderedHelper | undefined {
  const header = readHelperHeader(text);
  return header && renderHelper(header.client, pack, headerOptions(header, text));
}

export interface KindsAdded {
  helper: RenderedHelper;
  /** The kinds it did not have. */
  added: Kind[];
}

/**
 * A helper file with `kinds` added to the ones it carries, its other options kept (re-rendered
 * from the installed pack); undefined when the text is no helper. `added` is empty when it had them all.
 */
export function helperWithKinds(text: string, pack: Pack, kinds: readonly Kind[]): KindsAdded | undefined {
  const header = readHelperHeader(text);
  if (!header) return undefined;
  const options = headerOptions(header, text);
  const had = kindsOf(options);
  const added = KINDS.filter((kind) => kinds.includes(kind) && !had.includes(kind));
  const helper = renderHelper(header.client, pack, { ...options, kinds: kindsValue([...had, ...added]) });
  return { helper, added };
}

export interface HelperRefresh {
  /** The text to write over the file, or undefined when it is current and carries every kind asked for. */
  text: string | undefined;
  /** The kinds it gains. */
  added: Kind[];
  /** Why it is rewritten: what made it outdated, the kinds it gains. */
  reasons: string[];
  /** It was edited by hand: rewriting it replaces those edits. */
  edited: boolean;
}

/**
 * What Add Lock Helper (and Update lock helper) writes over an existing helper file: the installed
 * pack's version of it, with the kinds it carries and `kinds` added; undefined for a file that is
 * no helper.
 */
export function refreshHelper(text: string, pack: Pack, kinds: readonly Kind[] = []): HelperRefresh | undefined {
  const check = checkHelperFile(text, pack);
  const rendered = helperWithKinds(text, pack, kinds);
  if (!check || !rendered) return undefined;
  const { helper, added } = rendered;
  const reasons = [
    ...check.reasons,
    ...(added.length ? [`it gains the ${added.join(', ')} ${added.length > 1 ? 'parts' : 'part'}`] : []),
  ];
  return { text: check.outdated || added.length ? helper.text : undefined, added, reasons, edited: check.edited };
}

/** What a file's own code shows it will call beyond the core: redis-py's asyncio API where it imports redis.asyncio. */
const SUGGESTED: Partial<Record<string, { kind: Kind; shows: RegExp }>> = {
  'redis-py': {
    kind: 'asyncio',
    shows: /^\s*(?:import\s+redis\.asyncio\b|from\s+redis(?:\.asyncio\b|\s+import\s+asyncio\b))/m,
  },
};

/** The parts to offer ticked for a new helper of the client, from the file it is added for. */
export function suggestedKinds(clientId: string, fileText: string): Kind[] {
  const suggestion = SUGGESTED[clientId];
  return suggestion && suggestion.shows.test(fileText) && helperKinds(clientId).includes(suggestion.kind)
    ? [suggestion.kind]
    : [];
}

/** The parts a helper file carries beyond the plain lock (for an old helper, read as headerOptions reads it). */
export function carriedKinds(text: string): Kind[] {
  const header = readHelperHeader(text);
  return header ? kindsOf(headerOptions(header, text)) : [];
}

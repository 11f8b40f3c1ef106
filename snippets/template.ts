// The template language of snippets/templates/<client>/: code in the client's language with
// markers. «key», «fence», «ttl», «body», «client», «import» are slots the caller fills;
// «lua:NAME» embeds a pack script; «header» is a helper's header; «ts:...», «esm:...»,
// «cjs:...» and «js:...» are spans kept only in some JavaScript flavors: ts in TypeScript, esm in
// TypeScript and ES modules, cjs in CommonJS, js in both JavaScript flavors.
// Free of `vscode` imports: the language server renders with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findUp, SCRIPT_NAMES, type Pack, type ScriptName } from '../pack/pack';
import { CLIENTS, type ClientInfo } from './clients';

export const SLOTS = ['key', 'fence', 'ttl', 'body', 'client', 'import'] as const;
export type Slot = (typeof SLOTS)[number];
export type SlotValues = Partial<Record<Slot, string>>;

export const JS_FLAVORS = ['ts', 'esm', 'cjs'] as const;
export type JsFlavor = (typeof JS_FLAVORS)[number];

const MARKER = /«(key|fence|ttl|body|client|import|header|lua:[a-z0-9_-]+)»/g;
const SPAN = /«(ts|esm|cjs|js):([^«»]*)»/g;
/** A span alone on its line(s): dropping it drops the line too. */
const LINE_SPAN = /^[ \t]*«(ts|esm|cjs|js):([^«»]*)»[ \t]*\n/gm;

export class SnippetError extends Error {
  override name = 'SnippetError';
}

export function findClient(id: string): ClientInfo {
  const client = CLIENTS.find((candidate) => candidate.id === id);
  if (!client) {
    throw new SnippetError(`unknown client '${id}'; valid clients: ${CLIENTS.map((c) => c.id).join(', ')}`);
  }
  return client;
}

/** The folder of the template files, found like the pack. */
export function defaultTemplateDir(): string {
  return findUp(join('snippets', 'templates'), join(CLIENTS[0].id, 'guard.js'));
}

/** A client's template `name` (`guard`, `call-guard`, `helper`) with extension `extension`. */
export function loadTemplate(client: ClientInfo, name: string, extension: string = client.extension): string {
  return readFileSync(join(defaultTemplateDir(), client.id, `${name}.${extension}`), 'utf8');
}

/** Keeps the spans of `flavor` (none: a template of a language without flavors), drops the others. */
export function resolveSpans(template: string, flavor?: JsFlavor): string {
  const kept = (kind: string) =>
    kind === flavor || (kind === 'esm' && flavor === 'ts') || (kind === 'js' && (flavor === 'esm' || flavor === 'cjs'));
  return template
    .replace(LINE_SPAN, (line: string, kind: string, content: string) =>
      kept(kind) ? `${/^[ \t]*/.exec(line)![0]}${content}\n` : '',
    )
    .replace(SPAN, (_span: string, kind: string, content: string) => (kept(kind) ? content : ''));
}

/** Indents every line after the first by the marker's column, so multi-line values fit. */
export function indentLike(template: string, offset: number, value: string): string {
  const lineStart = template.lastIndexOf('\n', offset - 1) + 1;
  const indent = /^[ \t]*/.exec(template.slice(lineStart, offset))![0];
  return value.replace(/\n/g, `\n${indent}`);
}

export interface Expansion {
  /** The pack whose scripts «lua:NAME» embeds; call sites embed none. */
  pack?: Pack;
  /** A slot's text; `offset` is the marker's position in `template`. */
  slot(name: Slot, offset: number, template: string): string;
  /** The header's text, or undefined where the template may have none. */
  header?: (offset: number, template: string) => string;
  /** Literal template text (and embedded Lua) as it goes out: snippet escaping, renames. */
  literal?: (text: string) => string;
  /** Embedded Lua as it goes out, where it differs from `literal`: a client rename must not reach `redis.call`. */
  script?: (text: string) => string;
}

/** Fills every marker of a template whose spans are already resolved. */
export function expand(where: string, template: string, expansion: Expansion): string {
  const literal = expansion.literal ?? ((text: string) => text);
  const script = expansion.script ?? literal;
  let out = '';
  let last = 0;
  for (const match of template.matchAll(MARKER)) {
    out += literal(template.slice(last, match.index));
    const marker = match[1];
    if (marker.startsWith('lua:')) {
      const name = marker.slice(4) as ScriptName;
      if (!SCRIPT_NAMES.includes(name)) throw new SnippetError(`${where}: unknown script ${name}`);
      if (!expansion.pack) throw new SnippetError(`${where}: embeds ${name}.lua, but no pack was given`);
      // The whole file, its last newline too: what the pack's SHA1 is of, so EVALSHA by it finds it.
      out += script(expansion.pack[name].source);
    } else if (marker === 'header') {
      if (!expansion.header) throw new SnippetError(`${where}: a «header» marker outside a helper`);
      out += expansion.header(match.index, template);
    } else {
      out += expansion.slot(marker as Slot, match.index, template);
    }
    last = match.index + match[0].length;
  }
  return out + literal(template.slice(last));
}

/** The scripts a template embeds, in order of first appearance. */
export function embeddedScriptNames(template: string): ScriptName[] {
  const names = [...template.matchAll(/«lua:([a-z0-9_-]+)»/g)].map((match) => match[1] as ScriptName);
  return [...new Set(names)];
}

// Renders a client's template for a pattern, either as a VS Code snippet (tabstops on the
// key, the TTL and the guarded body) or as plain code with given values (tests, CLI, quick
// fixes). Free of `vscode` imports: the language server reuses it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findUp, loadPack, SCRIPT_NAMES, type Pack, type ScriptName } from '../pack/pack';
import { CLIENTS, type ClientInfo } from './clients';
import { PATTERNS, type PatternId } from './patterns';

/** Template markers: «key», «fence», «ttl», «body» are user slots; «lua:NAME» embeds a script. */
const MARKER = /«(key|fence|ttl|body|lua:[a-z]+)»/g;
export type Slot = 'key' | 'fence' | 'ttl' | 'body';

export type SlotValues = Partial<Record<Slot, string>>;

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

export function checkPattern(id: string): PatternId {
  if (!(PATTERNS as readonly string[]).includes(id)) {
    throw new SnippetError(`unknown pattern '${id}'; valid patterns: ${PATTERNS.join(', ')}`);
  }
  return id as PatternId;
}

// VS Code snippet syntax gives `$`, `}` and `\` a meaning: escape them in literal text.
const escapeSnippet = (text: string) => text.replace(/[$}\\]/g, (char) => `\\${char}`);

/** The defaults a client shows in its slots. */
function defaults(client: ClientInfo): Record<Slot, string> {
  return {
    key: client.quote('lock:{order:42}'),
    fence: client.quote('fence:{order:42}'),
    ttl: '10000',
    body: client.defaultBody,
  };
}

/** Indents every line after the first by the marker's column, so multi-line values fit. */
function indentLike(template: string, offset: number, value: string): string {
  const lineStart = template.lastIndexOf('\n', offset - 1) + 1;
  const indent = /^[ \t]*/.exec(template.slice(lineStart, offset))![0];
  return value.replace(/\n/g, `\n${indent}`);
}

/** The folder of the template files, found like the pack. */
export function defaultTemplateDir(): string {
  return findUp(join('snippets', 'templates'), join(CLIENTS[0].id, 'guard.js'));
}

function loadTemplate(client: ClientInfo, pattern: PatternId): string {
  return readFileSync(join(defaultTemplateDir(), client.id, `${pattern}.${client.extension}`), 'utf8');
}

function expand(
  client: ClientInfo,
  pattern: PatternId,
  pack: Pack,
  slot: (name: Slot, offset: number, template: string) => string,
  literal: (text: string) => string,
  rename: (templateText: string) => string = (text) => text,
): string {
  const template = loadTemplate(client, pattern);
  let out = '';
  let last = 0;
  for (const match of template.matchAll(MARKER)) {
    out += literal(rename(template.slice(last, match.index)));
    const marker = match[1];
    if (marker.startsWith('lua:')) {
      const name = marker.slice(4) as ScriptName;
      if (!SCRIPT_NAMES.includes(name)) throw new SnippetError(`${client.id}/${pattern}: unknown script ${name}`);
      out += literal(pack[name].source.replace(/\n$/, ''));
    } else {
      out += slot(marker as Slot, match.index, template);
    }
    last = match.index + match[0].length;
  }
  return out + literal(rename(template.slice(last)));
}

/** A VS Code snippet body: tabstops numbered in order of first appearance. */
export function renderSnippet(clientId: string, patternId: string, pack: Pack = loadPack()): string {
  const client = findClient(clientId);
  const pattern = checkPattern(patternId);
  const values = defaults(client);
  const numbers = new Map<Slot, number>();
  return expand(
    client,
    pattern,
    pack,
    (slot) => {
      if (!numbers.has(slot)) numbers.set(slot, numbers.size + 1);
      return `\${${numbers.get(slot)}:${escapeSnippet(values[slot])}}`;
    },
    escapeSnippet,
  );
}

export interface RenderOptions {
  pack?: Pack;
  /** The user's client expression, replacing the template's `clientVariable` (quick fixes). */
  clientExpression?: string;
}

/** Plain code: slots filled with `values` (or the defaults), multi-line values indented to fit. */
export function renderCode(
  clientId: string,
  patternId: string,
  values: SlotValues = {},
  { pack = loadPack(), clientExpression }: RenderOptions = {},
): string {
  const client = findClient(clientId);
  const pattern = checkPattern(patternId);
  const filled = { ...defaults(client), ...values };
  const variable = client.clientVariable;
  const rename =
    variable && clientExpression
      ? (text: string) =>
          text.replace(new RegExp(`(?<![\\w$])${variable.replace(/\$/g, '\\$')}(?![\\w])`, 'g'), () => clientExpression)
      : undefined;
  return expand(
    client,
    pattern,
    pack,
    (slot, offset, template) => indentLike(template, offset, filled[slot]),
    (text) => text,
    rename,
  );
}

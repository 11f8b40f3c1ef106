// How a helper template is put together before its markers are filled (template.ts):
// - a line «include:_FAMILY/NAME» is replaced by the partial templates/_FAMILY/NAME.<ext>, shared
//   by the clients of one language family (JS, JVM, Go, PHP), so a fix to the wait loop is one edit;
// - a line «set:NAME»VALUE in a client's template defines what «var:NAME» stands for in it and in
//   the partials it includes (a client's type, its error class);
// - a line «kinds:POINT» takes the POINT sections of the lock kinds the helper carries, in KINDS
//   order. A kind is a file templates/<client>/kind-<kind>.<ext> (or the family's
//   templates/_FAMILY/kind-<kind>.<ext>) of «section:POINT» blocks: adding a kind to a client is
//   adding that file; the core template only names the points where kinds plug in. What several
//   kinds share is a partial they name on a line «include-once:_FAMILY/NAME»: it goes in where
//   the first kind names it. A section may name points of its own (the asyncio part's lease class,
//   where the other parts' async halves go): they are filled in turn, and a section for a point of
//   a part the helper does not carry is left out with that part.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptName } from '../pack/pack';
import type { ClientInfo } from './clients';
import { defaultTemplateDir, embeddedScriptNames, SnippetError } from './template';

/** The lock kinds a helper may carry beyond its core (the plain lock). */
export const LOCK_KINDS = ['reentrant', 'read-write', 'semaphore'] as const;
/**
 * What a helper may carry beyond its core besides lock kinds: features of the plain lock. Without
 * `wakeups` a waiter polls (jittered, never sleeping past the holder's lease); with it the release
 * wakes the waiter, in line where the client queues.
 */
export const FEATURES = ['wakeups', 'asyncio', 'fenced-writes', 'replica-wait'] as const;
/**
 * The parts a helper may carry beyond its core, in the order their sections go in: the lock kinds,
 * the features, then the multi-key lock. Each is added to a project's helper when it first needs it.
 */
export const KINDS = [...LOCK_KINDS, ...FEATURES, 'multi'] as const;
export type Kind = (typeof KINDS)[number];

/** How messages and pickers name each part. */
export const KIND_TITLES: Record<Kind, string> = {
  reentrant: 'reentrant lock',
  'read-write': 'read-write lock',
  semaphore: 'semaphore',
  wakeups: 'wake-ups (a waiter sleeps until the release wakes it, first come first served, instead of polling)',
  asyncio: 'asyncio API (acquire_async, AsyncLease, async with lock(...) on a redis.asyncio client)',
  'fenced-writes': 'fenced writes (writes the storage refuses from a holder that lost the lock)',
  'replica-wait': 'waitForReplicas (an acquire acknowledged by replicas)',
  multi: 'multi-key lock (several keys taken all or nothing)',
};

/** The message for a part the client's helper cannot carry. */
export function noSuchKind(clientId: string, kind: string, available: readonly Kind[]): string {
  const title = (KIND_TITLES as Record<string, string | undefined>)[kind] ?? `${kind} lock`;
  return `the ${clientId} helper has no ${title}; it can carry: ${available.join(', ') || 'nothing beyond the plain lock yet'}`;
}

const INCLUDE_LINE = /^[ \t]*«include:([_a-z0-9-]+\/[a-z0-9-]+)»[ \t]*\n/gm;
const SET_LINE = /^«set:([a-z0-9-]+)»(.*)\n/gm;
const VAR = /«var:([a-z0-9-]+)»/g;
const KINDS_LINE = /^[ \t]*«kinds:([a-z0-9-]+)»[ \t]*\n/gm;
const SECTION_LINE = /^«section:([a-z0-9-]+)»[ \t]*\n/gm;
const INCLUDE_ONCE_LINE = /^[ \t]*«include-once:([_a-z0-9-]+\/[a-z0-9-]+)»[ \t]*\n/gm;
/** Partials may include partials, this deep. */
const MAX_INCLUDE_DEPTH = 4;

function inlineIncludes(text: string, extension: string, where: string, depth = 0): string {
  return text.replace(INCLUDE_LINE, (_line, name: string) => {
    const path = join(defaultTemplateDir(), `${name}.${extension}`);
    if (depth >= MAX_INCLUDE_DEPTH) throw new SnippetError(`${where}: «include:${name}» nested too deep`);
    if (!existsSync(path))
      throw new SnippetError(`${where}: «include:${name}» names no partial (${name}.${extension})`);
    return inlineIncludes(readFileSync(path, 'utf8'), extension, `${where} > ${name}`, depth + 1);
  });
}

/** The file of `kind` for the client: its own, else its family's; undefined when it has none. */
function kindFile(client: ClientInfo, kind: Kind, extension: string): string | undefined {
  const folders = [client.id, ...(client.family ? [`_${client.family}`] : [])];
  return folders
    .map((folder) => join(defaultTemplateDir(), folder, `kind-${kind}.${extension}`))
    .find((path) => existsSync(path));
}

/** The lock kinds the client's helper can carry: those with a section file. */
export function availableKinds(client: ClientInfo, extension: string): Kind[] {
  return KINDS.filter((kind) => kindFile(client, kind, extension) !== undefined);
}

/** A kind file's sections by point. */
function sections(client: ClientInfo, kind: Kind, extension: string): Map<string, string> {
  const path = kindFile(client, kind, extension);
  if (!path) {
    throw new SnippetError(noSuchKind(client.id, kind, availableKinds(client, extension)));
  }
  const where = `${client.id}/kind-${kind}`;
  const text = inlineIncludes(readFileSync(path, 'utf8'), extension, where);
  const parts = text.split(SECTION_LINE);
  if (parts[0].trim()) throw new SnippetError(`${where}: text before its first «section:»`);
  const found = new Map<string, string>();
  for (let i = 1; i < parts.length; i += 2) found.set(parts[i], parts[i + 1]);
  return found;
}

/** The scripts a kind embeds (its sections' «lua:» markers): how an old header's kinds are recognised. */
export function kindScripts(client: ClientInfo, kind: Kind, extension: string): ScriptName[] {
  return embeddedScriptNames([...sections(client, kind, extension).values()].join(''));
}

/** The client's helper template with its partials, variables and the sections of `kinds` in place. */
export function composeHelper(client: ClientInfo, template: string, extension: string, kinds: readonly Kind[]): string {
  const where = `${client.id}/helper`;
  const vars = new Map<string, string>();
  let text = inlineIncludes(template, extension, where).replace(SET_LINE, (_line, name: string, value: string) => {
    vars.set(name, value);
    return '';
  });
  const chosen = KINDS.filter((kind) => kinds.includes(kind)).map((kind) => ({
    kind,
    sections: sections(client, kind, extension),
  }));
  const pointsOf = (source: string) => [...source.matchAll(KINDS_LINE)].map((match) => match[1]);
  // The points of the core and of every part the client has: each section names one of them.
  const offered = new Set([
    ...pointsOf(text),
    ...availableKinds(client, extension).flatMap((kind) =>
      [...sections(client, kind, extension).values()].flatMap(pointsOf),
    ),
  ]);
  for (const { kind, sections: parts } of chosen) {
    const homeless = [...parts.keys()].filter((point) => !offered.has(point));
    if (homeless.length) throw new SnippetError(`${where}: no «kinds:${homeless[0]}» for the ${kind} section`);
  }
  // The points in the sections just put in are filled on the next round.
  for (let round = 0; round < MAX_INCLUDE_DEPTH && pointsOf(text).length; round++) {
    text = text.replace(KINDS_LINE, (_line, point: string) =>
      chosen.map(({ sections: parts }) => parts.get(point) ?? '').join(''),
    );
  }
  const included = new Set<string>();
  text = text.replace(INCLUDE_ONCE_LINE, (_line, name: string) => {
    if (included.has(name)) return '';
    included.add(name);
    return inlineIncludes(`«include:${name}»\n`, extension, where);
  });
  return text.replace(VAR, (_marker, name: string) => {
    const value = vars.get(name);
    if (value === undefined) throw new SnippetError(`${where}: «var:${name}» is not set`);
    return value;
  });
}

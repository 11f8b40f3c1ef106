// The native path: servers that have compare-and-delete, compare-and-set or an all-or-nothing
// multi-key SET as commands release, extend and take locks without Lua, at a fraction of the
// server time. Detected per connection, per master in a Cluster, from COMMAND INFO and COMMAND
// DOCS (which name the commands and arguments a server has), never from INFO's version: Valkey
// reports redis_version 7.2.4. A command the ACL turns out to deny is given up at its first use.
import type { Redis } from 'ioredis';

export interface NativeSupport {
  /** DELIFEQ key value: compare-and-delete (Valkey 9). */
  delifeq: boolean;
  /** DELEX key IFEQ value: compare-and-delete (Redis 8.4). */
  delexIfeq: boolean;
  /** SET key value PX ms IFEQ value: compare-and-extend (Valkey 8.1+, Redis 8.4). */
  setIfeq: boolean;
  /** SET key value NX PX ms GET (Redis/Valkey 7.0+): take a free lock and see the holder in one command. */
  setNxGet: boolean;
  /** MSETEX numkeys key value ... NX PX ms: set every key or none (Valkey 9.1, Redis 8.4). */
  msetex: boolean;
}

export const NO_NATIVE: NativeSupport = {
  delifeq: false,
  delexIfeq: false,
  setIfeq: false,
  setNxGet: false,
  msetex: false,
};

/** What each plain-lock operation runs with, for display (e.g. the connection's tooltip). */
export interface NativePath {
  acquire: 'SET NX GET' | 'acquire.lua';
  release: 'DELIFEQ' | 'DELEX IFEQ' | 'release.lua';
  extend: 'SET IFEQ' | 'extend.lua';
  multiAcquire: 'MSETEX NX' | 'multi_acquire.lua';
}

export function describePath(support: NativeSupport): NativePath {
  return {
    acquire: support.setNxGet ? 'SET NX GET' : 'acquire.lua',
    release: support.delifeq ? 'DELIFEQ' : support.delexIfeq ? 'DELEX IFEQ' : 'release.lua',
    extend: support.setIfeq ? 'SET IFEQ' : 'extend.lua',
    multiAcquire: support.msetex ? 'MSETEX NX' : 'multi_acquire.lua',
  };
}

/**
 * Which native commands one server has: COMMAND INFO for the commands (a missing one answers
 * nil), COMMAND DOCS set for its arguments (IFEQ; GET beside NX, which every server with
 * COMMAND DOCS, 7.0+, accepts). A user denied COMMAND, or a server that cannot answer, gets
 * none: the scripts run, and no command is tried that the ACL might deny (each denial is an ACL
 * LOG entry).
 */
export async function detectNative(node: Redis): Promise<NativeSupport> {
  let commands: unknown;
  let setDocs: unknown;
  try {
    [commands, setDocs] = await Promise.all([
      node.call('COMMAND', 'INFO', 'delifeq', 'delex', 'msetex'),
      node.call('COMMAND', 'DOCS', 'set'),
    ]);
  } catch {
    return NO_NATIVE;
  }
  const [delifeq, delex, msetex] = Array.isArray(commands) ? commands.map(Array.isArray) : [];
  const setTokens = new Set(strings(setDocs).map((text) => text.toUpperCase()));
  return {
    delifeq: delifeq ?? false,
    delexIfeq: delex ?? false,
    setIfeq: setTokens.has('IFEQ'),
    setNxGet: setTokens.has('GET') && setTokens.has('NX'),
    msetex: msetex ?? false,
  };
}

/** Every string in a nested reply (COMMAND DOCS nests its arguments' names and tokens). */
function strings(reply: unknown): string[] {
  if (typeof reply === 'string') return [reply];
  return Array.isArray(reply) ? reply.flatMap(strings) : [];
}

/** Every master must have a command before the client relies on it. */
export function commonSupport(perNode: NativeSupport[]): NativeSupport {
  const every = (command: keyof NativeSupport) => perNode.length > 0 && perNode.every((support) => support[command]);
  return {
    delifeq: every('delifeq'),
    delexIfeq: every('delexIfeq'),
    setIfeq: every('setIfeq'),
    setNxGet: every('setNxGet'),
    msetex: every('msetex'),
  };
}

/**
 * Errors after which the scripts run instead: `'never'` when this client may not use the command
 * at all (unknown to the server, a syntax it lacks, an ACL that denies it), `'now'` for a moved
 * slot or a cluster in flux; undefined for any other error, which is the caller's.
 */
export function nativeMiss(error: unknown): 'never' | 'now' | undefined {
  if (!(error instanceof Error)) return undefined;
  if (/^(ERR unknown command|ERR syntax error|NOPERM)/.test(error.message)) return 'never';
  if (/^(MOVED|ASK|CLUSTERDOWN|TRYAGAIN)/.test(error.message)) return 'now';
  return undefined;
}

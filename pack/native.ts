// The native path: servers that have compare-and-delete and compare-and-set as commands (Valkey 9:
// DELIFEQ; Valkey 8.1+: SET ... IFEQ) release and extend a plain lock without Lua, at a fraction
// of the server time. Detected per connection, per master in a Cluster, from COMMAND INFO / DOCS.
import type { Redis } from 'ioredis';

export interface NativeSupport {
  /** DELIFEQ key value: compare-and-delete. */
  delifeq: boolean;
  /** SET key value PX ms IFEQ value: compare-and-extend. */
  setIfeq: boolean;
  /** SET key value NX PX ms GET (Redis/Valkey 7.0+, with SPUBLISH): take a free lock and see the holder in one command. */
  setNxGet: boolean;
}

export const NO_NATIVE: NativeSupport = { delifeq: false, setIfeq: false, setNxGet: false };

/** What each plain-lock operation runs with, for display (e.g. the connection's tooltip). */
export interface NativePath {
  acquire: 'SET NX GET' | 'acquire.lua';
  release: 'DELIFEQ' | 'release.lua';
  extend: 'SET IFEQ' | 'extend.lua';
}

export function describePath(support: NativeSupport): NativePath {
  return {
    acquire: support.setNxGet ? 'SET NX GET' : 'acquire.lua',
    release: support.delifeq ? 'DELIFEQ' : 'release.lua',
    extend: support.setIfeq ? 'SET IFEQ' : 'extend.lua',
  };
}

/** Asks one server which of the native commands it has; a server that cannot answer has none. */
export async function detectNative(node: Redis): Promise<NativeSupport> {
  try {
    const [delifeq, spublish, setDocs] = await Promise.all([
      node.call('COMMAND', 'INFO', 'DELIFEQ') as Promise<unknown[]>,
      node.call('COMMAND', 'INFO', 'SPUBLISH') as Promise<unknown[]>,
      node.call('COMMAND', 'DOCS', 'SET'),
    ]);
    return {
      delifeq: delifeq[0] !== null && delifeq[0] !== undefined,
      setIfeq: JSON.stringify(setDocs).includes('"IFEQ"'),
      setNxGet: spublish[0] !== null && spublish[0] !== undefined,
    };
  } catch {
    return NO_NATIVE;
  }
}

/** Every master must have a command before the client relies on it. */
export function commonSupport(perNode: NativeSupport[]): NativeSupport {
  return {
    delifeq: perNode.length > 0 && perNode.every((support) => support.delifeq),
    setIfeq: perNode.length > 0 && perNode.every((support) => support.setIfeq),
    setNxGet: perNode.length > 0 && perNode.every((support) => support.setNxGet),
  };
}

/** Errors after which the native command is given up for the scripts: a node without it, or a moved slot. */
export function isNativeMiss(error: unknown): boolean {
  return error instanceof Error && /^(ERR unknown command|ERR syntax error|MOVED|ASK|CLUSTERDOWN)/.test(error.message);
}

// The native path: servers that have compare-and-delete and compare-and-set as commands (Valkey 9:
// DELIFEQ; Valkey 8.1+: SET ... IFEQ) release and extend a plain lock without Lua, at a fraction
// of the server time. Detected per connection, per master in a Cluster, from INFO server.
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

/**
 * Which of the native commands one server has, from INFO server: Valkey 9.0+ has DELIFEQ, 8.1+
 * SET IFEQ; Redis and Valkey 7.0+ take NX with GET. INFO rather than COMMAND INFO / COMMAND DOCS:
 * least-privilege ACL users (README's ACL rules) may run INFO but not COMMAND, and a denied
 * COMMAND would land in the server's ACL LOG on every connect. A command a server turns out not
 * to have (renamed, or not allowed to this user) is given up at its first use (isNativeMiss).
 * A server that cannot answer has none.
 */
export async function detectNative(node: Redis): Promise<NativeSupport> {
  try {
    const info = await node.info('server');
    const version = (field: string) => {
      const match = new RegExp(`^${field}:(\\d+)\\.(\\d+)`, 'm').exec(info);
      return match ? Number(match[1]) * 100 + Number(match[2]) : undefined;
    };
    const valkey = version('valkey_version');
    const redis = version('redis_version') ?? 0;
    return {
      delifeq: valkey !== undefined && valkey >= 900,
      setIfeq: valkey !== undefined && valkey >= 801,
      setNxGet: valkey !== undefined || redis >= 700,
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

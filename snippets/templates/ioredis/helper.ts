«header»

// Locks for ioredis: withLock(redis, key, { ttlMs }, async (lease) => ...) holds a lock around the
// callback; acquire() and lease.release() are for code that cannot use one; tryAcquire() tries once
// and never waits (null when busy); releaseLock() and extendLock() take a key and a token. A waiter
// tries again when the holder's lease ends (PTTL) or a jittered retry bound passes.
«kinds:about»
«set:pttl»pttl
«ts:import type { Cluster, Redis } from 'ioredis';»
«esm:import { randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«cjs:const { randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»
«kinds:imports»

// ioredis runs these with EVALSHA (defineCommand); on NOSCRIPT (script cache flushed, restart,
// failover) it sends the source once with EVAL, which caches it again.
const SCRIPTS = {
  locksmithAcquire: `«lua:acquire»`,
  locksmithExtend: `«lua:extend»`,
  locksmithRelease: `«lua:release»`,
«kinds:scripts»
};

«ts:export type LockClient = Redis | Cluster;
»const defined = new WeakSet«ts:<object>»();

/** Runs a script (defined on the client at first use): the number of keys, the keys, the arguments. */
function call(redis«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]»)«ts:: Promise<unknown>» {
  if (!defined.has(redis)) {
    for (const [command, lua] of Object.entries(SCRIPTS)) redis.defineCommand(command, { lua });
    defined.add(redis);
  }
  const commands = redis«ts: as unknown as Record<ScriptName, (...keysAndArgs: (string | number)[]) => Promise<unknown>>»;
  return commands[name](keys.length, ...keys, ...args);
}

«include:_js/core»
«kinds:code»
«include:_js/exports»

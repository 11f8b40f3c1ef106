«header»

// Locks for ioredis: withLock(redis, key, { ttlMs }, async (lease) => ...) holds a lock around the
// callback; acquire() and lease.release() are for code that cannot use one; tryAcquire() tries once
// and never waits (null when busy); releaseLock() and extendLock() take a key and a token. A waiter
// sleeps in line until the release wakes it (SSUBSCRIBE on the lock key, one connection per client
// shared by its waiters, closed when none is left), the holder's lease ends, or a jittered retry
// bound passes: a missed wake-up costs at most that bound.
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
  locksmithAcquireQueued: `«lua:acquire_queued»`,
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

function leaveLine(redis«ts:: LockClient», queue«ts:: string», token«ts:: string»)«ts:: Promise<unknown>» {
  return redis.zrem(queue, token);
}

/** The client's wake-ups, on a duplicate connection (a Cluster's with sharded subscribers). */
function openWakeups(redis«ts:: LockClient», wake«ts:: (channel: string, payload: string) => void»)«ts:: Wakeups» {
  const subscriber = redis.isCluster
    ? «ts:(redis as Cluster)»«js:redis».duplicate([], { shardedSubscribers: true })
    : «ts:(redis as Redis)»«js:redis».duplicate();
  subscriber.on('error', () => undefined); // it reconnects and resubscribes; the timers cover the gap
  subscriber.on('smessage', wake);
  return {
    subscribe: (key) => subscriber.ssubscribe(key),
    unsubscribe: (key) => void subscriber.sunsubscribe(key).catch(() => undefined),
    close: () => subscriber.disconnect(),
  };
}

«include:_js/core»
«kinds:code»
«include:_js/exports»

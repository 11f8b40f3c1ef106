«header»

// Locks for node-redis (v4, v5): withLock(redis, key, { ttlMs }, async (lease) => ...) holds a lock
// around the callback; acquire() and lease.release() are for code that cannot use one; tryAcquire()
// tries once and never waits (null when busy); releaseLock() and extendLock() take a key and a
// token. A waiter sleeps in line until the release wakes it (SSUBSCRIBE on the lock key, one
// duplicate of the client shared by its waiters, closed when none is left), the holder's lease
// ends, or a jittered retry bound passes: a missed wake-up costs at most that bound.
«esm:import { createHash, randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«cjs:const { createHash, randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»
«kinds:imports»

// Each script runs by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart, failover)
// the source goes once with EVAL, which runs it and caches it again on that node. Works with any
// node-redis v4/v5 client or cluster as it is, no scripts option needed in createClient.
const SCRIPTS = {
  locksmithAcquire: `«lua:acquire»`,
  locksmithAcquireQueued: `«lua:acquire_queued»`,
  locksmithExtend: `«lua:extend»`,
  locksmithRelease: `«lua:release»`,
«kinds:scripts»
};
const SHA1S = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, lua]) => [name, createHash('sha1').update(lua).digest('hex')]),
);

«ts:/** What the helper needs of a node-redis client or cluster (v4 or v5). */
export interface LockClient {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  zRem(key: string, member: string): Promise<unknown>;
  duplicate(): Subscriber;
«kinds:client»
}

/** A duplicate of the client that waits for wake-ups: a client with subscriptions runs no other commands. */
interface Subscriber {
  on(event: 'error', listener: (error: Error) => void): unknown;
  connect(): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  sUnsubscribe(channel: string): Promise<void>;
  disconnect(): Promise<void>;
}
»
async function call(redis«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]»)«ts:: Promise<unknown>» {
  const options = { keys, arguments: args.map(String) };
  try {
    return await redis.evalSha(«ts:SHA1S[name] as string»«js:SHA1S[name]», options);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await redis.eval(SCRIPTS[name], options);
  }
}

function leaveLine(redis«ts:: LockClient», queue«ts:: string», token«ts:: string»)«ts:: Promise<unknown>» {
  return redis.zRem(queue, token);
}

/** The client's wake-ups, on a duplicate of it. */
function openWakeups(redis«ts:: LockClient», wake«ts:: (channel: string, payload: string) => void»)«ts:: Wakeups» {
  const subscriber = redis.duplicate();
  subscriber.on('error', () => undefined); // it reconnects and resubscribes; the timers cover the gap
  const connected = subscriber.connect();
  return {
    subscribe: (key) => connected.then(() => subscriber.sSubscribe(key, (payload) => wake(key, payload))),
    unsubscribe: (key) => void subscriber.sUnsubscribe(key).catch(() => undefined),
    close: () => void connected.then(() => subscriber.disconnect()).catch(() => undefined),
  };
}

«include:_js/core»
«kinds:code»
«include:_js/exports»

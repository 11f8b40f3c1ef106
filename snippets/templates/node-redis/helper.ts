«header»

// One lock per key: withLock(redis, key, { ttlMs }, async (lease) => ...) holds it around the
// callback; acquire() and lease.release() are for code that cannot use a callback.
«esm:import { createHash, randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«esm:import { setTimeout as sleep } from 'node:timers/promises';»
«cjs:const { createHash, randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»
«cjs:const { setTimeout: sleep } = require('node:timers/promises');»

// Each script runs by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart, failover)
// the source goes once with EVAL, which runs it and caches it again on that node. Works with any
// node-redis v4/v5 client or cluster as it is, no scripts option needed in createClient.
const SCRIPTS = {
  acquire: `«lua:acquire»`,
  extend: `«lua:extend»`,
  release: `«lua:release»`,
};
const SHA1S = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, lua]) => [name, createHash('sha1').update(lua).digest('hex')]),
);

«ts:/** What the helper needs of a node-redis client or cluster (v4 or v5). */
export interface LockClient {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

export interface LockOptions {
  /** Lease in ms: how long the lock outlives a holder that dies without releasing it. */
  ttlMs: number;
  /** How long to wait for another holder to let go before LockBusyError (default 10 000; 0: try once). */
  waitMs?: number;
  /** Fencing counter key (in Cluster, with the lock key's {hash tag}): lease.fence grows with every new holder. */
  fenceKey?: string;
  /** Extend the lease every ttlMs/3 while it is held; lease.signal aborts when a renewal fails. */
  renew?: boolean;
  /** Cancels the wait (not a lease already held). */
  signal?: AbortSignal;
}
»
async function run(
  redis«ts:: LockClient»,
  name«ts:: keyof typeof SCRIPTS»,
  keys«ts:: string[]»,
  args«ts:: (string | number)[]»,
)«ts:: Promise<number>» {
  const options = { keys, arguments: args.map(String) };
  try {
    return Number(await redis.evalSha(«ts:SHA1S[name] as string»«js:SHA1S[name]», options));
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return Number(await redis.eval(SCRIPTS[name], options));
  }
}

/** The lock stayed held by another owner for the whole wait. */
«esm:export »class LockBusyError extends Error {
  «ts:override »name = 'LockBusyError';
  «ts:readonly key: string;»
  «ts:readonly waitedMs: number;»

  constructor(key«ts:: string», waitedMs«ts:: number») {
    super(`${key} is held by another owner; gave up after waiting ${waitedMs} ms`);
    this.key = key;
    this.waitedMs = waitedMs;
  }
}

/** The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable. */
«esm:export »class LeaseLostError extends Error {
  «ts:override »name = 'LeaseLostError';
  «ts:readonly key: string;»

  constructor(key«ts:: string», why«ts:: string», cause«ts:?: unknown») {
    super(`lease on ${key} lost: ${why}`, cause === undefined ? undefined : { cause });
    this.key = key;
  }
}

/**
 * A held lock: key; token, this holder's owner token (the lock key's value while it is held);
 * fence, the fencing token with options.fenceKey (the guarded resource refuses older ones);
 * signal, aborted with a LeaseLostError as its reason when a renewal finds the lease gone or fails.
 */
«esm:export »class Lease {
  «ts:readonly key: string;»
  «ts:readonly token: string;»
  «ts:readonly fence: number | undefined;»
  «ts:readonly signal: AbortSignal;»
  «ts:private readonly redis: LockClient;»
  «ts:private readonly ttlMs: number;»
  «ts:private readonly lost: AbortController;»
  «ts:private renewal: NodeJS.Timeout | undefined;»
  «ts:private released: boolean;»
«ts:»
  constructor(redis«ts:: LockClient», key«ts:: string», token«ts:: string», ttlMs«ts:: number», fence«ts:: number | undefined», renew«ts:: boolean») {
    this.lost = new AbortController();
    this.released = false;
    this.redis = redis;
    this.key = key;
    this.token = token;
    this.ttlMs = ttlMs;
    this.fence = fence;
    this.signal = this.lost.signal;
    if (renew) this.scheduleRenewal();
  }

  /** Sets the lease to ttlMs from now (default: the acquire's); false when it is no longer held. */
  async extend(ttlMs«ts:: number» = this.ttlMs)«ts:: Promise<boolean>» {
    checkMs('ttlMs', ttlMs);
    return (await run(this.redis, 'extend', [this.key], [this.token, ttlMs])) === 1;
  }

  /** Stops renewing and deletes the lock if this lease still holds it; false when it no longer did. */
  async release()«ts:: Promise<boolean>» {
    if (this.released) return false;
    this.released = true;
    clearTimeout(this.renewal);
    // A renewal still in flight cannot bring the lock back: extend never creates the key.
    return (await run(this.redis, 'release', [this.key], [this.token])) === 1;
  }

  «ts:private »scheduleRenewal()«ts:: void» {
    this.renewal = setTimeout(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.renewal.unref();
  }

  «ts:private »async renew()«ts:: Promise<void>» {
    try {
      const held = await this.extend();
      if (this.released) return;
      if (held) this.scheduleRenewal();
      else this.lost.abort(new LeaseLostError(this.key, 'taken by another owner or expired'));
    } catch (error) {
      if (!this.released) this.lost.abort(new LeaseLostError(this.key, 'renewal failed, it may expire unseen', error));
    }
  }
}

function checkMs(name«ts:: string», value«ts:: unknown»)«ts:: void» {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || (name === 'ttlMs' && value === 0)) {
    throw new RangeError(`${name} must be a ${name === 'ttlMs' ? 'positive' : 'non-negative'} integer of milliseconds, got ${String(value)}`);
  }
}

/**
 * Takes the lock, waiting up to options.waitMs (default 10 s) with jittered exponential back-off
 * (10 ms doubling to 500 ms, ±50 %), then LockBusyError. Redis errors are thrown as they are.
 */
«esm:export »async function acquire(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions»)«ts:: Promise<Lease>» {
  const { ttlMs, waitMs = 10_000, fenceKey, renew = false, signal } = options;
  checkMs('ttlMs', ttlMs);
  checkMs('waitMs', waitMs);
  const token = `${hostname()}:${process.pid}:${randomUUID()}`;
  const keys = fenceKey === undefined ? [key] : [key, fenceKey];
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const reply = await run(redis, 'acquire', keys, [token, ttlMs]);
    if (reply !== 0) return new Lease(redis, key, token, ttlMs, fenceKey === undefined ? undefined : reply, renew);
    const left = waitMs - (Date.now() - started);
    if (left <= 0) throw new LockBusyError(key, waitMs);
    await waitTurn(attempt, left, signal);
  }
}

/** Sleeps before the next try: jittered, doubling, never past the wait's end. */
async function waitTurn(attempt«ts:: number», leftMs«ts:: number», signal«ts:: AbortSignal | undefined»)«ts:: Promise<void>» {
  const backoffMs = Math.min(10 * 2 ** attempt, 500) * (0.5 + Math.random());
  await sleep(Math.min(backoffMs, leftMs), undefined, signal === undefined ? {} : { signal });
}

/**
 * Runs fn while holding the lock and releases it afterwards, also when fn throws. Throws
 * LeaseLostError after fn returns if the lease was gone before the release: another holder may
 * have run at the same time, so fn's effects need checking (or fencing).
 */
«esm:export »async function withLock«ts:<T>»(
  redis«ts:: LockClient»,
  key«ts:: string»,
  options«ts:: LockOptions»,
  fn«ts:: (lease: Lease) => Promise<T>»,
)«ts:: Promise<T>» {
  const lease = await acquire(redis, key, options);
  let result«ts:: T»;
  try {
    result = await fn(lease);
  } catch (error) {
    await lease.release().catch(() => false); // fn's error is the one to report
    throw error;
  }
  if (!(await lease.release())) {
    throw new LeaseLostError(key, 'it expired or was taken before release', lease.signal.reason);
  }
  return result;
}
«cjs:
module.exports = { acquire, withLock, Lease, LockBusyError, LeaseLostError };»

«header»

// One lock per key: withLock(redis, key, { ttlMs }, async (lease) => ...) holds it around the
// callback; acquire() and lease.release() are for code that cannot use a callback.
«ts:import type { Cluster, Redis } from 'ioredis';»
«esm:import { randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«esm:import { setTimeout as sleep } from 'node:timers/promises';»
«cjs:const { randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»
«cjs:const { setTimeout: sleep } = require('node:timers/promises');»

// ioredis runs these with EVALSHA (defineCommand); on NOSCRIPT (script cache flushed, restart,
// failover) it sends the source once with EVAL, which caches it again.
const SCRIPTS = {
  locksmithAcquire: `«lua:acquire»`,
  locksmithExtend: `«lua:extend»`,
  locksmithRelease: `«lua:release»`,
};

«ts:export type LockClient = Redis | Cluster;

/** The scripts as defineCommand adds them; the first argument is the number of keys. */
interface ScriptCommands {
  locksmithAcquire(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number>;
  locksmithExtend(numberOfKeys: 1, key: string, token: string, ttlMs: number): Promise<number>;
  locksmithRelease(numberOfKeys: 1, key: string, token: string): Promise<number>;
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
const commands = new WeakSet«ts:<object>»();

function scripts(redis«ts:: LockClient»)«ts:: ScriptCommands» {
  if (!commands.has(redis)) {
    for (const [name, lua] of Object.entries(SCRIPTS)) redis.defineCommand(name, { lua });
    commands.add(redis);
  }
  return redis«ts: as unknown as ScriptCommands»;
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
  «ts:private readonly redis: ScriptCommands;»
  «ts:private readonly ttlMs: number;»
  «ts:private readonly lost: AbortController;»
  «ts:private renewal: NodeJS.Timeout | undefined;»
  «ts:private released: boolean;»
«ts:»
  constructor(redis«ts:: ScriptCommands», key«ts:: string», token«ts:: string», ttlMs«ts:: number», fence«ts:: number | undefined», renew«ts:: boolean») {
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
    return (await this.redis.locksmithExtend(1, this.key, this.token, ttlMs)) === 1;
  }

  /** Stops renewing and deletes the lock if this lease still holds it; false when it no longer did. */
  async release()«ts:: Promise<boolean>» {
    if (this.released) return false;
    this.released = true;
    clearTimeout(this.renewal);
    // A renewal still in flight cannot bring the lock back: extend never creates the key.
    return (await this.redis.locksmithRelease(1, this.key, this.token)) === 1;
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
  const commands = scripts(redis);
  const token = `${hostname()}:${process.pid}:${randomUUID()}`;
  const keys = fenceKey === undefined ? [key] : [key, fenceKey];
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const reply = await commands.locksmithAcquire(keys.length, ...keys, token, ttlMs);
    if (reply !== 0) return new Lease(commands, key, token, ttlMs, fenceKey === undefined ? undefined : reply, renew);
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

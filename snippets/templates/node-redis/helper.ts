«header»

// Locks for node-redis (v4, v5): withLock(redis, key, { ttlMs }, async (lease) => ...) holds a lock around the
// callback (reentrant: true lets a nested withLock on the same key re-enter it); withReadLock,
// withWriteLock and withSemaphore hold the other kinds the same way. acquire(), acquireRead(),
// acquireWrite(), acquireSemaphore() and lease.release() are for code that cannot use a callback;
// tryAcquire() tries once and never waits; releaseLock() and extendLock() take a key and a token.
// A waiter sleeps until the release wakes it (SSUBSCRIBE on the lock key, one duplicate of the
// client shared by its waiters, closed when none is left), the holder's lease ends, or a jittered
// retry bound passes: a missed wake-up costs at most that bound.
«esm:import { AsyncLocalStorage } from 'node:async_hooks';»
«esm:import { createHash, randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«cjs:const { AsyncLocalStorage } = require('node:async_hooks');»
«cjs:const { createHash, randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»

// Each script runs by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart, failover)
// the source goes once with EVAL, which runs it and caches it again on that node. Works with any
// node-redis v4/v5 client or cluster as it is, no scripts option needed in createClient.
const SCRIPTS = {
  locksmithAcquire: `«lua:acquire»`,
  locksmithAcquireQueued: `«lua:acquire_queued»`,
  locksmithExtend: `«lua:extend»`,
  locksmithRelease: `«lua:release»`,
  locksmithReentrantAcquire: `«lua:reentrant_acquire»`,
  locksmithReentrantExtend: `«lua:reentrant_extend»`,
  locksmithReentrantRelease: `«lua:reentrant_release»`,
  locksmithReadAcquire: `«lua:read_acquire»`,
  locksmithWriteAcquire: `«lua:write_acquire»`,
  locksmithRwExtend: `«lua:rw_extend»`,
  locksmithRwRelease: `«lua:rw_release»`,
  locksmithSemaphoreAcquire: `«lua:semaphore_acquire»`,
  locksmithSemaphoreExtend: `«lua:semaphore_extend»`,
  locksmithSemaphoreRelease: `«lua:semaphore_release»`,
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
}

/** A duplicate of the client that waits for wake-ups: a client with subscriptions runs no other commands. */
interface Subscriber {
  on(event: 'error', listener: (error: Error) => void): unknown;
  connect(): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  sUnsubscribe(channel: string): Promise<void>;
  disconnect(): Promise<void>;
}

type ScriptName = keyof typeof SCRIPTS;

export interface WaitOptions {
  /** Lease in ms: how long the lock outlives a holder that dies without releasing it. */
  ttlMs: number;
  /** How long to wait for another holder to let go before LockBusyError (default 10 000; 0: try once). */
  waitMs?: number;
  /** Longest sleep between two tries while waiting, jittered down to half (default 500): the cost of a missed wake-up. */
  retryMs?: number;
  /** Extend the lease every ttlMs/3 while it is held; lease.signal aborts when a renewal fails. */
  renew?: boolean;
  /** Cancels the wait (not a lease already held): the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface LockOptions extends WaitOptions {
  /** Fencing counter key (in Cluster, with the lock key's {hash tag}): lease.fence grows with every new holder. */
  fenceKey?: string;
  /** A withLock (or acquire) inside the callback of a withLock on the same key re-enters it; each take needs its release. */
  reentrant?: boolean;
}

export interface SemaphoreOptions extends WaitOptions {
  /** How many holders the semaphore admits at once: the same for every caller while any permit is held. */
  permits: number;
}

/** One try: the script's reply (0: not taken), and when the holder's lease ends if the script says. */
interface Attempt {
  reply: number;
  retryInMs?: number | undefined;
}

/** The scripts that extend and release a kind of lock. */
interface Kind {
  extend: ScriptName;
  release: ScriptName;
}
»
async function call(
  redis«ts:: LockClient»,
  name«ts:: ScriptName»,
  keys«ts:: string[]»,
  args«ts:: (string | number)[]»,
)«ts:: Promise<unknown>» {
  const options = { keys, arguments: args.map(String) };
  try {
    return await redis.evalSha(«ts:SHA1S[name] as string»«js:SHA1S[name]», options);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await redis.eval(SCRIPTS[name], options);
  }
}

async function run(
  redis«ts:: LockClient»,
  name«ts:: ScriptName»,
  keys«ts:: string[]»,
  args«ts:: (string | number)[]»,
)«ts:: Promise<number>» {
  return Number(await call(redis, name, keys, args));
}

const PLAIN«ts:: Kind» = { extend: 'locksmithExtend', release: 'locksmithRelease' };
const REENTRANT«ts:: Kind» = { extend: 'locksmithReentrantExtend', release: 'locksmithReentrantRelease' };
const READ_WRITE«ts:: Kind» = { extend: 'locksmithRwExtend', release: 'locksmithRwRelease' };
const SEMAPHORE«ts:: Kind» = { extend: 'locksmithSemaphoreExtend', release: 'locksmithSemaphoreRelease' };

/** The lock stayed held for the whole wait. */
«esm:export »class LockBusyError extends Error {
  «ts:override »name = 'LockBusyError';
  «ts:readonly key: string;»
  «ts:readonly waitedMs: number;»

  constructor(key«ts:: string», waitedMs«ts:: number», holders = 'another owner') {
    super(`${key} is held by ${holders}; gave up after waiting ${waitedMs} ms`);
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
 * A held lock, read lock, write lock or semaphore permit: key; token, this holder's owner token;
 * fence, the fencing token with options.fenceKey (the guarded resource refuses older ones);
 * signal, aborted with a LeaseLostError as its reason when a renewal finds the lease gone or fails.
 */
«esm:export »class Lease {
  «ts:readonly key: string;»
  «ts:readonly token: string;»
  «ts:readonly fence: number | undefined;»
  «ts:readonly signal: AbortSignal;»
  «ts:private readonly redis: LockClient;»
  «ts:private readonly kind: Kind;»
  «ts:private readonly ttlMs: number;»
  «ts:private readonly queue: string | undefined;»
  «ts:private readonly lost: AbortController;»
  «ts:private renewal: NodeJS.Timeout | undefined;»
  «ts:private released: boolean;»
«ts:»
  /** kind: the scripts that extend and release it; queue: the waiter queue it was taken from, woken on release. */
  constructor(redis«ts:: LockClient», kind«ts:: Kind», key«ts:: string», token«ts:: string», ttlMs«ts:: number», fence«ts:: number | undefined», renew«ts:: boolean», queue«ts:?: string») {
    this.lost = new AbortController();
    this.released = false;
    this.redis = redis;
    this.kind = kind;
    this.key = key;
    this.token = token;
    this.ttlMs = ttlMs;
    this.fence = fence;
    this.queue = queue;
    this.signal = this.lost.signal;
    if (renew) this.scheduleRenewal();
  }

  /** Sets the lease to ttlMs from now (default: the acquire's); false when it is no longer held. */
  async extend(ttlMs«ts:: number» = this.ttlMs)«ts:: Promise<boolean>» {
    checkMs('ttlMs', ttlMs);
    return (await run(this.redis, this.kind.extend, [this.key], [this.token, ttlMs])) === 1;
  }

  /** Stops renewing and gives the hold back if this lease still has it, waking waiters; false when it no longer did. */
  async release()«ts:: Promise<boolean>» {
    if (this.released) return false;
    this.released = true;
    clearTimeout(this.renewal);
    // A renewal still in flight cannot bring the lock back: extend never creates the key.
    const keys = this.queue === undefined ? [this.key] : [this.key, this.queue];
    return (await run(this.redis, this.kind.release, keys, [this.token])) !== 0;
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

function newToken()«ts:: string» {
  return `${hostname()}:${process.pid}:${randomUUID()}`;
}

/** A waiting acquire's wake-ups: wake() before sleep() makes the next sleep return at once. */
class Waiter {
  «ts:readonly token: string;»
  «ts:private woken: boolean;»
  «ts:private resolve: (() => void) | undefined;»
«ts:»
  constructor(token«ts:: string») {
    this.token = token;
    this.woken = false;
    this.resolve = undefined;
  }

  wake()«ts:: void» {
    if (this.resolve) this.resolve();
    else this.woken = true;
  }

  /** Resolves when woken or after ms; rejects with the signal's reason when it aborts. */
  sleep(ms«ts:: number», signal«ts:: AbortSignal | undefined»)«ts:: Promise<void>» {
    signal?.throwIfAborted();
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.resolve = undefined;
      };
      const onAbort = () => {
        finish();
        reject(signal«ts:!».reason);
      };
      const timer = setTimeout(() => {
        finish();
        resolve();
      }, ms);
      this.resolve = () => {
        finish();
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

«ts:/** A client's subscriber connection and its waiters per lock key. */
interface Hub {
  subscriber: Subscriber;
  connected: Promise<unknown>;
  channels: Map<string, { subscribed: Promise<unknown>; waiters: Waiter[] }>;
}
»
const hubs = new WeakMap«ts:<LockClient, Hub>»();

/**
 * Joins the waiters of key: the scripts that free a lock SPUBLISH on its key's name, with an empty
 * payload (wake one waiter of each client), '*' (wake all) or the token of the waiter to wake.
 * Resolves once subscribed, or after patienceMs: a waiter whose subscription stalls or fails (a
 * server before 7.0, an ACL without channel rights) still wakes by its timer. Returns the waiter
 * and the function that leaves.
 */
async function listen(redis«ts:: LockClient», key«ts:: string», token«ts:: string», patienceMs«ts:: number»)«ts:: Promise<[Waiter, () => void]>» {
  let hub = hubs.get(redis);
  if (hub === undefined) {
    const subscriber = redis.duplicate();
    subscriber.on('error', () => undefined); // it reconnects and resubscribes; the timers cover the gap
    hub = { subscriber, connected: subscriber.connect(), channels: new Map() };
    hubs.set(redis, hub);
  }
  const joined = hub;
  let channel = joined.channels.get(key);
  if (channel === undefined) {
    const entry = { subscribed: Promise.resolve«ts:<unknown>»(undefined), waiters: «ts:[] as Waiter[]»«js:[]» };
    const wake = (payload«ts:: string») => {
      if (payload === '*') for (const waiter of entry.waiters) waiter.wake();
      else if (payload === '') entry.waiters[0]?.wake();
      else entry.waiters.find((waiter) => waiter.token === payload)?.wake();
    };
    entry.subscribed = joined.connected.then(() => joined.subscriber.sSubscribe(key, wake)).catch(() => undefined);
    channel = entry;
    joined.channels.set(key, channel);
  }
  const waiter = new Waiter(token);
  channel.waiters.push(waiter);
  let timer«ts:: NodeJS.Timeout | undefined»;
  await Promise.race([channel.subscribed, new Promise((resolve) => (timer = setTimeout(resolve, patienceMs)))]);
  clearTimeout(timer);
  const entry = channel;
  const leave = () => {
    entry.waiters = entry.waiters.filter((other) => other !== waiter);
    if (entry.waiters.length > 0 || joined.channels.get(key) !== entry) return;
    joined.channels.delete(key);
    if (joined.channels.size > 0) {
      joined.subscriber.sUnsubscribe(key).catch(() => undefined);
    } else {
      hubs.delete(redis);
      joined.connected.then(() => joined.subscriber.disconnect()).catch(() => undefined);
    }
  };
  return [waiter, leave];
}

/**
 * Tries; while the lock is held and options.waitMs lasts, joins its waiters, tries again (a
 * release may have gone out before the subscription), then sleeps until woken, until the
 * holder's lease ends or for the jittered retry bound, and tries again. The last reply: 0 when
 * it was never taken.
 */
async function take(redis«ts:: LockClient», key«ts:: string», token«ts:: string», options«ts:: WaitOptions», attempt«ts:: () => Promise<Attempt>»)«ts:: Promise<number>» {
  const { waitMs = 10_000, retryMs = 500, signal } = options;
  checkMs('waitMs', waitMs);
  checkMs('retryMs', retryMs);
  signal?.throwIfAborted();
  const deadline = Date.now() + waitMs;
  let outcome = await attempt();
  if (outcome.reply !== 0 || waitMs === 0) return outcome.reply;
  const [waiter, leave] = await listen(redis, key, token, retryMs);
  try {
    for (;;) {
      outcome = await attempt();
      const leftMs = deadline - Date.now();
      if (outcome.reply !== 0 || leftMs <= 0) return outcome.reply;
      const boundMs = retryMs * (0.5 + Math.random() / 2);
      await waiter.sleep(Math.min(leftMs, boundMs, outcome.retryInMs ?? Infinity), signal);
    }
  } finally {
    leave();
  }
}

/**
 * The waiter queue of a plain lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
 * lock:order:42 -> {lock:order:42}:waiters; none for a key with '}' but no hash tag.
 */
function waitersKey(key«ts:: string»)«ts:: string | undefined» {
  const open = key.indexOf('{');
  if (open >= 0 && key.indexOf('}', open + 1) > open + 1) return `${key}:waiters`;
  return key.includes('}') ? undefined : `{${key}}:waiters`;
}

/** The owner tokens of the reentrant locks held around the current call, by key. */
const reentrantHolds = new AsyncLocalStorage«ts:<Map<string, string>>»();

/**
 * Takes the lock, waiting up to options.waitMs (default 10 s) in line (first come, first served)
 * for the release to wake it, then LockBusyError. Redis errors are thrown as they are.
 */
«esm:export »async function acquire(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions»)«ts:: Promise<Lease>» {
  const { ttlMs, waitMs = 10_000, retryMs = 500, fenceKey, reentrant = false, renew = false } = options;
  checkMs('ttlMs', ttlMs);
  if (reentrant) {
    if (fenceKey !== undefined) throw new TypeError('fenceKey works with a plain lock, not a reentrant one');
    const token = reentrantHolds.getStore()?.get(key) ?? newToken();
    const count = await take(redis, key, token, options, async () => ({
      reply: await run(redis, 'locksmithReentrantAcquire', [key], [token, ttlMs]),
    }));
    if (count === 0) throw new LockBusyError(key, waitMs);
    return new Lease(redis, REENTRANT, key, token, ttlMs, undefined, renew);
  }
  const token = newToken();
  const queue = waitMs > 0 ? waitersKey(key) : undefined;
  const fence = fenceKey === undefined ? [] : [fenceKey];
  const deadline = Date.now() + waitMs;
  const reply = await take(redis, key, token, options, async () => {
    if (queue === undefined) return { reply: await run(redis, 'locksmithAcquire', [key, ...fence], [token, ttlMs]) };
    // In line: the release takes the first waiter off the queue and wakes exactly that one.
    const queueMs = Math.max(1, deadline - Date.now()) + 2 * retryMs;
    const reply = await call(redis, 'locksmithAcquireQueued', [key, queue, ...fence], [token, ttlMs, queueMs]);
    const [taken = 0, pttl = -1] = «ts:(reply as unknown[])»«js:reply».map(Number);
    return { reply: taken, retryInMs: pttl === -2 ? 0 : pttl > 0 ? pttl : undefined };
  }).catch(async (error«ts:: unknown») => {
    if (queue !== undefined) await redis.zRem(queue, token).catch(() => 0); // cancelled: leave the line
    throw error;
  });
  if (reply === 0) {
    if (queue !== undefined) await redis.zRem(queue, token);
    throw new LockBusyError(key, waitMs);
  }
  return new Lease(redis, PLAIN, key, token, ttlMs, fenceKey === undefined ? undefined : reply, renew, queue);
}

/**
 * One try, never waits: the lease, or null while another holder has the lock (options.waitMs is
 * ignored). Redis errors are thrown as they are.
 */
«esm:export »async function tryAcquire(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions»)«ts:: Promise<Lease | null>» {
  try {
    return await acquire(redis, key, { ...options, waitMs: 0 });
  } catch (error) {
    if (error instanceof LockBusyError) return null;
    throw error;
  }
}

/** Compare-and-delete: deletes key while it holds token (true, and wakes a waiter); false when it held another token or none. */
«esm:export »async function releaseLock(redis«ts:: LockClient», key«ts:: string», token«ts:: string»)«ts:: Promise<boolean>» {
  return (await run(redis, 'locksmithRelease', [key], [token])) === 1;
}

/** Compare-and-extend: sets key's lease to ttlMs while it holds token (true); false when it held another token or none. */
«esm:export »async function extendLock(redis«ts:: LockClient», key«ts:: string», token«ts:: string», ttlMs«ts:: number»)«ts:: Promise<boolean>» {
  checkMs('ttlMs', ttlMs);
  return (await run(redis, 'locksmithExtend', [key], [token, ttlMs])) === 1;
}

/** A read lock: held with other readers, never with a writer; waits while a writer holds or waits for it. */
«esm:export »async function acquireRead(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions»)«ts:: Promise<Lease>» {
  const { ttlMs, waitMs = 10_000, renew = false } = options;
  checkMs('ttlMs', ttlMs);
  const token = newToken();
  const reply = await take(redis, key, token, options, async () => ({
    reply: await run(redis, 'locksmithReadAcquire', [key], [token, ttlMs]),
  }));
  if (reply === 0) throw new LockBusyError(key, waitMs, 'a writer');
  return new Lease(redis, READ_WRITE, key, token, ttlMs, undefined, renew);
}

/**
 * A write lock: held alone, with no reader. While it waits, its intent keeps new readers out
 * (for twice the retry bound, renewed by every try), so a stream of readers cannot starve it.
 */
«esm:export »async function acquireWrite(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions»)«ts:: Promise<Lease>» {
  const { ttlMs, waitMs = 10_000, retryMs = 500, renew = false } = options;
  checkMs('ttlMs', ttlMs);
  const token = newToken();
  const intentMs = waitMs > 0 ? 2 * Math.max(1, retryMs) : 1;
  const reply = await take(redis, key, token, options, async () => ({
    reply: await run(redis, 'locksmithWriteAcquire', [key], [token, ttlMs, intentMs]),
  }));
  if (reply === 0) throw new LockBusyError(key, waitMs, 'readers or another writer');
  return new Lease(redis, READ_WRITE, key, token, ttlMs, undefined, renew);
}

/** A permit of a semaphore admitting options.permits holders at once, each with its own lease. */
«esm:export »async function acquireSemaphore(redis«ts:: LockClient», key«ts:: string», options«ts:: SemaphoreOptions»)«ts:: Promise<Lease>» {
  const { ttlMs, permits, waitMs = 10_000, renew = false } = options;
  checkMs('ttlMs', ttlMs);
  if (!Number.isSafeInteger(permits) || permits < 1 || permits > 999_999_999) {
    throw new RangeError(`permits must be an integer from 1 to 999999999, got ${String(permits)}`);
  }
  const token = newToken();
  const reply = await take(redis, key, token, options, async () => ({
    reply: await run(redis, 'locksmithSemaphoreAcquire', [key], [token, ttlMs, permits]),
  }));
  if (reply === 0) throw new LockBusyError(key, waitMs, `${permits} other holders`);
  return new Lease(redis, SEMAPHORE, key, token, ttlMs, undefined, renew);
}

/**
 * Runs fn with the lease and releases it afterwards, also when fn throws. Throws LeaseLostError
 * after fn returns if the lease was gone before the release: another holder may have run at the
 * same time, so fn's effects need checking (or fencing).
 */
async function hold«ts:<T>»(lease«ts:: Lease», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  let result«ts:: T»;
  try {
    result = await fn(lease);
  } catch (error) {
    await lease.release().catch(() => false); // fn's error is the one to report
    throw error;
  }
  if (!(await lease.release())) {
    throw new LeaseLostError(lease.key, 'it expired or was taken before release', lease.signal.reason);
  }
  return result;
}

/** Runs fn while holding the lock (see hold); with reentrant, a nested withLock on key re-enters it. */
«esm:export »async function withLock«ts:<T>»(
  redis«ts:: LockClient»,
  key«ts:: string»,
  options«ts:: LockOptions»,
  fn«ts:: (lease: Lease) => Promise<T>»,
)«ts:: Promise<T>» {
  const lease = await acquire(redis, key, options);
  if (!options.reentrant) return hold(lease, fn);
  const holds = new Map(reentrantHolds.getStore()).set(key, lease.token);
  return reentrantHolds.run(holds, () => hold(lease, fn));
}

/** Runs fn while holding a read lock on key: other readers may run at the same time, no writer. */
«esm:export »async function withReadLock«ts:<T>»(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  return hold(await acquireRead(redis, key, options), fn);
}

/** Runs fn while holding the write lock on key: no reader and no other writer at the same time. */
«esm:export »async function withWriteLock«ts:<T>»(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  return hold(await acquireWrite(redis, key, options), fn);
}

/** Runs fn while holding one of options.permits permits of the semaphore key. */
«esm:export »async function withSemaphore«ts:<T>»(redis«ts:: LockClient», key«ts:: string», options«ts:: SemaphoreOptions», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  return hold(await acquireSemaphore(redis, key, options), fn);
}
«cjs:
module.exports = {
  acquire,
  tryAcquire,
  releaseLock,
  extendLock,
  acquireRead,
  acquireWrite,
  acquireSemaphore,
  withLock,
  withReadLock,
  withWriteLock,
  withSemaphore,
  Lease,
  LockBusyError,
  LeaseLostError,
};»

«ts:type ScriptName = keyof typeof SCRIPTS;

export interface WaitOptions {
  /** Lease in ms: how long the lock outlives a holder that dies without releasing it. */
  ttlMs: number;
  /** How long to wait for another holder before LockBusyError (default 10 000; 0: try once). */
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
«kinds:lock-options»
}
«kinds:types»
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

/** A client's wake-ups: a subscription per lock key on a connection of its own, shared by its waiters. */
interface Wakeups {
  subscribe(key: string): Promise<unknown>;
  unsubscribe(key: string): void;
  close(): void;
}
»
async function run(redis«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]»)«ts:: Promise<number>» {
  return Number(await call(redis, name, keys, args));
}

const PLAIN«ts:: Kind» = { extend: 'locksmithExtend', release: 'locksmithRelease' };

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
 * A held lock: key; token, this holder's owner token; fence, the fencing token with
 * options.fenceKey (the guarded resource refuses older ones); signal, aborted with a LeaseLostError
 * as its reason when a renewal finds the lease gone or fails.
 */
«esm:export »class Lease {
  «ts:readonly key: string;»
  «ts:readonly token: string;»
  «ts:readonly fence: number | undefined;»
  «ts:readonly signal: AbortSignal;»
  «ts:protected readonly redis: LockClient;»
  «ts:private readonly kind: Kind;»
  «ts:protected readonly ttlMs: number;»
  «ts:private readonly queue: string | undefined;»
  «ts:private readonly lost = new AbortController();»
  «ts:protected renewal: NodeJS.Timeout | undefined;»
  «ts:protected released = false;»
«ts:»
  /** kind: the scripts that extend and release it; queue: the waiter queue it was taken from, woken on release. */
  constructor(redis«ts:: LockClient», kind«ts:: Kind», key«ts:: string», token«ts:: string», ttlMs«ts:: number», fence«ts:: number | undefined», renew«ts:: boolean», queue«ts:?: string») {
    «js:this.lost = new AbortController();»
    «js:this.released = false;»
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

«kinds:lease»
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
  «ts:private woken = false;»
  «ts:private resolve: (() => void) | undefined;»
«ts:»
  constructor(token«ts:: string») {
    this.token = token;
    «js:this.woken = false;»
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
      const finish = (error«ts:?: unknown») => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.resolve = undefined;
        if (error === undefined) resolve();
        else reject(error);
      };
      const onAbort = () => finish(signal«ts:!».reason);
      const timer = setTimeout(finish, ms);
      this.resolve = finish;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

«ts:type Channels = Map<string, { subscribed: Promise<unknown>; waiters: Waiter[] }>;»
const hubs = new WeakMap«ts:<LockClient, { wakeups: Wakeups; channels: Channels }>»();

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
    const channels«ts:: Channels» = new Map();
    const wakeups = openWakeups(redis, (channel, payload) => {
      const waiters = channels.get(channel)?.waiters ?? [];
      if (payload === '*') for (const waiter of waiters) waiter.wake();
      else if (payload === '') waiters[0]?.wake();
      else waiters.find((waiter) => waiter.token === payload)?.wake();
    });
    hub = { wakeups, channels };
    hubs.set(redis, hub);
  }
  const { wakeups, channels } = hub;
  let channel = channels.get(key);
  if (channel === undefined) {
    channel = { subscribed: wakeups.subscribe(key).catch(() => undefined), waiters: [] };
    channels.set(key, channel);
  }
  const waiter = new Waiter(token);
  channel.waiters.push(waiter);
  let timer«ts:: NodeJS.Timeout | undefined»;
  await Promise.race([channel.subscribed, new Promise((resolve) => (timer = setTimeout(resolve, patienceMs)))]);
  clearTimeout(timer);
  const entry = channel;
  const leave = () => {
    entry.waiters = entry.waiters.filter((other) => other !== waiter);
    if (entry.waiters.length > 0 || channels.get(key) !== entry) return;
    channels.delete(key);
    if (channels.size > 0) return wakeups.unsubscribe(key);
    hubs.delete(redis);
    wakeups.close();
  };
  return [waiter, leave];
}

/**
 * Tries; while the lock is held and options.waitMs lasts, joins its waiters, tries again (a
 * release may have gone out before the subscription), then sleeps until woken, until the holder's
 * lease ends or for the jittered retry bound, and tries again. The last reply: 0 when never taken.
 */
async function take(redis«ts:: LockClient», key«ts:: string», token«ts:: string», options«ts:: WaitOptions», attempt«ts:: () => Promise<Attempt>»)«ts:: Promise<number>» {
  const { waitMs = 10_000, retryMs = 500, signal } = options;
  for (const [name, ms] of Object.entries({ ttlMs: options.ttlMs, waitMs, retryMs })) checkMs(name, ms);
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

/**
 * Takes the lock, waiting up to options.waitMs (default 10 s) in line (first come, first served)
 * for the release to wake it, then LockBusyError. Redis errors are thrown as they are.
 */
«esm:export »async function acquire(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions»)«ts:: Promise<Lease>» {
«kinds:acquire»
  // JavaScript would take a plain lock for an option of a part this helper does not carry.
  if ('reentrant' in options && options.reentrant) throw new TypeError('this helper has no reentrant lock: add the kind to it');
  const { ttlMs, waitMs = 10_000, retryMs = 500, fenceKey, renew = false } = options;
  let send = call; // each attempt's script call (replica-wait pipelines a WAIT behind it)
«kinds:acquire-send»
  if ('waitForReplicas' in options && options.waitForReplicas && send === call) throw new TypeError('this helper has no waitForReplicas: add the replica-wait part to it');
  const token = newToken();
  const queue = waitMs > 0 ? waitersKey(key) : undefined;
  const fence = fenceKey === undefined ? [] : [fenceKey];
  const deadline = Date.now() + waitMs;
  const reply = await take(redis, key, token, options, async () => {
    if (queue === undefined) return { reply: Number(await send(redis, 'locksmithAcquire', [key, ...fence], [token, ttlMs])) };
    // In line: the release takes the first waiter off the queue and wakes exactly that one.
    const queueMs = Math.max(1, deadline - Date.now()) + 2 * retryMs;
    const replies = await send(redis, 'locksmithAcquireQueued', [key, queue, ...fence], [token, ttlMs, queueMs]);
    const [taken = 0, pttl = -1] = «ts:(replies as unknown[])»«js:replies».map(Number);
    // PTTL -1: no expiry, nothing to wait for but a wake-up; -2 (gone) and 0 (ending now): try at once.
    return { reply: taken, retryInMs: pttl === -1 ? undefined : Math.max(pttl, 0) };
  }).catch(async (error«ts:: unknown») => {
    if (queue !== undefined) await leaveLine(redis, queue, token).catch(() => 0); // cancelled: leave the line
    throw error;
  });
  if (reply === 0) {
    if (queue !== undefined) await leaveLine(redis, queue, token);
    throw new LockBusyError(key, waitMs);
  }
  return new Lease(redis, PLAIN, key, token, ttlMs, fenceKey === undefined ? undefined : reply, renew, queue);
}

/** One try, never waits: the lease, or null while another holder has the lock (options.waitMs is ignored). */
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

/** Runs fn while holding the lock (see hold). */
«esm:export »async function withLock«ts:<T>»(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  const lease = await acquire(redis, key, options);
«kinds:with-lock»
  return hold(lease, fn);
}

«ts:type ScriptName = keyof typeof SCRIPTS;

export interface WaitOptions {
  /** Lease in ms: how long the lock outlives a holder that dies without releasing it. */
  ttlMs: number;
  /** How long to wait for another holder before LockBusyError (default 10 000; 0: try once). */
  waitMs?: number;
  /** Longest sleep between two tries while waiting, jittered down to half (default 500). */
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
/** The scripts that extend and release a kind of lock. */
interface Kind { extend: ScriptName; release: ScriptName }
»
async function run(redis«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]»)«ts:: Promise<number>» {
  return Number(await call(redis, name, keys, args));
}

const PLAIN«ts:: Kind» = { extend: 'locksmithExtend', release: 'locksmithRelease' };

/** The lock stayed held for the whole wait. */
«esm:export »class LockBusyError extends Error {
  «ts:override »name = 'LockBusyError';

  constructor(«ts:readonly »key«ts:: string», «ts:readonly »waitedMs«ts:: number», holders = 'another owner') {
    super(`${key} is held by ${holders}; gave up after waiting ${waitedMs} ms`);
    «js:this.key = key;»
    «js:this.waitedMs = waitedMs;»
  }
}

/** The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable. */
«esm:export »class LeaseLostError extends Error {
  «ts:override »name = 'LeaseLostError';

  constructor(«ts:readonly »key«ts:: string», why«ts:: string», cause«ts:?: unknown») {
    super(`lease on ${key} lost: ${why}`, cause === undefined ? undefined : { cause });
    «js:this.key = key;»
  }
}

/**
 * A held lock: token, this holder's; fence, the fencing token with options.fenceKey (the guarded resource
 * refuses older ones); signal, aborted with a LeaseLostError when a renewal finds the lease gone or fails.
 */
«esm:export »class Lease {
  «ts:readonly key: string;»
  «ts:readonly token: string;»
  «ts:readonly fence: number | undefined;»
  «ts:readonly signal: AbortSignal;»
  «ts:protected readonly redis: LockClient;»
  «ts:private readonly kind: Kind;»
  «ts:protected readonly ttlMs: number;»
  «ts:private readonly releaseKeys: string[];»
  «ts:private readonly lost = new AbortController();»
  «ts:protected renewal: NodeJS.Timeout | undefined;»
  «ts:protected released = false;»
«ts:»
  /** kind: the scripts that extend and release it; releaseKeys: its release script's keys. */
  constructor(redis«ts:: LockClient», kind«ts:: Kind», key«ts:: string», token«ts:: string», ttlMs«ts:: number», fence«ts:: number | undefined», renew«ts:: boolean», releaseKeys = [key]) {
    «js:this.lost = new AbortController();»
    «js:this.released = false;»
    this.redis = redis;
    this.kind = kind;
    this.key = key;
    this.token = token;
    this.ttlMs = ttlMs;
    this.fence = fence;
    this.releaseKeys = releaseKeys;
    this.signal = this.lost.signal;
    if (renew) this.scheduleRenewal();
  }

  /** Sets the lease to ttlMs from now (default: the acquire's); false when it is no longer held. */
  async extend(ttlMs«ts:: number» = this.ttlMs)«ts:: Promise<boolean>» {
    checkMs('ttlMs', ttlMs);
    return (await run(this.redis, this.kind.extend, [this.key], [this.token, ttlMs])) === 1;
  }

  /** Stops renewing and gives the hold back if this lease still has it; false when it no longer did. */
  async release()«ts:: Promise<boolean>» {
    if (this.released) return false;
    this.released = true;
    clearTimeout(this.renewal);
    // A renewal still in flight cannot bring the lock back: extend never creates the key.
    return (await run(this.redis, this.kind.release, this.releaseKeys, [this.token])) !== 0;
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

/**
 * A wait for the holder of key: between two tries it sleeps the shortest of what is left of the wait, the retry
 * bound jittered down to half and the holder's PTTL + 1 ms (read when the try did not say; -2, gone: no sleep).
 */
class Waiter {
  /** Ends the wait. */
  leave«ts:: () => void» = () => undefined;
«kinds:waiter-fields»

  constructor(«ts:readonly »redis«ts:: LockClient», «ts:readonly »key«ts:: string», «ts:readonly »token«ts:: string», «ts:readonly »retryMs«ts:: number») {«ts:}»
    «js:this.redis = redis;»
    «js:this.key = key;»
    «js:this.token = token;»
    «js:this.retryMs = retryMs;»
  «js:}»
«kinds:waiter»

  /** Rejects with the signal's reason when it aborts. */
  async sleep(leftMs«ts:: number», leaseMs«ts:: number | undefined», signal«ts:: AbortSignal | undefined»)«ts:: Promise<void>» {
«kinds:sleep»
    const pttl = leaseMs ?? Number(await this.redis.«var:pttl»(this.key));
    if (pttl === -2) return;
    const ms = Math.min(leftMs, this.retryMs * (0.5 + Math.random() / 2), pttl >= 0 ? pttl + 1 : Infinity);
    signal?.throwIfAborted();
    await new Promise«ts:<void>»((resolve, reject) => {
      const finish = (error«ts:?: unknown») => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
«kinds:slept»
        if (error === undefined) resolve();
        else reject(error);
      };
      const onAbort = () => finish(signal«ts:!».reason);
      const timer = setTimeout(finish, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
«kinds:sleeping»
    });
  }
}

/** A waiter for the holder of key. */
async function waitFor(redis«ts:: LockClient», key«ts:: string», token«ts:: string», retryMs«ts:: number»)«ts:: Promise<Waiter>» {
  const waiter = new Waiter(redis, key, token, retryMs);
«kinds:wait-for»
  return waiter;
}

/**
 * Tries; while the lock is held and options.waitMs lasts, waits (see Waiter) and tries again. The last reply: 0
 * when never taken. An attempt's leaseMs: the holder's PTTL, when its script says.
 */
async function take(redis«ts:: LockClient», key«ts:: string», token«ts:: string», options«ts:: WaitOptions», attempt«ts:: () => Promise<{ reply: number; leaseMs?: number }>»)«ts:: Promise<number>» {
  const { waitMs = 10_000, retryMs = 500, signal } = options;
  for (const [name, ms] of Object.entries({ ttlMs: options.ttlMs, waitMs, retryMs })) checkMs(name, ms);
  signal?.throwIfAborted();
  const deadline = Date.now() + waitMs;
  let outcome = await attempt();
  if (outcome.reply !== 0 || waitMs === 0) return outcome.reply;
  const waiter = await waitFor(redis, key, token, retryMs);
  try {
    for (;;) {
      const leftMs = deadline - Date.now();
      if (leftMs <= 0) return 0;
      await waiter.sleep(leftMs, outcome.leaseMs, signal);
      outcome = await attempt();
      if (outcome.reply !== 0) return outcome.reply;
    }
  } finally {
    waiter.leave();
  }
}

/** Takes the lock, waiting up to options.waitMs (default 10 s), then LockBusyError. Redis errors are thrown as they are. */
«esm:export »async function acquire(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions»)«ts:: Promise<Lease>» {
«kinds:acquire»
  // JavaScript would take a plain lock for an option of a part this helper does not carry.
  if ('reentrant' in options && options.reentrant) throw new TypeError('this helper has no reentrant lock: add the kind to it');
  const { ttlMs, waitMs = 10_000, fenceKey, renew = false } = options;
  let send = call; // each attempt's script call (replica-wait pipelines a WAIT behind it)
«kinds:acquire-send»
  if ('waitForReplicas' in options && options.waitForReplicas && send === call) throw new TypeError('this helper has no waitForReplicas: add the replica-wait part to it');
«kinds:acquire-plain»
  const token = newToken();
  const keys = fenceKey === undefined ? [key] : [key, fenceKey];
  const reply = await take(redis, key, token, options, async () => ({
    reply: Number(await send(redis, 'locksmithAcquire', keys, [token, ttlMs])),
  }));
  if (reply === 0) throw new LockBusyError(key, waitMs);
  return new Lease(redis, PLAIN, key, token, ttlMs, fenceKey === undefined ? undefined : reply, renew);
}

/** One try, never waits: the lease, or null while another holder has the lock (options.waitMs is ignored). */
«esm:export »async function tryAcquire(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions»)«ts:: Promise<Lease | null>» {
  return acquire(redis, key, { ...options, waitMs: 0 }).catch((error«ts:: unknown») => {
    if (error instanceof LockBusyError) return null;
    throw error;
  });
}

/** Compare-and-delete: deletes key while it holds token (true); false when it held another token or none. */
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

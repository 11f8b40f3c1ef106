// The reentrant lock, the read-write lock and the semaphore on top of LockScripts: one script call
// per operation, and the same waiting loop as the plain lock (their releases wake waiters too).
import type { Attempt, LockScripts, RedisString, WaitOptions } from './runtime';

type Scripts = Pick<LockScripts, 'integer' | 'waitFor' | 'retryMs'>;

/** Runs one attempt, or the waiting loop when `options.waitMs` is set. */
function attemptOrWait<T>(
  scripts: Scripts,
  lock: RedisString,
  token: RedisString,
  options: WaitOptions,
  attempt: () => Promise<Attempt<T>>,
): Promise<T> {
  if (!options.waitMs) {
    options.signal?.throwIfAborted();
    return attempt().then((outcome) => outcome.result);
  }
  return scripts.waitFor(lock, token, options, attempt);
}

/** A counting lock (hash {token: count}): the same owner takes it again, once per release. */
export class ReentrantLocks {
  constructor(private readonly scripts: Scripts) {}

  /** The owner's hold count after this take, or 0 when another owner holds it (after `waitMs`). */
  acquire(lock: RedisString, token: RedisString, ttlMs: number, options: WaitOptions = {}): Promise<number> {
    return attemptOrWait(this.scripts, lock, token, options, async () => {
      const count = await this.scripts.integer('reentrant_acquire', [lock], [token, ttlMs]);
      return { result: count, held: count > 0 };
    });
  }

  /** 0: not held by `token`. 1: that was its last hold, the lock is free. N: it held N, now N - 1. */
  async release(lock: RedisString, token: RedisString): Promise<number> {
    return await this.scripts.integer('reentrant_release', [lock], [token]);
  }

  async extend(lock: RedisString, token: RedisString, ttlMs: number): Promise<boolean> {
    return (await this.scripts.integer('reentrant_extend', [lock], [token, ttlMs])) === 1;
  }
}

/** Many readers or one writer, each with its own lease; a waiting writer keeps new readers out. */
export class ReadWriteLocks {
  constructor(private readonly scripts: Scripts) {}

  read(lock: RedisString, token: RedisString, ttlMs: number, options: WaitOptions = {}): Promise<boolean> {
    return attemptOrWait(this.scripts, lock, token, options, async () => {
      const held = (await this.scripts.integer('read_acquire', [lock], [token, ttlMs])) === 1;
      return { result: held, held };
    });
  }

  /**
   * While readers drain, the writer's wait: intent keeps new readers out for twice the retry
   * bound, renewed by each attempt; a single attempt (no `waitMs`) leaves an intent of 1 ms.
   */
  write(lock: RedisString, token: RedisString, ttlMs: number, options: WaitOptions = {}): Promise<boolean> {
    const intentMs = options.waitMs ? 2 * this.scripts.retryMs : 1;
    return attemptOrWait(this.scripts, lock, token, options, async () => {
      const held = (await this.scripts.integer('write_acquire', [lock], [token, ttlMs, intentMs])) === 1;
      return { result: held, held };
    });
  }

  /** Gives back `token`'s read or write lease; true when it held one. */
  async release(lock: RedisString, token: RedisString): Promise<boolean> {
    return (await this.scripts.integer('rw_release', [lock], [token])) === 1;
  }

  async extend(lock: RedisString, token: RedisString, ttlMs: number): Promise<boolean> {
    return (await this.scripts.integer('rw_extend', [lock], [token, ttlMs])) === 1;
  }
}

/** N permits, each holder with its own lease: a dead holder's permit comes back when its lease ends. */
export class Semaphores {
  constructor(private readonly scripts: Scripts) {}

  acquire(
    semaphore: RedisString,
    token: RedisString,
    ttlMs: number,
    permits: number,
    options: WaitOptions = {},
  ): Promise<boolean> {
    return attemptOrWait(this.scripts, semaphore, token, options, async () => {
      const held = (await this.scripts.integer('semaphore_acquire', [semaphore], [token, ttlMs, permits])) === 1;
      return { result: held, held };
    });
  }

  async release(semaphore: RedisString, token: RedisString): Promise<boolean> {
    return (await this.scripts.integer('semaphore_release', [semaphore], [token])) === 1;
  }

  async extend(semaphore: RedisString, token: RedisString, ttlMs: number): Promise<boolean> {
    return (await this.scripts.integer('semaphore_extend', [semaphore], [token, ttlMs])) === 1;
  }
}

«section:scripts»
  locksmithSemaphoreAcquire: `«lua:semaphore_acquire»`,
  locksmithSemaphoreExtend: `«lua:semaphore_extend»`,
  locksmithSemaphoreRelease: `«lua:semaphore_release»`,
«section:types»

export interface SemaphoreOptions extends WaitOptions {
  /** How many holders the semaphore admits at once: the same for every caller while any permit is held. */
  permits: number;
}
«section:code»
«include-once:_js/kind-common»
const SEMAPHORE«ts:: Kind» = { extend: 'locksmithSemaphoreExtend', release: 'locksmithSemaphoreRelease' };

/** A permit of a semaphore admitting options.permits holders at once, each with its own lease. */
«esm:export »async function acquireSemaphore(redis«ts:: LockClient», key«ts:: string», options«ts:: SemaphoreOptions»)«ts:: Promise<Lease>» {
  const { permits } = options;
  if (!Number.isSafeInteger(permits) || permits < 1 || permits > 999_999_999) {
    throw new RangeError(`permits must be an integer from 1 to 999999999, got ${String(permits)}`);
  }
  return acquireKind(redis, key, newToken(), options, SEMAPHORE, 'locksmithSemaphoreAcquire', [permits], `${permits} other holders`);
}

/** Runs fn while holding one of options.permits permits of the semaphore key. */
«esm:export »async function withSemaphore«ts:<T>»(redis«ts:: LockClient», key«ts:: string», options«ts:: SemaphoreOptions», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  return hold(await acquireSemaphore(redis, key, options), fn);
}

«section:exports»
  acquireSemaphore,
  withSemaphore,

«section:scripts»
  locksmithReadAcquire: `«lua:read_acquire»`,
  locksmithWriteAcquire: `«lua:write_acquire»`,
  locksmithRwExtend: `«lua:rw_extend»`,
  locksmithRwRelease: `«lua:rw_release»`,
«section:code»
«include-once:_js/kind-common»
const READ_WRITE«ts:: Kind» = { extend: 'locksmithRwExtend', release: 'locksmithRwRelease' };

/** A read lock: held with other readers, never with a writer; waits while a writer holds or waits for it. */
«esm:export »async function acquireRead(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions»)«ts:: Promise<Lease>» {
  return acquireKind(redis, key, newToken(), options, READ_WRITE, 'locksmithReadAcquire', [], 'a writer');
}

/**
 * A write lock: held alone, with no reader. While it waits, its intent keeps new readers out
 * (for twice the retry bound, renewed by every try), so a stream of readers cannot starve it.
 */
«esm:export »async function acquireWrite(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions»)«ts:: Promise<Lease>» {
  const intentMs = (options.waitMs ?? 10_000) > 0 ? 2 * Math.max(1, options.retryMs ?? 500) : 1;
  return acquireKind(redis, key, newToken(), options, READ_WRITE, 'locksmithWriteAcquire', [intentMs], 'readers or another writer');
}

/** Runs fn while holding a read lock on key: other readers may run at the same time, no writer. */
«esm:export »async function withReadLock«ts:<T>»(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  return hold(await acquireRead(redis, key, options), fn);
}

/** Runs fn while holding the write lock on key: no reader and no other writer at the same time. */
«esm:export »async function withWriteLock«ts:<T>»(redis«ts:: LockClient», key«ts:: string», options«ts:: WaitOptions», fn«ts:: (lease: Lease) => Promise<T>»)«ts:: Promise<T>» {
  return hold(await acquireWrite(redis, key, options), fn);
}

«section:exports»
  acquireRead,
  acquireWrite,
  withReadLock,
  withWriteLock,

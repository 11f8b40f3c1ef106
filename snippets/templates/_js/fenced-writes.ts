«section:scripts»
  locksmithGuardedSet: `«lua:guarded_set»`,
  locksmithFencedSet: `«lua:fenced_set»`,
«section:lease»
  /**
   * Sets data to value (its TTL kept) only while this lease still holds the lock, in one call: a
   * holder that lost it (expired, taken) writes nothing. False when it no longer held. In a Cluster
   * data needs the lock key's {hash tag}.
   */
  async setIfHeld(data«ts:: string», value«ts:: string»)«ts:: Promise<boolean>» {
    if (this.kind !== PLAIN) throw new TypeError('setIfHeld works with a plain lock, not a reentrant, read-write or semaphore one');
    return setIfHeld(this.redis, this.key, data, this.token, value);
  }

  /**
   * Writes value with this lease's fencing token into the hash data ({value, fence}); false when a
   * newer token has written it already, and nothing was. Needs the acquire's fenceKey.
   */
  async setFenced(data«ts:: string», value«ts:: string»)«ts:: Promise<boolean>» {
    if (this.fence === undefined) throw new TypeError('setFenced needs a fencing token: acquire with fenceKey');
    return setFenced(this.redis, data, this.fence, value);
  }

«section:code»

/** guarded_set: sets data to value (TTL kept) if lock holds token; false when it does not, and nothing was written. */
«esm:export »async function setIfHeld(redis«ts:: LockClient», lock«ts:: string», data«ts:: string», token«ts:: string», value«ts:: string»)«ts:: Promise<boolean>» {
  checkValue(value);
  return (await run(redis, 'locksmithGuardedSet', [lock, data], [token, value])) === 1;
}

/**
 * fenced_set: writes value with the fencing token fence (what an acquire with fenceKey gave) into
 * the hash data ({value, fence}); false when a newer token has written it, and nothing was.
 */
«esm:export »async function setFenced(redis«ts:: LockClient», data«ts:: string», fence«ts:: number», value«ts:: string»)«ts:: Promise<boolean>» {
  checkValue(value);
  if (!Number.isSafeInteger(fence) || fence < 1) throw new RangeError(`fence must be a positive integer, got ${String(fence)}`);
  return (await run(redis, 'locksmithFencedSet', [data], [fence, value])) === 1;
}

function checkValue(value«ts:: unknown»)«ts:: void» {
  if (typeof value !== 'string' || value === '') throw new TypeError(`value must be a non-empty string, got ${JSON.stringify(value)}`);
}
«section:exports»
  setIfHeld,
  setFenced,

«section:scripts»
  locksmithAcquireQueued: `«lua:acquire_queued»`,
«section:waiter-fields»
  «ts:private »woken = false;
  «ts:private »wakeNow«ts:: (() => void) | undefined»;
«section:waiter»

  /** Ends the current sleep, or makes the next one return at once. */
  wake()«ts:: void» {
    if (this.wakeNow) this.wakeNow();
    else this.woken = true;
  }
«section:sleep»
    if (this.woken) {
      this.woken = false;
      return signal?.throwIfAborted();
    }
«section:slept»
        this.wakeNow = undefined;
«section:sleeping»
      this.wakeNow = finish;
«section:wait-for»
  waiter.leave = await listen(waiter);
«section:acquire-plain»
  const queue = waitMs > 0 ? waitersKey(key) : undefined;
  if (queue !== undefined) return acquireInLine(redis, key, queue, options, send);

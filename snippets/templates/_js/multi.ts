«section:scripts»
  locksmithMultiAcquire: `«lua:multi_acquire»`,
  locksmithMultiExtend: `«lua:multi_extend»`,
  locksmithMultiRelease: `«lua:multi_release»`,
«section:exports»
  acquireMulti,
  withMultiLock,
  MultiLease,
«section:code»
const MULTI«ts:: Kind» = { extend: 'locksmithMultiExtend', release: 'locksmithMultiRelease' };

/**
 * Several plain locks held together under one token (keys: each lock key once). extend and
 * release act on every key the token still holds; both answer true only when it held all of them.
 */
«esm:export »class MultiLease extends Lease {
  «ts:readonly keys: string[];»
  «ts:private readonly groups: string[][];»
«ts:»
  /** groups: the keys by hash slot, in the order they were taken. */
  constructor(redis«ts:: LockClient», groups«ts:: string[][]», token«ts:: string», ttlMs«ts:: number», renew«ts:: boolean») {
    super(redis, MULTI, groups.flat().join(', '), token, ttlMs, undefined, renew);
    this.groups = groups;
    this.keys = groups.flat();
  }

  «ts:override »async extend(ttlMs«ts:: number» = this.ttlMs)«ts:: Promise<boolean>» {
    checkMs('ttlMs', ttlMs);
    let extended = 0;
    for (const group of this.groups) extended += await run(this.redis, 'locksmithMultiExtend', group, [this.token, ttlMs]);
    return extended === this.keys.length;
  }

  «ts:override »async release()«ts:: Promise<boolean>» {
    if (this.released) return false;
    this.released = true;
    clearTimeout(this.renewal);
    let released = 0;
    for (const group of this.groups) released += await run(this.redis, 'locksmithMultiRelease', group, [this.token]);
    return released === this.keys.length;
  }
}

/** Redis Cluster's hash slot of key: CRC16 (XMODEM) of its {hash tag} or of the whole key, mod 16384. */
function slotOf(key«ts:: string»)«ts:: number» {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  let crc = 0;
  for (const byte of Buffer.from(close > open + 1 ? key.slice(open + 1, close) : key)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/** keys without repeats in one fixed order, grouped by hash slot on a cluster (one group elsewhere), slots in order. */
function slotGroups(redis«ts:: LockClient», keys«ts:: string[]»)«ts:: string[][]» {
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((key) => typeof key !== 'string' || key === '')) {
    throw new TypeError('a multi-key lock needs an array of one or more non-empty keys');
  }
  const twice = keys.find((key, at) => keys.indexOf(key) !== at);
  if (twice !== undefined) throw new TypeError(`keys names '${twice}' more than once: give each lock key once`);
  const ordered = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  if (!isCluster(redis)) return [ordered];
  const bySlot = new Map«ts:<number, string[]>»();
  for (const key of ordered) bySlot.set(slotOf(key), [...(bySlot.get(slotOf(key)) ?? []), key]);
  return [...bySlot.entries()].sort(([a], [b]) => a - b).map(([, group]) => group);
}

/** One pass in the fixed order: undefined when every key is held, else the busy key and its lease (the slots taken given back). */
async function takeAll(redis«ts:: LockClient», groups«ts:: string[][]», token«ts:: string», ttlMs«ts:: number»)«ts:: Promise<{ key: string; pttl: number } | undefined>» {
  for (const [taken, group] of groups.entries()) {
    const replies = await call(redis, 'locksmithMultiAcquire', group, [token, ttlMs]);
    const [held = 0, at = 1, pttl = -1] = «ts:(replies as unknown[])»«js:replies».map(Number);
    if (held === 1) continue;
    for (const back of groups.slice(0, taken)) await run(redis, 'locksmithMultiRelease', back, [token]);
    return { key: group[at - 1] ?? group[0]«ts:!», pttl };
  }
  return undefined;
}

/**
 * Takes every lock in keys, all or none (the "move money between two accounts" lock), waiting up
 * to options.waitMs (default 10 s), then LockBusyError naming a busy key. Keys in one hash slot (on
 * one server: all of them) are taken in one call (multi_acquire); across a cluster's slots, slot by
 * slot in one fixed order, and a busy key gives back the slots taken before waiting for that key
 * (see Waiter). No caller waits while holding part of its
 * keys: no deadlock, whatever the key sets overlap.
 */
«esm:export »async function acquireMulti(redis«ts:: LockClient», keys«ts:: string[]», options«ts:: WaitOptions»)«ts:: Promise<MultiLease>» {
  const { ttlMs, waitMs = 10_000, retryMs = 500, renew = false, signal } = options;
  for (const [name, ms] of Object.entries({ ttlMs, waitMs, retryMs })) checkMs(name, ms);
  const groups = slotGroups(redis, keys);
  signal?.throwIfAborted();
  const token = newToken();
  const deadline = Date.now() + waitMs;
  let waiter«ts:: Waiter | undefined»;
  try {
    for (;;) {
      const busy = await takeAll(redis, groups, token, ttlMs);
      if (busy === undefined) return new MultiLease(redis, groups, token, ttlMs, renew);
      const leftMs = deadline - Date.now();
      if (leftMs <= 0) throw new LockBusyError(busy.key, waitMs);
      if (waiter?.key !== busy.key) {
        waiter?.leave();
        waiter = await waitFor(redis, busy.key, token, retryMs);
      }
      await waiter.sleep(leftMs, busy.pttl, signal);
    }
  } finally {
    waiter?.leave();
  }
}

/** Runs fn while holding every lock in keys (see acquireMulti and hold). */
«esm:export »async function withMultiLock«ts:<T>»(redis«ts:: LockClient», keys«ts:: string[]», options«ts:: WaitOptions», fn«ts:: (lease: MultiLease) => Promise<T>»)«ts:: Promise<T>» {
  const lease = await acquireMulti(redis, keys, options);
  return hold(lease, () => fn(lease));
}

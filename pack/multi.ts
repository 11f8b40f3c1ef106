// Several plain locks taken all or nothing (the "move money between two accounts" lock): keys in
// one hash slot in one call (MSETEX NX where every master has it, else multi_acquire.lua); keys
// across slots of a Cluster slot by slot, in one fixed order (by slot, then by key bytes), each
// slot's keys at once, and on a busy key the slots already taken are given back before waiting.
// So no caller ever waits while holding part of its keys: no deadlock, whatever the key sets,
// and after the call it holds every key (true) or none (false).
import { keySlot, wakeChannel, type RedisName } from './layout';
import type { WaitOptions } from './runtime';
import type { Waiter, Wakeups } from './wakeups';

type MultiScript = 'multi_acquire' | 'multi_release' | 'multi_extend';

export interface MultiHost {
  readonly retryMs: number;
  readonly wakeups: Wakeups;
  /** True in a Cluster: keys of different slots live apart and are taken slot by slot. */
  readonly sharded: boolean;
  integers(name: MultiScript, keys: RedisName[], args: (RedisName | number)[]): Promise<number[]>;
  integer(name: MultiScript, keys: RedisName[], args: (RedisName | number)[]): Promise<number>;
  /** MSETEX NX PX: true when set, false when any key exists; undefined where the server has no MSETEX. */
  setAllIfNone(keys: RedisName[], token: RedisName, ttlMs: number): Promise<boolean | undefined>;
}

interface Busy {
  key: RedisName;
  /** ms left of its holder's lease; -1: none. */
  pttl: number;
}

export class MultiLocks {
  constructor(private readonly host: MultiHost) {}

  /**
   * Takes every lock in `keys` for `token` with a lease of `ttlMs`, or none: true when it holds
   * all of them. With `waitMs` it waits for a busy key's release (woken like a plain waiter, or
   * when that key's lease ends, at least every retry bound) and tries again, until `waitMs`.
   */
  async acquire(keys: RedisName[], token: RedisName, ttlMs: number, options: WaitOptions = {}): Promise<boolean> {
    const { waitMs = 0, signal } = options;
    signal?.throwIfAborted();
    const groups = this.slotGroups(keys);
    const deadline = performance.now() + waitMs;
    let waiter: { channel: string; joined: Waiter } | undefined;
    try {
      for (;;) {
        const busy = await this.attempt(groups, token, ttlMs);
        if (!busy) return true;
        const left = deadline - performance.now();
        if (left <= 0) return false;
        const channel = Buffer.from(wakeChannel(busy.key)).toString('latin1');
        if (waiter?.channel !== channel) {
          // Subscribed to the key that is busy now; a wake-up before the subscription: try once more.
          waiter?.joined.leave();
          waiter = { channel, joined: await this.host.wakeups.join(wakeChannel(busy.key), token, this.host.retryMs) };
          continue;
        }
        const jittered = this.host.retryMs * (0.5 + Math.random() / 2);
        await waiter.joined.wait(Math.min(left, jittered, busy.pttl >= 0 ? busy.pttl : Infinity), signal);
      }
    } finally {
      waiter?.joined.leave();
    }
  }

  /** Deletes every key that still holds `token`, waking its waiters; the number deleted. */
  async release(keys: RedisName[], token: RedisName): Promise<number> {
    let released = 0;
    for (const group of this.slotGroups(keys)) released += await this.host.integer('multi_release', group, [token]);
    return released;
  }

  /** Sets the lease of every key that still holds `token`; true when every key did. */
  async extend(keys: RedisName[], token: RedisName, ttlMs: number): Promise<boolean> {
    let extended = 0;
    for (const group of this.slotGroups(keys)) {
      extended += await this.host.integer('multi_extend', group, [token, ttlMs]);
    }
    return extended === new Set(keys.map((key) => Buffer.from(key).toString('latin1'))).size;
  }

  /** One pass in the fixed order: undefined when every key is held, else the busy key (the slots taken given back). */
  private async attempt(groups: RedisName[][], token: RedisName, ttlMs: number): Promise<Busy | undefined> {
    for (const [taken, group] of groups.entries()) {
      const busy = await this.takeGroup(group, token, ttlMs);
      if (!busy) continue;
      for (const held of groups.slice(0, taken)) await this.host.integer('multi_release', held, [token]);
      return busy;
    }
    return undefined;
  }

  private async takeGroup(group: RedisName[], token: RedisName, ttlMs: number): Promise<Busy | undefined> {
    // MSETEX NX sets all or none but also refuses keys this token already holds: the script tells.
    if (await this.host.setAllIfNone(group, token, ttlMs)) return undefined;
    const [held, at, pttl] = await this.host.integers('multi_acquire', group, [token, ttlMs]);
    return held === 1 ? undefined : { key: group[at - 1], pttl };
  }

  /** `keys` without repeats, in one fixed order: by slot in a Cluster (one group per slot), else one group; then by bytes. */
  private slotGroups(keys: RedisName[]): RedisName[][] {
    if (keys.length === 0) throw new RangeError('a multi-key lock needs at least one key');
    const unique = new Map(keys.map((key) => [Buffer.from(key).toString('latin1'), key]));
    const ordered = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, key]) => key);
    if (!this.host.sharded) return [ordered];
    const bySlot = new Map<number, RedisName[]>();
    for (const key of ordered) {
      const slot = keySlot(key);
      bySlot.set(slot, [...(bySlot.get(slot) ?? []), key]);
    }
    return [...bySlot.entries()].sort(([a], [b]) => a - b).map(([, group]) => group);
  }
}

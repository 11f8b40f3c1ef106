// Fenced writes: the storage checks that the writer still holds the lock, so a holder paused past
// its lease (a GC, SIGSTOP) cannot overwrite what the next holder wrote. Where the protected data
// lives in Redis, one call each: guarded_set writes only while the lock holds the writer's token
// (data in the lock's slot); fenced_set writes only when no newer fencing token has written the
// data key, which remembers the highest (any slot).
import type { RedisName } from './layout';

type FencedScript = 'guarded_set' | 'fenced_set';

export interface FencedHost {
  integer(name: FencedScript, keys: RedisName[], args: (RedisName | number)[]): Promise<number>;
}

export class FencedWrites {
  constructor(private readonly host: FencedHost) {}

  /** SET `data` to `value` (its TTL kept) if `lock` still holds `token`; false when it does not, and nothing was written. */
  async setIfHeld(lock: RedisName, data: RedisName, token: RedisName, value: RedisName): Promise<boolean> {
    return (await this.host.integer('guarded_set', [lock, data], [token, value])) === 1;
  }

  /**
   * Writes `value` with the fencing token `fence` (what acquire with a fence replied) into the
   * hash `data` ({value, fence}); false when a newer token has written it already, and nothing was.
   */
  async set(data: RedisName, fence: number, value: RedisName): Promise<boolean> {
    return (await this.host.integer('fenced_set', [data], [fence, value])) === 1;
  }
}

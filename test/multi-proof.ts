// The all-or-nothing proof of multi-key locks, shared by the standalone and the Cluster tests.
import assert from 'node:assert/strict';
import type { Cluster, Redis } from 'ioredis';
import { LockScripts } from '../pack/runtime';
import { pack, sleep } from './helpers';

/**
 * Moves money between accounts, each transfer under the locks of the accounts it touches (two or
 * three of `keys`, in random order): 10 clients x 40 transfers, some with waiting, some try-locks.
 * Every waiting acquire must succeed (a deadlock would time it out), a try-lock that fails must
 * hold none of its keys, one that succeeds all of them, no key has two holders at once, and the
 * money adds up.
 */
export async function provesAllOrNothing(
  connect: () => Redis | Cluster | Promise<Redis | Cluster>,
  keys: string[],
): Promise<{ transfers: number; tried: number }> {
  const admin = await connect();
  const balance = (key: string) => `balance:${key}`;
  for (const key of keys) await admin.set(balance(key), 100);
  const inside = new Map<string, number>();
  const problems: string[] = [];
  let tried = 0;
  let transfers = 0;
  await Promise.all(
    Array.from({ length: 10 }, async (_, client) => {
      const redis = await connect();
      const locks = new LockScripts(redis, pack, { retryMs: 100 });
      try {
        for (let round = 0; round < 40; round++) {
          const token = `client-${client}:${round}`;
          const mine = [...keys].sort(() => Math.random() - 0.5).slice(0, 2 + (round % 2));
          const waiting = round % 3 !== 0;
          const held = await locks.multi.acquire(mine, token, 10_000, waiting ? { waitMs: 20_000 } : {});
          const holding = (await Promise.all(mine.map((key) => redis.get(key)))).filter((value) => value === token);
          if (!held) {
            tried++;
            if (waiting) problems.push(`${token}: waited 20 s for ${mine.join(' ')} (deadlock?)`);
            if (holding.length > 0) problems.push(`${token}: failed but holds ${holding.length} of its keys`);
            continue;
          }
          if (holding.length !== mine.length) problems.push(`${token}: holds ${holding.length} of ${mine.length}`);
          for (const key of mine) if ((inside.get(key) ?? 0) > 0) problems.push(`${token}: ${key} has two holders`);
          for (const key of mine) inside.set(key, (inside.get(key) ?? 0) + 1);
          // A transfer: read both balances, then write both, over several round trips.
          const [from, to] = mine;
          const [a, b] = (await Promise.all([redis.get(balance(from)), redis.get(balance(to))])).map(Number);
          await sleep(1);
          await redis.set(balance(from), a - 1);
          await redis.set(balance(to), b + 1);
          for (const key of mine) inside.set(key, inside.get(key)! - 1);
          transfers++;
          if ((await locks.multi.release(mine, token)) !== mine.length) problems.push(`${token}: lost a lease`);
        }
      } finally {
        locks.close();
        redis.disconnect();
      }
    }),
  );
  const total = (await Promise.all(keys.map((key) => admin.get(balance(key))))).reduce((sum, v) => sum + Number(v), 0);
  admin.disconnect();
  assert.deepEqual(problems, []);
  assert.equal(total, 100 * keys.length, 'the money adds up');
  return { transfers, tried };
}

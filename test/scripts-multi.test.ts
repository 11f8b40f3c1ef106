// Multi-key locks: multi_acquire, multi_release and multi_extend branch by branch, then the
// runtime's all-or-nothing acquire under contention with overlapping key sets (no deadlock, no
// partial hold, no two holders of a key), on Redis 7.0 and Valkey 9 (MSETEX NX there).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { provesAllOrNothing } from './multi-proof';
import { pack, recordWakeups, rejectsAndWritesNothing, sleep, useRedis, zeroAndWritesNothing } from './helpers';

for (const server of SERVER_KINDS) describe(server, () => multiContract(server));

function multiContract(server: ServerKind): void {
  const fx = useRedis({ server }, { native: 'lua' });
  const TTL = 10_000;
  const KEYS = ['lock:{acct}:1', 'lock:{acct}:2', 'lock:{acct}:3'];
  const { messages } = recordWakeups(fx, KEYS[1]);
  const take = (token: string, keys = KEYS, ttl: number | string = TTL) =>
    fx.locks.run('multi_acquire', keys, [token, ttl]);

  describe('multi_acquire', () => {
    test('all free: every key holds the token with the lease, reply {1, 0, 0}', async () => {
      assert.deepEqual(await take('owner-1'), [1, 0, 0]);
      assert.deepEqual(await fx.redis.mget(KEYS), ['owner-1', 'owner-1', 'owner-1']);
      for (const key of KEYS) assert.ok((await fx.redis.pttl(key)) > TTL - 1000);
    });

    test('one key held by another: {0, its place, its PTTL} and nothing written', async () => {
      await fx.redis.set(KEYS[2], 'owner-2', 'PX', 5000);
      const before = await fx.redis.call('DEBUG', 'DIGEST');
      const [held, at, pttl] = (await take('owner-1')) as number[];
      assert.deepEqual([held, at], [0, 3]);
      assert.ok(pttl > 4000 && pttl <= 5000, `PTTL ${pttl}`);
      assert.equal(await fx.redis.call('DEBUG', 'DIGEST'), before);
      await fx.redis.persist(KEYS[2]);
      assert.deepEqual(await take('owner-1'), [0, 3, -1], 'a holder with no TTL: -1');
    });

    test('keys it already holds count as free: taken with the rest, leases renewed', async () => {
      await fx.redis.set(KEYS[0], 'owner-1', 'PX', 100);
      assert.deepEqual(await take('owner-1'), [1, 0, 0]);
      assert.ok((await fx.redis.pttl(KEYS[0])) > TTL - 1000);
    });

    test('a key of another type anywhere in KEYS: WRONGTYPE, nothing written', async () => {
      await fx.redis.rpush(KEYS[2], 'x');
      await rejectsAndWritesNothing(fx.redis, () => take('owner-1'), /WRONGTYPE/);
    });

    test('bad arguments: ERR naming them, nothing written', async () => {
      await take('owner-1');
      for (const [args, message] of [
        [[], /ARGV\[1\] token must be a non-empty string/],
        [['owner-1', '0'], /ARGV\[2\] ttl_ms must be a positive integer/],
        [['owner-1', '1e3'], /ARGV\[2\] ttl_ms/],
      ] as const) {
        await rejectsAndWritesNothing(fx.redis, () => fx.locks.run('multi_acquire', KEYS, [...args]), message);
      }
      for (const name of ['multi_acquire', 'multi_release', 'multi_extend'] as const) {
        await rejectsAndWritesNothing(
          fx.redis,
          () => fx.locks.run(name, [], ['owner-1', TTL]),
          new RegExp(`^ReplyError: ERR ${name} takes 1 or more keys`),
        );
      }
    });
  });

  describe('multi_release and multi_extend', () => {
    test('release deletes the keys still holding the token, wakes each, and counts them', async () => {
      await take('owner-1');
      await fx.redis.set(KEYS[0], 'owner-2');
      assert.equal(await fx.locks.run('multi_release', KEYS, ['owner-1']), 2);
      assert.deepEqual(await fx.redis.mget(KEYS), ['owner-2', null, null]);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('multi_release', KEYS, ['owner-1']));
      for (let i = 0; i < 20 && messages.length === 0; i++) await sleep(10);
      assert.deepEqual(messages, [`${KEYS[1]}=`]);
    });

    test('extend sets the lease of the keys still holding the token and counts them; never creates one', async () => {
      await take('owner-1', KEYS, 2000);
      await fx.redis.del(KEYS[1]);
      assert.equal(await fx.locks.run('multi_extend', KEYS, ['owner-1', TTL]), 2);
      assert.ok((await fx.redis.pttl(KEYS[0])) > TTL - 1000);
      assert.equal(await fx.redis.exists(KEYS[1]), 0);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('multi_extend', KEYS, ['owner-2', TTL]));
      assert.equal(await fx.locks.multi.extend(KEYS, 'owner-1', TTL), false, 'not every key: false');
    });
  });

  describe('LockScripts.multi', () => {
    test(`the native path: ${server === 'valkey' ? 'MSETEX NX' : 'the script'}, same answers`, async () => {
      const native = new LockScripts(fx.redis, pack);
      try {
        assert.equal((await native.path()).multiAcquire, server === 'valkey' ? 'MSETEX NX' : 'multi_acquire.lua');
        assert.equal(await native.multi.acquire(KEYS, 'owner-1', TTL), true);
        assert.equal(await native.multi.acquire(KEYS, 'owner-1', TTL), true, 'again by the holder: renewed');
        assert.equal(await native.multi.acquire([KEYS[2], 'lock:{acct}:4'], 'owner-2', TTL), false);
        assert.equal(await fx.redis.exists('lock:{acct}:4'), 0, 'nothing taken');
        assert.equal(await native.multi.release(KEYS, 'owner-1'), 3);
      } finally {
        native.close();
      }
    });

    test('waits for a busy key and is woken by its release', async () => {
      await fx.redis.set(KEYS[1], 'owner-2', 'PX', 60_000);
      const waiting = fx.locks.multi.acquire(KEYS, 'owner-1', TTL, { waitMs: 30_000 });
      await sleep(100);
      assert.equal(await fx.redis.exists(KEYS[0]), 0, 'waits holding none of its keys');
      await fx.locks.release(KEYS[1], 'owner-2');
      assert.equal(await waiting, true);
      assert.deepEqual(await fx.redis.mget(KEYS), ['owner-1', 'owner-1', 'owner-1']);
    });
  });

  test('contention with overlapping key sets: no deadlock, no partial hold, no two holders of a key', async (t) => {
    const keys = ['lock:{bank}:a', 'lock:{bank}:b', 'lock:{bank}:c', 'lock:{bank}:d'];
    const { tried, transfers } = await provesAllOrNothing(() => fx.server.client(), keys);
    t.diagnostic(`${transfers} transfers, ${tried} try-locks found a key busy and took none`);
  });
}

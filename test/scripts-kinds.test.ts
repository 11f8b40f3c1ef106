// Every branch of the reentrant, read-write and semaphore scripts, what they leave in Redis, their
// wake-ups and their bad arguments (nothing written), on Redis 7.0 and Valkey 9.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sortedSetKind } from '../pack/layout';
import type { ScriptName } from '../pack/pack';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { sleep, useRedis, waitFor, recordWakeups, rejectsAndWritesNothing, zeroAndWritesNothing } from './helpers';

for (const server of SERVER_KINDS) describe(server, () => kindsContract(server));

function kindsContract(server: ServerKind): void {
  const fx = useRedis({ server });
  const TTL = 10_000;
  const { messages } = recordWakeups(fx, 'lock:a');

  /** Lease ends (server ms) relative to the server's clock, by member. */
  async function leases(key: string): Promise<Record<string, number>> {
    const [seconds, micros] = (await fx.redis.time()) as [string | number, string | number];
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const flat = await fx.redis.zrange(key, 0, -1, 'WITHSCORES');
    const out: Record<string, number> = {};
    for (let i = 0; i < flat.length; i += 2)
      out[flat[i]] = flat[i + 1] === 'inf' ? Infinity : Number(flat[i + 1]) - now;
    return out;
  }

  const near = (value: number, target: number) => value > target - 1000 && value <= target;

  describe('reentrant', () => {
    test('take, take again, give back one by one: counts in a hash, the lease renewed by each take', async () => {
      assert.equal(await fx.locks.reentrant.acquire('lock:a', 'api-1:4711:t1', 2000), 1);
      assert.equal(await fx.locks.reentrant.acquire('lock:a', 'api-1:4711:t1', TTL), 2);
      assert.deepEqual(await fx.redis.hgetall('lock:a'), { 'api-1:4711:t1': '2' });
      assert.ok(near(await fx.redis.pttl('lock:a'), TTL));
      await fx.redis.pexpire('lock:a', 5000);
      assert.equal(await fx.locks.reentrant.release('lock:a', 'api-1:4711:t1'), 2, 'held twice before');
      assert.equal(await fx.redis.hget('lock:a', 'api-1:4711:t1'), '1');
      assert.ok(near(await fx.redis.pttl('lock:a'), 5000), 'a partial release keeps the lease');
      assert.deepEqual(messages, []);
      assert.equal(await fx.locks.reentrant.release('lock:a', 'api-1:4711:t1'), 1, 'the last hold');
      assert.equal(await fx.redis.exists('lock:a'), 0);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=']);
    });

    test('another owner: 0 for take, release and extend, nothing written', async () => {
      await fx.locks.reentrant.acquire('lock:a', 'owner-1', TTL);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.reentrant.acquire('lock:a', 'owner-2', TTL));
      await zeroAndWritesNothing(fx.redis, () => fx.locks.reentrant.release('lock:a', 'owner-2'));
      await zeroAndWritesNothing(fx.redis, () => fx.locks.reentrant.extend('lock:a', 'owner-2', TTL));
      await fx.redis.del('lock:a');
      await zeroAndWritesNothing(fx.redis, () => fx.locks.reentrant.extend('lock:a', 'owner-1', TTL));
    });

    test('extend sets the lease, counts unchanged', async () => {
      await fx.locks.reentrant.acquire('lock:a', 'owner-1', TTL);
      await fx.locks.reentrant.acquire('lock:a', 'owner-1', TTL);
      assert.equal(await fx.locks.reentrant.extend('lock:a', 'owner-1', 60_000), true);
      assert.ok(near(await fx.redis.pttl('lock:a'), 60_000));
      assert.equal(await fx.redis.hget('lock:a', 'owner-1'), '2');
    });

    test('a count that is not a positive integer (0, -1, 01, x: written by something else): ERR, nothing written', async () => {
      for (const count of ['x', '0', '-1', '01', '1.5']) {
        await fx.redis.hset('lock:a', 'owner-1', count);
        for (const name of ['reentrant_acquire', 'reentrant_release'] as const) {
          await rejectsAndWritesNothing(
            fx.redis,
            () => fx.locks.run(name, ['lock:a'], name === 'reentrant_release' ? ['owner-1'] : ['owner-1', TTL]),
            new RegExp(`ERR ${name}: the hold count of this token is not a positive integer`),
          );
        }
      }
    });
  });

  describe('read-write', () => {
    test('readers share it, each with its own lease; a writer waits and keeps new readers out', async () => {
      assert.equal(await fx.locks.rw.read('lock:a', 'r1', TTL), true);
      assert.equal(await fx.locks.rw.read('lock:a', 'r2', 2000), true);
      let held = await leases('lock:a');
      assert.ok(near(held['read:r1'], TTL) && near(held['read:r2'], 2000), JSON.stringify(held));
      assert.ok(near(await fx.redis.pttl('lock:a'), TTL), 'the key lives as long as its longest lease');

      assert.equal(await fx.locks.run('write_acquire', ['lock:a'], ['w1', TTL, 3000]), 0);
      held = await leases('lock:a');
      assert.ok(near(held['wait:w1'], 3000), 'the writer registered its intent');
      await zeroAndWritesNothing(fx.redis, () => fx.locks.rw.read('lock:a', 'r3', TTL));
      assert.equal(await fx.locks.rw.read('lock:a', 'r1', TTL), true, 'a reader already in renews');

      assert.equal(await fx.locks.rw.release('lock:a', 'r1'), true);
      assert.deepEqual(messages, [], 'a reader is left: no wake-up');
      assert.equal(await fx.locks.rw.release('lock:a', 'r2'), true);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=*']);

      assert.equal(await fx.locks.run('write_acquire', ['lock:a'], ['w1', TTL, 3000]), 1);
      assert.deepEqual(Object.keys(await leases('lock:a')), ['write:w1']);
      assert.equal(sortedSetKind(await fx.redis.zrange('lock:a', 0, -1)), 'rw');
      await zeroAndWritesNothing(fx.redis, () => fx.locks.rw.read('lock:a', 'r1', TTL));
      assert.equal(await fx.locks.run('write_acquire', ['lock:a'], ['w2', TTL, 3000]), 0);
      assert.equal(await fx.locks.rw.release('lock:a', 'w1'), true);
      await waitFor('the second wake-up', () => messages.length === 2);
      // Only w2's intent is left: readers stay out until it takes the lock or the intent ends.
      assert.deepEqual(Object.keys(await leases('lock:a')), ['wait:w2']);
    });

    test('a writer renews its own lease; extend renews read or write leases; others get 0', async () => {
      assert.equal(await fx.locks.rw.write('lock:a', 'w1', 2000), true);
      assert.equal(await fx.locks.rw.write('lock:a', 'w1', TTL), true);
      assert.ok(near((await leases('lock:a'))['write:w1'], TTL));
      assert.equal(await fx.locks.rw.extend('lock:a', 'w1', 60_000), true);
      assert.ok(near((await leases('lock:a'))['write:w1'], 60_000));
      assert.ok(near(await fx.redis.pttl('lock:a'), 60_000));
      await zeroAndWritesNothing(fx.redis, () => fx.locks.rw.extend('lock:a', 'r9', TTL));
      await zeroAndWritesNothing(fx.redis, () => fx.locks.rw.release('lock:a', 'r9'));
      await fx.locks.rw.release('lock:a', 'w1');
      await fx.locks.rw.read('lock:a', 'r1', 2000);
      assert.equal(await fx.locks.rw.extend('lock:a', 'r1', TTL), true);
      assert.ok(near((await leases('lock:a'))['read:r1'], TTL));
    });

    test('readers that keep renewing hold a waiting writer off (documented): only new readers are kept out', async () => {
      assert.equal(await fx.locks.rw.read('lock:a', 'r1', 200), true);
      assert.equal(await fx.locks.run('write_acquire', ['lock:a'], ['w1', TTL, TTL]), 0);
      for (let round = 0; round < 3; round++) {
        await sleep(100);
        assert.equal(await fx.locks.rw.read('lock:a', 'r1', 200), true, 'a reader already in renews by read_acquire');
        assert.equal(await fx.locks.rw.extend('lock:a', 'r1', 200), true, 'and by rw_extend');
        assert.equal(await fx.locks.run('write_acquire', ['lock:a'], ['w1', TTL, TTL]), 0, 'the writer still waits');
        await zeroAndWritesNothing(fx.redis, () => fx.locks.rw.read('lock:a', `new-${round}`, 200));
      }
      assert.equal(await fx.locks.rw.release('lock:a', 'r1'), true);
      assert.equal(await fx.locks.run('write_acquire', ['lock:a'], ['w1', TTL, TTL]), 1);
    });

    test("a reader's lease ends on its own: a writer gets in without anyone releasing", async () => {
      assert.equal(await fx.locks.rw.read('lock:a', 'doomed', 100), true);
      assert.equal(await fx.locks.rw.write('lock:a', 'w1', TTL), false);
      await sleep(150);
      assert.equal(await fx.locks.rw.write('lock:a', 'w1', TTL), true);
      assert.equal(await fx.locks.rw.release('lock:a', 'doomed'), false);
    });
  });

  describe('semaphore', () => {
    test('N permits, each its own lease, the limit kept as limit:N scored +inf', async () => {
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'h1', TTL, 2), true);
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'h2', 2000, 2), true);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.semaphore.acquire('lock:a', 'h3', TTL, 2));
      const held = await leases('lock:a');
      assert.equal(held['limit:2'], Infinity);
      assert.ok(near(held['hold:h1'], TTL) && near(held['hold:h2'], 2000), JSON.stringify(held));
      assert.ok(near(await fx.redis.pttl('lock:a'), TTL));
      assert.equal(sortedSetKind(await fx.redis.zrange('lock:a', 0, -1)), 'semaphore');
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'h2', TTL, 2), true, 'a holder renews');
      assert.ok(near((await leases('lock:a'))['hold:h2'], TTL));

      assert.equal(await fx.locks.semaphore.release('lock:a', 'h1'), true);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=']);
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'h3', TTL, 2), true);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.semaphore.release('lock:a', 'h1'));
      await fx.locks.semaphore.release('lock:a', 'h2');
      await fx.locks.semaphore.release('lock:a', 'h3');
      assert.equal(await fx.redis.exists('lock:a'), 0, 'the last permit back deletes it, limit included');
    });

    test('permits that differ from the limit held: ERR naming both, nothing written; free again, any N', async () => {
      await fx.locks.semaphore.acquire('lock:a', 'h1', TTL, 2);
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.semaphore.acquire('lock:a', 'h2', TTL, 3),
        /ERR semaphore_acquire: ARGV\[3\] permits is 3 but the semaphore holds limit:2/,
      );
      await fx.locks.semaphore.release('lock:a', 'h1');
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'h2', TTL, 3), true);
    });

    test("a holder's lease ends on its own: its permit comes back", async () => {
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'doomed', 100, 1), true);
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'h2', TTL, 1), false);
      await sleep(150);
      assert.equal(await fx.locks.semaphore.acquire('lock:a', 'h2', TTL, 1), true);
      assert.equal(await fx.locks.semaphore.extend('lock:a', 'doomed', TTL), false);
      assert.equal(await fx.locks.semaphore.extend('lock:a', 'h2', 60_000), true);
      assert.ok(near((await leases('lock:a'))['hold:h2'], 60_000));
    });
  });

  describe('bad arguments get an ERR naming them, and write nothing', () => {
    const withTtl: [ScriptName, (string | number)[]][] = [
      ['reentrant_acquire', []],
      ['reentrant_extend', []],
      ['read_acquire', []],
      ['write_acquire', [3000]],
      ['rw_extend', []],
      ['semaphore_acquire', [2]],
      ['semaphore_extend', []],
    ];
    const seed = async (name: ScriptName) => {
      if (name.startsWith('reentrant')) await fx.locks.reentrant.acquire('lock:a', 'owner-1', TTL);
      else if (name.startsWith('semaphore')) await fx.locks.semaphore.acquire('lock:a', 'owner-1', TTL, 2);
      else await fx.locks.rw.read('lock:a', 'owner-1', TTL);
    };
    for (const [name, rest] of withTtl) {
      for (const ttl of ['0', '-5', '1.5', '1e3', '0500', '1000000000000000']) {
        test(`${name}: ttl_ms ${ttl}`, async () => {
          await seed(name);
          await rejectsAndWritesNothing(
            fx.redis,
            () => fx.locks.run(name, ['lock:a'], ['owner-1', ttl, ...rest]),
            new RegExp(`^ReplyError: ERR ${name}: ARGV\\[2\\] ttl_ms must be a positive integer of milliseconds`),
          );
        });
      }
    }
    for (const name of [
      'reentrant_acquire',
      'reentrant_release',
      'reentrant_extend',
      'read_acquire',
      'write_acquire',
      'rw_release',
      'rw_extend',
      'semaphore_acquire',
      'semaphore_release',
      'semaphore_extend',
    ] as const) {
      test(`${name}: empty token, missing token, wrong number of keys`, async () => {
        await seed(name);
        await rejectsAndWritesNothing(
          fx.redis,
          () => fx.locks.run(name, ['lock:a'], ['', TTL, 3]),
          new RegExp(`ERR ${name}: ARGV\\[1\\] token must be a non-empty string`),
        );
        await rejectsAndWritesNothing(
          fx.redis,
          () => fx.locks.run(name, ['lock:a'], []),
          new RegExp(`ERR ${name}: ARGV\\[1\\]`),
        );
        await rejectsAndWritesNothing(
          fx.redis,
          () => fx.locks.run(name, ['lock:a', 'lock:b'], ['owner-1', TTL, 3]),
          new RegExp(`ERR ${name} takes exactly 1 key`),
        );
      });
    }
    for (const wait of ['0', 'x', '']) {
      test(`write_acquire: wait_ms '${wait}'`, async () => {
        await seed('write_acquire');
        await rejectsAndWritesNothing(
          fx.redis,
          () => fx.locks.run('write_acquire', ['lock:a'], ['w1', TTL, wait]),
          /ERR write_acquire: ARGV\[3\] wait_ms must be a positive integer of milliseconds/,
        );
      });
    }
    for (const permits of ['0', '-1', '1.5', 'two', '1000000000', '']) {
      test(`semaphore_acquire: permits '${permits}'`, async () => {
        await seed('semaphore_acquire');
        await rejectsAndWritesNothing(
          fx.redis,
          () => fx.locks.run('semaphore_acquire', ['lock:a'], ['h2', TTL, permits]),
          /ERR semaphore_acquire: ARGV\[3\] permits must be a positive integer/,
        );
      });
    }
    test('a key of another type: WRONGTYPE from every script, nothing written', async () => {
      await fx.redis.set('lock:a', 'x');
      await fx.redis.pexpire('lock:a', 60_000);
      for (const [name, args] of [
        ['reentrant_acquire', ['o', TTL]],
        ['reentrant_release', ['o']],
        ['reentrant_extend', ['o', TTL]],
        ['read_acquire', ['o', TTL]],
        ['write_acquire', ['o', TTL, 3000]],
        ['rw_release', ['o']],
        ['rw_extend', ['o', TTL]],
        ['semaphore_acquire', ['o', TTL, 2]],
        ['semaphore_release', ['o']],
        ['semaphore_extend', ['o', TTL]],
      ] as const) {
        await rejectsAndWritesNothing(fx.redis, () => fx.locks.run(name, ['lock:a'], [...args]), /WRONGTYPE/);
      }
      assert.equal(await fx.redis.type('lock:a'), 'string');
    });
  });
}

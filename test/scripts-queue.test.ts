// acquire_queued and the wake-ups of release: every branch, the signals seen by a real SSUBSCRIBE
// client, and bad arguments writing nothing, on Redis 7.0 and Valkey 9.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { useRedis, waitFor, recordWakeups, rejectsAndWritesNothing, zeroAndWritesNothing } from './helpers';

for (const server of SERVER_KINDS) describe(server, () => queueContract(server));

function queueContract(server: ServerKind): void {
  const fx = useRedis({ server }, { native: 'lua' });
  const TTL = 10_000;
  const QUEUE_MS = 30_000;
  const { messages, subscriber } = recordWakeups(fx, 'lock:a');

  const queued = (token: string, keys = ['lock:a', '{lock:a}:waiters'], ttl: string | number = TTL) =>
    fx.locks.run('acquire_queued', keys, [token, ttl, QUEUE_MS]) as Promise<number[]>;

  describe('acquire_queued', () => {
    test('free: takes it like acquire, reply {1, 0, 0}', async () => {
      assert.deepEqual(await queued('owner-1'), [1, 0, 0]);
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
      assert.ok((await fx.redis.pttl('lock:a')) > TTL - 1000);
    });

    test('held by another: {0, PTTL, waiters}, queued in arrival order, a retry keeps its place', async () => {
      await queued('owner-1');
      const [held, pttl, waiting] = await queued('owner-2');
      assert.equal(held, 0);
      assert.ok(pttl > TTL - 1000 && pttl <= TTL, `PTTL ${pttl}`);
      assert.equal(waiting, 1);
      assert.equal((await queued('owner-3'))[2], 2);
      assert.equal((await queued('owner-2'))[2], 2, 'a retry does not queue twice');
      assert.deepEqual(await fx.redis.zrange('{lock:a}:waiters', 0, -1), ['owner-2', 'owner-3']);
      assert.ok((await fx.redis.pttl('{lock:a}:waiters')) > QUEUE_MS - 1000);
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
    });

    test('acquired after waiting: leaves the queue and reports the others still queued', async () => {
      await queued('owner-1');
      await queued('owner-2');
      await queued('owner-3');
      await fx.redis.del('lock:a');
      assert.deepEqual(await queued('owner-3'), [1, 0, 1]);
      assert.deepEqual(await fx.redis.zrange('{lock:a}:waiters', 0, -1), ['owner-2']);
    });

    test('same owner again refreshes the lease; with a fence the token stays, a new holder gets the next', async () => {
      const keys = ['lock:{f}', 'lock:{f}:waiters', 'fence:{f}'];
      assert.deepEqual(await queued('owner-1', keys, 2000), [1, 0, 0]);
      assert.deepEqual(await queued('owner-1', keys), [1, 0, 0]);
      assert.ok((await fx.redis.pttl('lock:{f}')) > 2000);
      assert.equal(await fx.redis.get('fence:{f}'), '1');
      await fx.redis.del('lock:{f}');
      assert.deepEqual(await queued('owner-2', keys), [2, 0, 0]);
    });

    test('a holder without a TTL: PTTL -1 tells the waiter to rely on its retry bound', async () => {
      await fx.redis.set('lock:a', 'forever');
      assert.deepEqual(await queued('owner-2'), [0, -1, 1]);
    });

    const bad: [string, (string | number)[], RegExp][] = [
      ['no token', [], /ARGV\[1\] token must be a non-empty string/],
      ['empty token', ['', TTL, QUEUE_MS], /ARGV\[1\] token/],
      ['ttl 0', ['t', 0, QUEUE_MS], /ARGV\[2\] ttl_ms must be a positive integer/],
      ['ttl 1.5', ['t', '1.5', QUEUE_MS], /ARGV\[2\] ttl_ms/],
      ['queue_ms missing', ['t', TTL], /ARGV\[3\] queue_ms must be a positive integer.*got 'nil'/],
      ['queue_ms -1', ['t', TTL, -1], /ARGV\[3\] queue_ms/],
      ['queue_ms 16 digits', ['t', TTL, '1000000000000000'], /ARGV\[3\] queue_ms/],
    ];
    for (const [label, args, message] of bad) {
      test(`bad arguments write nothing: ${label}`, async () => {
        await queued('owner-1');
        await queued('owner-2');
        await rejectsAndWritesNothing(
          fx.redis,
          () => fx.locks.run('acquire_queued', ['lock:a', '{lock:a}:waiters'], args),
          message,
        );
      });
    }

    test('wrong number of keys, wrong types: an error and nothing written', async () => {
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('acquire_queued', ['lock:a'], ['t', TTL, QUEUE_MS]),
        /ERR acquire_queued takes 2 or 3 keys/,
      );
      await fx.redis.set('{lock:a}:waiters', 'x');
      await rejectsAndWritesNothing(fx.redis, () => queued('owner-1'), /WRONGTYPE/);
      await fx.redis.del('{lock:a}:waiters');
      await fx.redis.hset('lock:a', 'f', '1');
      await rejectsAndWritesNothing(fx.redis, () => queued('owner-1'), /WRONGTYPE/);
      await fx.redis.del('lock:a');
      await fx.redis.set('fence:a', 'abc');
      await rejectsAndWritesNothing(
        fx.redis,
        () => queued('owner-1', ['lock:a', '{lock:a}:waiters', 'fence:a']),
        /ERR acquire_queued: fence key must hold a non-negative integer/,
      );
    });
  });

  describe('release wakes waiters on the lock key as channel', () => {
    test('no queue: SPUBLISH lock "" (wake one per client)', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', TTL);
      assert.equal(await fx.locks.run('release', ['lock:a'], ['owner-1']), 1);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=']);
    });

    test('with the queue: pops the first waiter and wakes exactly it', async () => {
      await queued('owner-1');
      await queued('owner-2');
      await queued('owner-3');
      assert.equal(await fx.locks.run('release', ['lock:a', '{lock:a}:waiters'], ['owner-1']), 1);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=owner-2']);
      assert.deepEqual(await fx.redis.zrange('{lock:a}:waiters', 0, -1), ['owner-3']);
      assert.equal(await fx.redis.exists('lock:a'), 0);
    });

    test('barging (documented): a token that never queued takes the freed lock ahead of the woken first waiter', async () => {
      await queued('owner-1');
      await queued('owner-2');
      await fx.locks.run('release', ['lock:a', '{lock:a}:waiters'], ['owner-1']);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.equal(await fx.locks.run('acquire', ['lock:a'], ['barger', TTL]), 1, 'before owner-2 asks again');
      assert.deepEqual((await queued('owner-2')).slice(0, 1), [0], 'the woken waiter finds it taken and queues again');
    });

    test('an empty queue: wakes with ""', async () => {
      await queued('owner-1');
      assert.equal(await fx.locks.run('release', ['lock:a', '{lock:a}:waiters'], ['owner-1']), 1);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=']);
    });

    test('not held: 0, no wake-up, the queue untouched', async () => {
      await queued('owner-1');
      await queued('owner-2');
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('release', ['lock:a', '{lock:a}:waiters'], ['owner-9']));
      // A later signal proves the subscriber was listening when the refused release ran.
      await fx.redis.spublish('lock:a', 'probe');
      await waitFor('the probe', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=probe']);
    });

    test('a waiters key of another type: WRONGTYPE before the delete', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', TTL);
      await fx.redis.set('{lock:a}:waiters', 'x');
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('release', ['lock:a', '{lock:a}:waiters'], ['owner-1']),
        /WRONGTYPE/,
      );
    });

    test('nobody subscribed: the release still answers 1 (the signal reaches no one, and costs one SPUBLISH)', async () => {
      await subscriber().sunsubscribe('lock:a');
      await fx.locks.acquire('lock:a', 'owner-1', TTL);
      assert.equal(await fx.locks.run('release', ['lock:a'], ['owner-1']), 1);
    });
  });
}

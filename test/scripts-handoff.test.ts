// queue_acquire and queue_release, the one-hop handoff: every branch, the wake-ups seen by a real
// SSUBSCRIBE client, fair mode, waiters whose time is up, acquire_queued waiters in the same
// queue, and bad arguments writing nothing, on Redis 7.0 and Valkey 9.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { recordWakeups, rejectsAndWritesNothing, sleep, useRedis, waitFor, zeroAndWritesNothing } from './helpers';

for (const server of SERVER_KINDS) describe(server, () => handoffContract(server));

function handoffContract(server: ServerKind): void {
  const fx = useRedis({ server }, { native: 'lua' });
  const TTL = 10_000;
  const WAIT_MS = 30_000;
  const CLAIM_MS = 5_000;
  const KEYS = ['lock:a', '{lock:a}:waiters', '{lock:a}:tickets'];
  // The lock's channel, and the hand-over channels of the clients of tickets a.*, b.* and c.*.
  const { messages } = recordWakeups(fx, 'lock:a', ...['a', 'b', 'c'].map((client) => `{lock:a}:tickets:${client}`));

  interface Call {
    token: string;
    ticket?: string;
    fair?: 0 | 1;
    waitMs?: number;
    claimMs?: number;
    keys?: string[];
  }
  const acquire = ({
    token,
    ticket = `${token}.1`,
    fair = 0,
    waitMs = WAIT_MS,
    claimMs = CLAIM_MS,
    keys = KEYS,
  }: Call) => fx.locks.integers('queue_acquire', keys, [token, TTL, waitMs, claimMs, ticket, fair]);
  const release = (token: string) => fx.locks.integer('queue_release', KEYS, [token]);
  const tickets = () => fx.redis.hgetall('{lock:a}:tickets');
  const queue = () => fx.redis.zrange('{lock:a}:waiters', 0, -1);
  const pttl = () => fx.redis.pttl('lock:a');
  /** A hand-over's wake-up carries the server's time in ms: `hand <ticket> <time>`. */
  const withoutTime = (message: string) => message.replace(/^([^=]+=hand \S+) \d{13}\b/, '$1 <time>');

  describe('queue_acquire', () => {
    test('free: takes it, reply {1, 0, 0}, no ticket left', async () => {
      assert.deepEqual(await acquire({ token: 'owner-1' }), [1, 0, 0]);
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
      assert.ok((await pttl()) > TTL - 1000);
      assert.deepEqual(await tickets(), {});
    });

    test('held: {0, PTTL, W}, queued by arrival with a ticket "wait <deadline> <claim_ms> <ticket>"', async () => {
      await acquire({ token: 'owner-1' });
      const [held, left, waiting, serverAt] = await acquire({ token: 'owner-2', ticket: 'a.1' });
      assert.equal(held, 0);
      const [seconds, micros] = await fx.redis.time();
      const serverNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      assert.ok(serverAt <= serverNow && serverAt > serverNow - 1000, `T is the server's time: ${serverAt}`);
      assert.ok(left > TTL - 1000 && left <= TTL, `PTTL ${left}`);
      assert.equal(waiting, 1);
      await acquire({ token: 'owner-3', ticket: 'b.1' });
      const first = await fx.redis.zscore('{lock:a}:waiters', 'owner-2');
      assert.equal((await acquire({ token: 'owner-2', ticket: 'a.2' }))[2], 2, 'a retry does not queue twice');
      assert.deepEqual(await queue(), ['owner-2', 'owner-3']);
      assert.equal(await fx.redis.zscore('{lock:a}:waiters', 'owner-2'), first, 'a retry keeps its place');
      const entry = (await tickets())['owner-2'];
      const [word, deadline, claim, ticket] = entry.split(' ');
      assert.deepEqual([word, claim, ticket], ['wait', String(CLAIM_MS), 'a.2'], 'the ticket is renewed');
      assert.ok(Math.abs(Number(deadline) - (serverNow + WAIT_MS)) < 1000, `deadline ${deadline}`);
      for (const key of KEYS.slice(1)) assert.ok((await fx.redis.pttl(key)) > WAIT_MS - 1000, key);
    });

    test('a holder without a TTL: P is -1', async () => {
      await fx.redis.set('lock:a', 'forever');
      assert.deepEqual((await acquire({ token: 'owner-2' })).slice(0, 3), [0, -1, 1]);
    });

    test('same token again refreshes the lease; with a fence the token stays put', async () => {
      const keys = [...KEYS, 'fence:{lock:a}'];
      assert.deepEqual(await acquire({ token: 'owner-1', keys }), [1, 0, 0]);
      await fx.redis.pexpire('lock:a', 500);
      assert.deepEqual(await acquire({ token: 'owner-1', keys }), [1, 0, 0]);
      assert.ok((await pttl()) > TTL - 1000);
      assert.equal(await fx.redis.get('fence:{lock:a}'), '1');
    });

    test('a same-owner retry with no fence key yet starts it at 1 (documented)', async () => {
      await acquire({ token: 'owner-1' });
      assert.deepEqual(await acquire({ token: 'owner-1', keys: [...KEYS, 'fence:{lock:a}'] }), [1, 0, 0]);
      assert.equal(await fx.redis.get('fence:{lock:a}'), '1');
    });
  });

  describe('queue_release', () => {
    test('not held by the token: 0, nothing changes', async () => {
      await acquire({ token: 'owner-1' });
      await zeroAndWritesNothing(fx.redis, () => release('owner-2'));
      await fx.redis.del('lock:a');
      await zeroAndWritesNothing(fx.redis, () => release('owner-1'));
    });

    test('a waiter that gives up leaves the queue: 0, its ticket gone, the lock untouched', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2' });
      assert.equal(await release('owner-2'), 0);
      assert.deepEqual(await queue(), []);
      assert.deepEqual(await tickets(), {});
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
    });

    test('no one queued: deletes the lock, wakes with the empty payload', async () => {
      await acquire({ token: 'owner-1' });
      assert.equal(await release('owner-1'), 1);
      assert.equal(await fx.redis.exists('lock:a'), 0);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=']);
    });

    test('hands the lock to the first live waiter for its claim_ms, and names the next one', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2', ticket: 'a.1', claimMs: 4000 });
      await acquire({ token: 'owner-3', ticket: 'b.1' });
      await acquire({ token: 'owner-4', ticket: 'c.1' });
      assert.equal(await release('owner-1'), 1);
      assert.equal(await fx.redis.get('lock:a'), 'owner-2');
      const claim = await pttl();
      assert.ok(claim > 3000 && claim <= 4000, `claim PTTL ${claim}`);
      assert.deepEqual(await queue(), ['owner-3', 'owner-4']);
      assert.match((await tickets())['owner-2'], /^hand \d+ a\.1$/);
      // On the two named clients' channels alone: c's client, and the lock's channel, hear nothing.
      // The next one's published first: to two clients in one turn, a server writes the last first.
      await waitFor('the wake-ups', () => messages.length === 2);
      await sleep(50);
      assert.deepEqual(messages.map(withoutTime), [
        '{lock:a}:tickets:b=hand a.1 <time> next b.1',
        '{lock:a}:tickets:a=hand a.1 <time> next b.1',
      ]);
    });

    test('the handed and the next waiter of one client: one wake-up on its channel', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2', ticket: 'a.1.1' });
      await acquire({ token: 'owner-3', ticket: 'a.2.1' });
      await release('owner-1');
      await waitFor('the wake-up', () => messages.length === 1);
      await sleep(50);
      assert.deepEqual(messages.map(withoutTime), ['{lock:a}:tickets:a=hand a.1.1 <time> next a.2.1']);
    });

    test('the last waiter: handed with no next', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2', ticket: 'a.1' });
      await release('owner-1');
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages.map(withoutTime), ['{lock:a}:tickets:a=hand a.1 <time>']);
    });

    test('waiters whose time is up are skipped and dropped, across the batches the release reads', async () => {
      await acquire({ token: 'owner-1' });
      for (let i = 1; i <= 6; i++) await acquire({ token: `gone-${i}`, ticket: `g.${i}`, waitMs: 50 });
      await acquire({ token: 'owner-2', ticket: 'a.1' });
      await sleep(2); // acquire_queued scores arrival by the ms, queue_acquire by the microsecond
      await fx.locks.run('acquire_queued', KEYS.slice(0, 2), ['old-style', TTL, WAIT_MS]);
      for (let i = 7; i <= 12; i++) await acquire({ token: `gone-${i}`, ticket: `g.${i}`, waitMs: 50 });
      await acquire({ token: 'owner-3', ticket: 'b.1' });
      await acquire({ token: 'owner-4', ticket: 'c.1' });
      await sleep(80);
      await release('owner-1');
      assert.equal(await fx.redis.get('lock:a'), 'owner-2');
      assert.deepEqual(await queue(), ['old-style', 'owner-3', 'owner-4'], 'the acquire_queued waiter keeps its place');
      assert.deepEqual(Object.keys(await tickets()).sort(), ['owner-2', 'owner-3', 'owner-4']);
      await waitFor('the wake-ups', () => messages.length === 2);
      assert.deepEqual(messages.map(withoutTime), [
        '{lock:a}:tickets:b=hand a.1 <time> next b.1',
        '{lock:a}:tickets:a=hand a.1 <time> next b.1',
      ]);
    });

    test('only lapsed waiters: the lock is deleted and the queue emptied', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'gone', waitMs: 20 });
      await sleep(50);
      await release('owner-1');
      assert.equal(await fx.redis.exists('lock:a', '{lock:a}:waiters', '{lock:a}:tickets'), 0);
    });

    test('an acquire_queued waiter first in line: woken by its token with the lock freed, as release.lua does', async () => {
      await acquire({ token: 'owner-1' });
      await fx.locks.run('acquire_queued', KEYS.slice(0, 2), ['old-style', TTL, WAIT_MS]);
      await acquire({ token: 'owner-2' });
      assert.equal(await release('owner-1'), 1);
      assert.equal(await fx.redis.exists('lock:a'), 0);
      assert.deepEqual(await queue(), ['owner-2']);
      await waitFor('the wake-up', () => messages.length === 1);
      assert.deepEqual(messages, ['lock:a=old-style']);
    });
  });

  describe('the handed waiter', () => {
    test('confirms with its next call: {1, 0, W}, lease ttl_ms, ticket gone', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2' });
      await acquire({ token: 'owner-3' });
      await release('owner-1');
      assert.deepEqual(await acquire({ token: 'owner-2', ticket: 'x.9' }), [1, 0, 1]);
      assert.ok((await pttl()) > TTL - 1000);
      assert.deepEqual(Object.keys(await tickets()), ['owner-3']);
    });

    test('with a fence: a hand-over is a new holder, the confirmation INCRs; a retry after it does not', async () => {
      const keys = [...KEYS, 'fence:{lock:a}'];
      assert.deepEqual(await acquire({ token: 'owner-1', keys }), [1, 0, 0]);
      await acquire({ token: 'owner-2', keys });
      await release('owner-1');
      assert.deepEqual(await acquire({ token: 'owner-2', keys }), [2, 0, 0]);
      assert.deepEqual(await acquire({ token: 'owner-2', keys }), [2, 0, 0]);
      assert.equal(await fx.redis.get('fence:{lock:a}'), '2');
    });

    test('unconfirmed, the claim lapses after claim_ms: the next waiter takes the free lock', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'dead', claimMs: 60 });
      await acquire({ token: 'owner-3' });
      await release('owner-1');
      assert.equal(await fx.redis.get('lock:a'), 'dead');
      const [held, retry] = await acquire({ token: 'owner-3', fair: 1 });
      assert.equal(held, 0);
      assert.ok(retry > 0 && retry <= 60, `asks again when the claim lapses: ${retry}`);
      await sleep(100);
      assert.deepEqual(await acquire({ token: 'owner-3', fair: 1 }), [1, 0, 0]);
    });

    test('a handed waiter that gives up instead passes the lock on to the next live waiter', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2', ticket: 'a.1' });
      await acquire({ token: 'owner-3', ticket: 'b.1' });
      await release('owner-1');
      assert.equal(await release('owner-2'), 1);
      assert.equal(await fx.redis.get('lock:a'), 'owner-3');
      await waitFor('both hand-overs', () => messages.length === 3);
      assert.deepEqual(messages.map(withoutTime), [
        '{lock:a}:tickets:b=hand a.1 <time> next b.1',
        '{lock:a}:tickets:a=hand a.1 <time> next b.1',
        '{lock:a}:tickets:b=hand b.1 <time>',
      ]);
    });
  });

  describe('fair mode', () => {
    test('a free lock with live waiters: refused to a caller outside the queue, which joins it; the first takes', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2', waitMs: 2000 });
      await fx.redis.del('lock:a'); // the holder's lease ended: nobody handed the lock over
      const [held, retry, waiting] = await acquire({ token: 'barger', fair: 1 });
      assert.equal(held, 0);
      assert.ok(retry > 1000 && retry <= 2000, `retry when the first waiter's time is up: ${retry}`);
      assert.equal(waiting, 2);
      assert.deepEqual(await queue(), ['owner-2', 'barger']);
      assert.equal(await fx.redis.exists('lock:a'), 0);
      assert.deepEqual(await acquire({ token: 'owner-2', fair: 1 }), [1, 0, 1]);
    });

    test('fair 0: whoever asks first takes a free lock (barging), documented', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'owner-2' });
      await fx.redis.del('lock:a');
      assert.deepEqual(await acquire({ token: 'barger', fair: 0 }), [1, 0, 1]);
      assert.deepEqual(await queue(), ['owner-2']);
    });

    test('a first waiter whose time is up does not hold the others back, and is dropped', async () => {
      await acquire({ token: 'owner-1' });
      await acquire({ token: 'gone', waitMs: 30 });
      await acquire({ token: 'owner-2' });
      await fx.redis.del('lock:a');
      await sleep(60);
      assert.deepEqual(await acquire({ token: 'owner-2', fair: 1 }), [1, 0, 0]);
      assert.deepEqual(await tickets(), {});
    });

    test('acquire_queued waiters (no ticket) neither hold fair callers back nor are dropped', async () => {
      await acquire({ token: 'owner-0' });
      await fx.locks.run('acquire_queued', KEYS.slice(0, 2), ['old-style', TTL, WAIT_MS]);
      await fx.redis.del('lock:a');
      assert.deepEqual(await acquire({ token: 'owner-1', fair: 1 }), [1, 0, 1]);
      assert.deepEqual(await queue(), ['old-style']);
    });
  });

  describe('bad arguments get an ERR naming them and write nothing', () => {
    const good = ['t', TTL, WAIT_MS, CLAIM_MS, 't.1', 0];
    const bad: [string, (string | number)[], RegExp][] = [
      ['no token', [], /ARGV\[1\] token must be a non-empty string/],
      ['ttl 0', ['t', 0, ...good.slice(2)], /ARGV\[2\] ttl_ms must be a positive integer/],
      ['wait_ms 1.5', ['t', TTL, '1.5', ...good.slice(3)], /ARGV\[3\] wait_ms must be a positive integer/],
      ['claim_ms missing', good.slice(0, 3), /ARGV\[4\] claim_ms must be a positive integer.*got 'nil'/],
      ['ticket with a space', [...good.slice(0, 4), 'a b', 0], /ARGV\[5\] ticket must be 1 to 64 of/],
      ['ticket of 65', [...good.slice(0, 4), 'x'.repeat(65), 0], /ARGV\[5\] ticket/],
      ['ticket empty', [...good.slice(0, 4), '', 0], /ARGV\[5\] ticket/],
      ['fair 2', [...good.slice(0, 5), 2], /ARGV\[6\] fair must be 0 or 1, got '2'/],
      ['fair missing', good.slice(0, 5), /ARGV\[6\] fair must be 0 or 1/],
    ];
    for (const [label, args, message] of bad) {
      test(`queue_acquire: ${label}`, async () => {
        await acquire({ token: 'owner-1' });
        await acquire({ token: 'owner-2' });
        await rejectsAndWritesNothing(fx.redis, () => fx.locks.run('queue_acquire', KEYS, args), message);
      });
    }

    test('wrong number of keys, and queue_release with no token', async () => {
      await acquire({ token: 'owner-1' });
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('queue_acquire', KEYS.slice(0, 2), good),
        /^ReplyError: ERR queue_acquire takes 3 or 4 keys/,
      );
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('queue_release', KEYS.slice(0, 2), ['owner-1']),
        /^ReplyError: ERR queue_release takes exactly 3 keys/,
      );
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('queue_release', KEYS, ['']),
        /ERR queue_release: ARGV\[1\] token must be a non-empty string/,
      );
    });

    for (const [at, name] of KEYS.map((key, i) => [i, key] as const)) {
      test(`a key of another type under ${name}: WRONGTYPE from both scripts, nothing written`, async () => {
        await acquire({ token: 'owner-1' });
        await acquire({ token: 'owner-2' });
        await fx.redis.del(name);
        await fx.redis.rpush(name, 'x');
        for (const call of [() => fx.locks.run('queue_acquire', KEYS, good), () => release('owner-1')]) {
          await rejectsAndWritesNothing(fx.redis, call, /WRONGTYPE/);
        }
        assert.equal(await fx.redis.type(name), 'list', `KEYS[${at + 1}]`);
      });
    }
  });
}

// The waiting acquire of LockScripts and the native path, on Redis 7.0 and Valkey 9: a release
// wakes the waiter long before its retry timer, a lost wake-up (subscriber cut by the proxy) is
// covered by the retry bound, waitMs gives up with 0, an AbortSignal cancels, and the native
// commands answer exactly like the scripts.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import Redis from 'ioredis';
import { ticketsKey, waitersKey } from '../pack/layout';
import { detectNative } from '../pack/native';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { spawnLockWaiter } from '../harness/lock-waiter';
import { TcpProxy } from '../harness/proxy';
import { commandCalls, pack, sleep, useRedis, waitFor } from './helpers';

const LONG = 60_000;

for (const server of SERVER_KINDS) describe(server, () => waiting(server));

function waiting(server: ServerKind): void {
  // A retry bound far longer than any test waits: only a wake-up can end these waits early.
  const fx = useRedis({ server }, { retryMs: LONG });

  beforeEach(async () => {
    await fx.redis.flushall();
  });

  test('a waiter woken by the release gets the lock without waiting for its retry timer', async (t) => {
    await fx.locks.acquire('lock:w', 'holder', LONG);
    const started = performance.now();
    const waiting = fx.locks.acquire('lock:w', 'waiter', LONG, { waitMs: LONG });
    await untilQueued('lock:w', 'waiter');
    assert.equal(await fx.locks.release('lock:w', 'holder'), true);
    assert.equal(await waiting, 1);
    const took = performance.now() - started;
    assert.ok(took < LONG / 2, `woke after ${took} ms`);
    assert.equal(await fx.redis.get('lock:w'), 'waiter');
    t.diagnostic(`held ${took.toFixed(0)} ms after the wait began (retry bound ${LONG} ms)`);
  });

  test('queued waiters are woken one by one, first come first served', async () => {
    // A holder that took the lock by waiting releases with the queue, so it wakes the first in line.
    // (One that took it without waiting wakes one waiter per client: whoever retries first wins.)
    await fx.locks.acquire('lock:q', 'holder', LONG, { waitMs: LONG });
    const order: string[] = [];
    const attemptsBefore = await commandCalls(fx.redis, 'evalsha');
    const wait = async (token: string) => {
      const client = fx.server.client();
      const other = new LockScripts(client, pack, { retryMs: LONG });
      try {
        assert.equal(await other.acquire('lock:q', token, LONG, { waitMs: LONG }), 1);
        order.push(token);
        await sleep(5);
        assert.equal(await other.release('lock:q', token), true);
      } finally {
        other.close();
        client.disconnect();
      }
    };
    // They arrive in this order: each starts once the one before is in the queue.
    const waiters: Promise<void>[] = [];
    for (const token of ['w1', 'w2', 'w3']) {
      waiters.push(wait(token));
      await untilQueued('lock:q', token);
    }
    // Each waiter attempts once more after its SSUBSCRIBE is confirmed (a release before that
    // would let it barge): 2 attempts each, then they sleep until woken.
    await waitFor(
      'both attempts of every waiter',
      async () => (await commandCalls(fx.redis, 'evalsha')) - attemptsBefore >= 6,
    );
    await fx.locks.release('lock:q', 'holder');
    await Promise.all(waiters);
    assert.deepEqual(order, ['w1', 'w2', 'w3']);
  });

  describe('the one-hop handoff', () => {
    const otherClient = () => {
      const client = fx.server.client();
      return { client, locks: new LockScripts(client, pack, { retryMs: LONG }) };
    };

    test("handoff 'wake': the release hands the lock to the waiter, which has it at the wake-up and confirms its lease", async () => {
      const { client, locks } = otherClient();
      try {
        // Taken through the queue: its release is queue_release.
        await fx.locks.acquire('lock:h', 'holder', LONG, { waitMs: 1 });
        const waiting = locks.acquire('lock:h', 'waiter', LONG, { waitMs: LONG, handoff: 'wake' });
        await untilQueued('lock:h', 'waiter');
        assert.equal(await fx.locks.release('lock:h', 'holder'), true);
        assert.equal(await fx.redis.get('lock:h'), 'waiter', 'handed in the release itself');
        assert.equal(await waiting, 1);
        await waitFor('the confirmation', async () => (await fx.redis.pttl('lock:h')) > fx.locks.claimMs);
        assert.ok((await fx.redis.pttl('lock:h')) > LONG - 1000);
        assert.deepEqual(await fx.redis.hgetall(ticketsKey('lock:h')!), {});
        assert.equal(await locks.release('lock:h', 'waiter'), true);
      } finally {
        locks.close();
        client.disconnect();
      }
    });

    test('by default, and with a fence: the acquire returns once the lease is confirmed, the fence INCRed', async () => {
      const { client, locks } = otherClient();
      try {
        const fence = 'fence:{lock:hf}';
        assert.equal(await fx.locks.acquire('lock:{lock:hf}', 'holder', LONG, { waitMs: 1, fence }), 1);
        const waiting = locks.acquire('lock:{lock:hf}', 'waiter', LONG, { waitMs: LONG, fence });
        const confirmed = locks.acquire('lock:{lock:hf}', 'second', LONG, { waitMs: LONG });
        await untilQueued('lock:{lock:hf}', 'waiter');
        await untilQueued('lock:{lock:hf}', 'second');
        await fx.locks.release('lock:{lock:hf}', 'holder');
        assert.equal(await waiting, 2);
        assert.ok((await fx.redis.pttl('lock:{lock:hf}')) > LONG - 1000, 'confirmed before it returned');
        await locks.release('lock:{lock:hf}', 'waiter');
        assert.equal(await confirmed, 1);
        assert.ok((await fx.redis.pttl('lock:{lock:hf}')) > LONG - 1000, 'confirmed before it returned');
        await locks.release('lock:{lock:hf}', 'second');
      } finally {
        locks.close();
        client.disconnect();
      }
    });

    test('a waiter SIGKILLed in the queue costs the next one its claim, not a retry bound or its own lease', async (t) => {
      const { client, locks } = otherClient();
      const dead = spawnLockWaiter(fx.server.port, 'lock:k', 'dead', { ttlMs: LONG, holdMs: 0, rounds: 1 });
      try {
        await fx.locks.acquire('lock:k', 'holder', LONG, { waitMs: 1 });
        await untilQueued('lock:k', await dead.next('waiting'));
        await dead.kill();
        const waiting = locks.acquire('lock:k', 'next', LONG, { waitMs: LONG });
        await untilQueued('lock:k', 'next');
        const released = performance.now();
        await fx.locks.release('lock:k', 'holder');
        assert.match((await fx.redis.get('lock:k'))!, /^dead:/, 'handed to the dead waiter, whose ticket was live');
        assert.equal(await waiting, 1);
        const took = performance.now() - released;
        // The dead waiter's ticket lives 2 x LONG, the next one's retry bound is LONG: only the claim ended this wait.
        assert.ok(took < LONG / 2, `took ${took} ms`);
        t.diagnostic(`the next waiter held it ${took.toFixed(0)} ms after the release (claim ${fx.locks.claimMs} ms)`);
        await locks.release('lock:k', 'next');
      } finally {
        await dead.kill();
        locks.close();
        client.disconnect();
      }
    });

    test('fair: a free lock is refused to a caller outside the queue while a live waiter is first; not fair, it barges', async () => {
      const { client, locks } = otherClient();
      const controller = new AbortController();
      try {
        await fx.locks.acquire('lock:f', 'holder', LONG, { waitMs: 1 });
        const waiting = locks.acquire('lock:f', 'waiter', LONG, {
          waitMs: LONG,
          fair: true,
          signal: controller.signal,
        });
        await untilWaiting('lock:f', 'waiter');
        await fx.redis.del('lock:f'); // the holder's lease ended: no release handed it over
        assert.equal(await fx.locks.acquire('lock:f', 'barger', LONG, { fair: true }), 0);
        assert.deepEqual(
          await fx.redis.zrange(waitersKey('lock:f')!, 0, -1),
          ['waiter'],
          'refused, and left the queue',
        );
        assert.equal(await fx.redis.exists('lock:f'), 0);
        assert.equal(await fx.locks.acquire('lock:f', 'barger', LONG), 1, 'barging, as documented');
        controller.abort(new Error('done'));
        await assert.rejects(waiting, /done/);
      } finally {
        locks.close();
        client.disconnect();
      }
    });
  });

  test('each kind: a waiter wakes on the release', async () => {
    await fx.locks.reentrant.acquire('lock:r', 'a', LONG);
    const reentrant = fx.locks.reentrant.acquire('lock:r', 'b', LONG, { waitMs: LONG });
    await fx.locks.rw.read('lock:rw', 'r1', LONG);
    const writer = fx.locks.rw.write('lock:rw', 'w1', LONG, { waitMs: LONG });
    await fx.locks.semaphore.acquire('lock:s', 'h1', LONG, 1);
    const permit = fx.locks.semaphore.acquire('lock:s', 'h2', LONG, 1, { waitMs: LONG });
    await sleep(100);
    assert.equal(await fx.locks.reentrant.release('lock:r', 'a'), 1);
    assert.equal(await fx.locks.rw.release('lock:rw', 'r1'), true);
    assert.equal(await fx.locks.semaphore.release('lock:s', 'h1'), true);
    assert.deepEqual(await Promise.all([reentrant, writer, permit]), [1, true, true]);
  });

  test('waitMs passes: 0 ("busy"), and the waiter leaves the queue', async () => {
    await fx.locks.acquire('lock:b', 'holder', LONG);
    assert.equal(await fx.locks.acquire('lock:b', 'waiter', LONG, { waitMs: 150 }), 0);
    assert.deepEqual(await fx.redis.zrange(waitersKey('lock:b')!, 0, -1), []);
    assert.deepEqual(await fx.redis.hgetall(ticketsKey('lock:b')!), {});
    assert.equal(await fx.locks.semaphore.acquire('lock:s2', 'x', LONG, 1), true);
    assert.equal(await fx.locks.semaphore.acquire('lock:s2', 'y', LONG, 1, { waitMs: 100 }), false);
  });

  test('an AbortSignal cancels the wait with its reason, and the waiter leaves the queue', async () => {
    await fx.locks.acquire('lock:c', 'holder', LONG);
    const controller = new AbortController();
    const waiting = fx.locks.acquire('lock:c', 'waiter', LONG, { waitMs: LONG, signal: controller.signal });
    await untilQueued('lock:c', 'waiter');
    controller.abort(new Error('user cancelled'));
    await assert.rejects(waiting, /user cancelled/);
    assert.deepEqual(await fx.redis.zrange(waitersKey('lock:c')!, 0, -1), []);
    assert.deepEqual(await fx.redis.hgetall(ticketsKey('lock:c')!), {});
    await assert.rejects(
      fx.locks.acquire('lock:c', 'late', LONG, { waitMs: LONG, signal: AbortSignal.abort(new Error('already')) }),
      /already/,
    );
  });

  test('a lock that expires unreleased: the waiter retries when its PTTL ends', async () => {
    await fx.locks.acquire('lock:e', 'crashed', 200);
    assert.equal(await fx.locks.acquire('lock:e', 'waiter', LONG, { waitMs: 5000 }), 1);
  });

  test('keys with no same-slot queue name still wait, woken by the empty payload', async () => {
    const key = 'lock}odd';
    assert.equal(waitersKey(key), undefined);
    await fx.locks.acquire(key, 'holder', LONG);
    const waiting = fx.locks.acquire(key, 'waiter', LONG, { waitMs: LONG });
    await sleep(100);
    await fx.locks.release(key, 'holder');
    assert.equal(await waiting, 1);
  });

  describe('a lost wake-up', () => {
    let proxy: TcpProxy;
    let viaProxy: Redis;
    before(async () => {
      proxy = await TcpProxy.start(fx.server.port);
    });
    after(async () => {
      viaProxy?.disconnect();
      await proxy?.close();
    });

    test('subscriber cut by the proxy: the waiter still gets the lock within its retry bound', async (t) => {
      const RETRY = 400;
      const locks = new LockScripts(fx.redis, pack, {
        retryMs: RETRY,
        subscriber: () => (viaProxy = new Redis({ host: proxy.host, port: proxy.port, maxRetriesPerRequest: null })),
      });
      try {
        await fx.locks.acquire('lock:lost', 'holder', LONG);
        const waiting = locks.acquire('lock:lost', 'waiter', LONG, { waitMs: LONG });
        await untilQueued('lock:lost', 'waiter');
        // Subscribed for sure, so the cut loses the wake-up itself, not the SSUBSCRIBE.
        await waitFor('the subscription', async () => (await shardSubscribers('lock:lost')) === 1);
        proxy.cut('hold');
        await fx.locks.release('lock:lost', 'holder');
        const released = performance.now();
        assert.equal(await waiting, 1);
        const late = performance.now() - released;
        assert.ok(late <= RETRY + 250, `took the lock ${late} ms after the release (bound ${RETRY} ms)`);
        t.diagnostic(`wake-up lost; took the lock ${late.toFixed(0)} ms after the release, retry bound ${RETRY} ms`);
      } finally {
        proxy.restore();
        locks.close();
      }
    });
  });

  describe('the native path', () => {
    const native = server === 'valkey';
    const nativePath = {
      acquire: 'SET NX GET',
      release: native ? 'DELIFEQ' : 'release.lua',
      extend: native ? 'SET IFEQ' : 'extend.lua',
      multiAcquire: native ? 'MSETEX NX' : 'multi_acquire.lua',
    };

    test(`${native ? 'DELIFEQ and SET IFEQ' : 'the scripts'} for release and extend, SET NX GET to acquire`, async () => {
      const infoBefore = await commandCalls(fx.redis, 'info');
      assert.deepEqual(await new LockScripts(fx.redis, pack).path(), nativePath);
      // +1: the INFO commandstats that read infoBefore.
      assert.equal(await commandCalls(fx.redis, 'info'), infoBefore + 1, 'detected by COMMAND INFO and DOCS, not INFO');
      const before = await commandCalls(fx.redis, 'delifeq');
      await fx.locks.acquire('lock:n', 'owner', LONG);
      await fx.locks.release('lock:n', 'owner');
      assert.equal((await commandCalls(fx.redis, 'delifeq')) - before, native ? 1 : 0);
    });

    test('a release that woke nobody: the next native release within 100 ms skips SPUBLISH; later ones send it', async () => {
      const spublish = () => commandCalls(fx.redis, 'spublish');
      const pair = async () => {
        await fx.locks.acquire('lock:quiet', 'owner', LONG);
        await fx.locks.release('lock:quiet', 'owner');
        await sleep(20); // the SPUBLISH reply is handled after release() returns
      };
      const before = await spublish();
      await pair();
      await pair();
      // Redis 7.0: release.lua publishes from inside the script every time.
      assert.equal((await spublish()) - before, native ? 1 : 2);
      await sleep(120);
      await pair();
      assert.equal((await spublish()) - before, native ? 2 : 3);
    });

    test('a waiter that arrives in that quiet window is late by at most its retry bound', async () => {
      const RETRY = 300;
      const client = fx.server.client();
      const waiterLocks = new LockScripts(client, pack, { retryMs: RETRY });
      try {
        await fx.locks.acquire('lock:late', 'first', LONG);
        await fx.locks.release('lock:late', 'first'); // wakes nobody
        await fx.locks.acquire('lock:late', 'holder', LONG);
        const waiting = waiterLocks.acquire('lock:late', 'waiter', LONG, { waitMs: LONG });
        await untilQueued('lock:late', 'waiter');
        await fx.locks.release('lock:late', 'holder');
        const released = performance.now();
        assert.equal(await waiting, 1);
        assert.ok(performance.now() - released <= RETRY + 250, 'within the retry bound');
      } finally {
        waiterLocks.close();
        client.disconnect();
      }
    });

    test('detectNative reads COMMAND INFO and COMMAND DOCS: what this server has, whatever INFO says its version is', async () => {
      assert.deepEqual(await detectNative(fx.redis), {
        delifeq: native,
        delexIfeq: false,
        setIfeq: native,
        setNxGet: true,
        msetex: native,
      });
    });

    test('a user who may not run COMMAND: the scripts, and no native command tried', async () => {
      await fx.redis.call('ACL', 'LOG', 'RESET');
      await fx.redis.call('ACL', 'SETUSER', 'nocommand', 'on', '>pw', '~*', '&*', '+@all', '-command');
      const client = fx.server.client({ username: 'nocommand', password: 'pw' });
      const tried = new LockScripts(client, pack);
      try {
        assert.equal(await tried.acquire('lock:try', 'a', LONG), 1);
        assert.equal(await tried.extend('lock:try', 'a', LONG), true);
        assert.equal(await tried.release('lock:try', 'a'), true);
        assert.equal(await tried.release('lock:try', 'a'), false);
        assert.deepEqual(await tried.path(), {
          acquire: 'acquire.lua',
          release: 'release.lua',
          extend: 'extend.lua',
          multiAcquire: 'multi_acquire.lua',
        });
        assert.equal(await fx.redis.exists('lock:try'), 0);
        const denied = ((await fx.redis.call('ACL', 'LOG')) as unknown[][]).map((entry) =>
          String(entry[entry.indexOf('object') + 1]),
        );
        assert.deepEqual(denied.sort(), ['command|docs', 'command|info']);
      } finally {
        tried.close();
        client.disconnect();
      }
    });

    test('replies are those of the scripts, branch by branch', async () => {
      const lua = new LockScripts(fx.redis, pack, { native: 'lua' });
      const scenario = async (locks: LockScripts) => {
        await fx.redis.flushall();
        const replies: unknown[] = [
          await locks.acquire('lock:x', 'a', 5000),
          await locks.acquire('lock:x', 'a', LONG),
          Math.round((await fx.redis.pttl('lock:x')) / 10_000),
          await locks.acquire('lock:x', 'b', LONG),
          await locks.extend('lock:x', 'b', LONG),
          await locks.extend('lock:x', 'a', 20_000),
          Math.round((await fx.redis.pttl('lock:x')) / 10_000),
          await locks.release('lock:x', 'b'),
          await locks.release('lock:x', 'a'),
          await locks.release('lock:x', 'a'),
          await locks.extend('lock:x', 'a', LONG),
          await fx.redis.exists('lock:x'),
        ];
        await fx.redis.hset('lock:h', 'f', 'v');
        for (const call of [
          () => locks.acquire('lock:h', 'a', LONG),
          () => locks.release('lock:h', 'a'),
          () => locks.extend('lock:h', 'a', LONG),
        ]) {
          replies.push(await call().catch((error: Error) => error.message.split(' ')[0]));
        }
        return replies;
      };
      try {
        assert.deepEqual(await scenario(fx.locks), await scenario(lua));
      } finally {
        lua.close();
      }
    });
  });

  async function shardSubscribers(channel: string): Promise<number> {
    const [, subscribers] = (await fx.redis.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
    return subscribers;
  }

  async function untilQueued(lock: string, token: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if ((await fx.redis.zscore(waitersKey(lock)!, token)) !== null) return;
      await sleep(10);
    }
    throw new Error(`${token} never queued on ${lock}`);
  }

  /**
   * Until `token` made its second call in `lock`'s queue (its ticket `<session>.1`), the one once
   * subscribed: it then sleeps until woken. A change to the lock before that call would race it.
   */
  async function untilWaiting(lock: string, token: string): Promise<void> {
    await waitFor(`${token}'s second call`, async () =>
      /\.1$/.test((await fx.redis.hget(ticketsKey(lock)!, token)) ?? ''),
    );
  }
}

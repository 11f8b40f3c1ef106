// The waiting acquire of LockScripts and the native path, on Redis 7.0 and Valkey 9: a release
// wakes the waiter long before its retry timer, a lost wake-up (subscriber cut by the proxy) is
// covered by the retry bound, waitMs gives up with 0, an AbortSignal cancels, and the native
// commands answer exactly like the scripts.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import Redis from 'ioredis';
import { waitersKey } from '../pack/layout';
import { detectNative } from '../pack/native';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, type ServerKind } from './harness/redis';
import { TcpProxy } from './harness/proxy';
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
}

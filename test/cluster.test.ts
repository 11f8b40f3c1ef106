// The pack on a real Redis Cluster and a real Valkey cluster: 3 masters + 3 replicas each, on
// loopback. Wake-ups are sharded (SPUBLISH/SSUBSCRIBE) on the lock's own slot; the waiter queue
// shares it; the native path runs per master.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Cluster } from 'ioredis';
import { handoffChannel, keySlot, ticketsKey, waitersKey, wakeChannel } from '../pack/layout';
import { SCRIPT_NAMES } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, startCluster, type RedisCluster, type RedisServer, type ServerKind } from '../harness/redis';
import { pack, sleep } from './helpers';
import { provesAllOrNothing } from './multi-proof';

const LONG = 60_000;

for (const server of SERVER_KINDS) describe(server, () => onCluster(server));

function onCluster(server: ServerKind): void {
  let cluster: RedisCluster;
  let client: Cluster;
  let locks: LockScripts;

  before(async () => {
    cluster = await startCluster({ replicas: 1, server });
    client = await cluster.client();
    locks = new LockScripts(client, pack, { retryMs: LONG });
  });

  after(async () => {
    locks?.close();
    client?.disconnect();
    await cluster?.stop();
  });

  const slotOf = async (key: string) => (await client.call('CLUSTER', 'KEYSLOT', key)) as number;

  /** For each master, a hash tag whose slot it owns. */
  async function tagPerMaster(): Promise<Map<RedisServer, string>> {
    const slots = (await client.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
    const ownerOf = (slot: number) => {
      const [, , [, port]] = slots.find(([from, to]) => slot >= from && slot <= to)!;
      return cluster.masters.find((master) => master.port === port)!;
    };
    const tags = new Map<RedisServer, string>();
    for (let n = 0; tags.size < cluster.masters.length; n++) {
      const tag = `order:${n}`;
      const master = ownerOf(await slotOf(tag));
      if (!tags.has(master)) tags.set(master, tag);
    }
    return tags;
  }

  test('acquire, extend and release with hash-tagged lock and fence keys on every master', async () => {
    const tags = await tagPerMaster();
    assert.equal(tags.size, 3);
    for (const [master, tag] of tags) {
      const lock = `lock:{${tag}}`;
      const fence = `fence:{${tag}}`;
      const direct = master.client();
      try {
        assert.equal(await locks.acquire(lock, 'owner-1', 10_000, { fence }), 1);
        assert.equal(await locks.acquire(lock, 'owner-2', 10_000, { fence }), 0);
        // The keys live on the master that owns the tag's slot, and replicate to its replica.
        assert.equal(await direct.get(lock), 'owner-1');
        assert.equal(await direct.get(fence), '1');
        assert.equal(await direct.wait(1, 2000), 1);

        assert.equal(await locks.extend(lock, 'owner-1', 30_000), true);
        assert.ok((await direct.pttl(lock)) > 10_000);
        assert.equal(await locks.release(lock, 'owner-2'), false);
        assert.equal(await locks.release(lock, 'owner-1'), true);
        assert.equal(await locks.acquire(lock, 'owner-2', 10_000, { fence }), 2);
        assert.equal(await locks.release(lock, 'owner-2'), true);
      } finally {
        direct.disconnect();
      }
    }
  });

  test('a lock and fence pair in different slots fails with CROSSSLOT and writes nothing', async () => {
    const lock = 'lock:{order:a}';
    const fence = 'fence:{order:b}';
    assert.notEqual(await slotOf(lock), await slotOf(fence));
    await assert.rejects(locks.acquire(lock, 'owner-1', 10_000, { fence }), /CROSSSLOT/);
    assert.equal(await client.exists(lock), 0);
    assert.equal(await client.exists(fence), 0);
  });

  test('the wake channel and the waiter queue hash to the lock key slot, tag or no tag', async () => {
    for (const key of ['lock:order:42', 'lock:{order:42}', 'lock:{}x', 'a{b', '{x}{y}', 'lock:éà']) {
      const slot = await slotOf(key);
      assert.equal(keySlot(key), slot, key);
      assert.equal(await slotOf(wakeChannel(key)), slot, `${key}: channel`);
      const queue = waitersKey(key);
      if (queue !== undefined) assert.equal(await slotOf(queue), slot, `${key}: queue ${queue}`);
      const handoffs = queue === undefined ? undefined : handoffChannel(ticketsKey(key)!, 'c1').toString();
      if (handoffs !== undefined) assert.equal(await slotOf(handoffs), slot, `${key}: hand-overs ${handoffs}`);
    }
    assert.equal(waitersKey('lock:{}x'), undefined, 'a } with no tag: no same-slot name');
  });

  test('a waiter on another client is woken through its shard, or handed the lock, on keys of every master', async () => {
    const waiterClient = await cluster.client();
    const waiterLocks = new LockScripts(waiterClient, pack, { retryMs: LONG });
    try {
      for (const tag of (await tagPerMaster()).values()) {
        // Taken through the queue, the holder's release hands the lock over on the waiter's hand-over channel.
        for (const [lock, holderWaitMs] of [
          [`wait:{${tag}}`, 0],
          [`wait:${tag}:untagged`, 0],
          [`hand:{${tag}}`, 1],
          [`hand:${tag}:untagged`, 1],
        ] as const) {
          assert.equal(await locks.acquire(lock, 'holder', LONG, { waitMs: holderWaitMs }), 1);
          const started = performance.now();
          const waiting = waiterLocks.acquire(lock, 'waiter', LONG, { waitMs: LONG });
          while ((await client.zscore(waitersKey(lock)!, 'waiter')) === null) await sleep(10);
          assert.equal(await locks.release(lock, 'holder'), true);
          assert.equal(await waiting, 1, lock);
          assert.ok(performance.now() - started < LONG / 2, `${lock}: woken, not timed out`);
          assert.equal(await waiterLocks.release(lock, 'waiter'), true);
        }
      }
    } finally {
      waiterLocks.close();
      waiterClient.disconnect();
    }
  });

  test('every kind on keys without a hash tag: one key each, and its waiters woken', async () => {
    assert.equal(await locks.reentrant.acquire('lock:re', 'a', LONG), 1);
    const reentrant = locks.reentrant.acquire('lock:re', 'b', LONG, { waitMs: LONG });
    assert.equal(await locks.rw.write('lock:rw', 'w', LONG), true);
    const reader = locks.rw.read('lock:rw', 'r', LONG, { waitMs: LONG });
    assert.equal(await locks.semaphore.acquire('lock:sem', 'h1', LONG, 1), true);
    const permit = locks.semaphore.acquire('lock:sem', 'h2', LONG, 1, { waitMs: LONG });
    await sleep(200);
    assert.equal(await locks.reentrant.release('lock:re', 'a'), 1);
    assert.equal(await locks.rw.release('lock:rw', 'w'), true);
    assert.equal(await locks.semaphore.release('lock:sem', 'h1'), true);
    assert.deepEqual(await Promise.all([reentrant, reader, permit]), [1, true, true]);
  });

  test(`the native path: ${server === 'valkey' ? 'DELIFEQ and SET IFEQ on every master' : 'the scripts'}`, async () => {
    assert.deepEqual(await locks.path(), {
      acquire: 'SET NX GET',
      release: server === 'valkey' ? 'DELIFEQ' : 'release.lua',
      extend: server === 'valkey' ? 'SET IFEQ' : 'extend.lua',
      multiAcquire: server === 'valkey' ? 'MSETEX NX' : 'multi_acquire.lua',
    });
  });

  test('multi-key locks across slots: CROSSSLOT for the one-slot script, slot by slot in the runtime', async () => {
    const keys = ['lock:bank:a', 'lock:bank:b', 'lock:bank:c', 'lock:bank:d'];
    assert.ok(new Set(keys.map(keySlot)).size > 1, 'the keys lie in several slots');
    await assert.rejects(locks.run('multi_acquire', keys, ['owner-1', 10_000]), /CROSSSLOT/);
    assert.equal(await locks.multi.acquire(keys, 'owner-1', 10_000), true);
    assert.deepEqual(
      await Promise.all(keys.map((key) => client.get(key))),
      keys.map(() => 'owner-1'),
    );
    assert.equal(await locks.multi.acquire([keys[3], 'lock:bank:e'], 'owner-2', 10_000), false);
    assert.equal(await client.exists('lock:bank:e'), 0, 'given back: no partial hold');
    assert.equal(await locks.multi.release(keys, 'owner-1'), 4);
  });

  test('multi-key locks across slots under contention: no deadlock, no partial hold, no two holders of a key', async (t) => {
    const keys = ['lock:bank:a', 'lock:bank:b', 'lock:bank:c', 'lock:bank:d', 'lock:{bank}:e', 'lock:{bank}:f'];
    const { transfers, tried } = await provesAllOrNothing(() => cluster.client(), keys);
    t.diagnostic(
      `${transfers} transfers across ${new Set(keys.map(keySlot)).size} slots, ${tried} try-locks took none`,
    );
  });

  test('load() and loaded() cover every master', async () => {
    const none = Object.fromEntries(SCRIPT_NAMES.map((name) => [name, false]));
    const all = Object.fromEntries(SCRIPT_NAMES.map((name) => [name, true]));
    await Promise.all(client.nodes('master').map((node) => node.script('FLUSH')));
    assert.deepEqual(await locks.loaded(), none);
    await locks.load();
    assert.deepEqual(await locks.loaded(), all);
    for (const node of client.nodes('master')) {
      assert.deepEqual(await node.script('EXISTS', locks.pack.acquire.sha1), [1]);
    }
  });
}

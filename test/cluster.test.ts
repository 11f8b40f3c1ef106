// The pack on a real Redis Cluster: 3 masters + 3 replicas, redis-server processes on loopback.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Cluster } from 'ioredis';
import { LockScripts } from '../pack/runtime';
import { startCluster, type RedisCluster, type RedisServer } from './harness/redis';

let cluster: RedisCluster;
let client: Cluster;
let locks: LockScripts;

before(async () => {
  cluster = await startCluster({ replicas: 1 });
  client = await cluster.client();
  locks = new LockScripts(client);
});

after(async () => {
  client?.disconnect();
  await cluster?.stop();
});

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
    const master = ownerOf(await client.cluster('KEYSLOT', tag));
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
  assert.notEqual(await client.cluster('KEYSLOT', lock), await client.cluster('KEYSLOT', { fence }));
  await assert.rejects(locks.acquire(lock, 'owner-1', 10_000, { fence }), /CROSSSLOT/);
  assert.equal(await client.exists(lock), 0);
  assert.equal(await client.exists(fence), 0);
});

test('load() and loaded() cover every master', async () => {
  await Promise.all(client.nodes('master').map((node) => node.script('FLUSH')));
  assert.deepEqual(await locks.loaded(), { acquire: false, release: false, extend: false });
  await locks.load();
  assert.deepEqual(await locks.loaded(), { acquire: true, release: true, extend: true });
  for (const node of client.nodes('master')) {
    assert.deepEqual(await node.script('EXISTS', locks.pack.acquire.sha1), [1]);
  }
});

// The Locks and Scripts views' logic on a real Redis Cluster (3 masters + 3 replicas on
// loopback), through the extension's Session over redis-cluster://: every master scanned and
// merged, scripts per master, live updates from every master, and a CLUSTER FAILOVER.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Cluster, Redis } from 'ioredis';
import { Session } from '../extension/src/connections/session';
import { LockMonitor } from '../extension/src/locks/monitor';
import { loadPack, SCRIPT_NAMES } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { startCluster, type RedisCluster, type RedisServer } from '../harness/redis';
import { commandCalls, sleep, waitFor } from './helpers';

const pack = loadPack();
const LOCKS_PER_MASTER = 10;

let cluster: RedisCluster;
let admin: Cluster;
let session: Session;
let monitor: LockMonitor;
/** Per master, the hash tag its locks use. */
const tags = new Map<RedisServer, string>();
const allKeys: string[] = [];

before(async () => {
  cluster = await startCluster({ replicas: 1 });
  admin = await cluster.client();
  const slots = (await admin.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
  for (let n = 0; tags.size < cluster.masters.length; n++) {
    const slot = await admin.cluster('KEYSLOT', `job:${n}`);
    const [, , [, port]] = slots.find(([from, to]) => slot >= from && slot <= to)!;
    const master = cluster.masters.find((each) => each.port === port)!;
    if (!tags.has(master)) tags.set(master, `job:${n}`);
  }
  for (const tag of tags.values()) {
    for (let i = 0; i < LOCKS_PER_MASTER; i++) {
      const key = `lock:{${tag}}:${i}`;
      await admin.set(key, `worker-${i}:${tag}`, 'PX', 600_000);
      allKeys.push(key);
    }
  }
  // Two seeds are enough: ioredis learns the rest from CLUSTER SLOTS.
  const url = `redis-cluster://127.0.0.1:${cluster.masters[0].port},127.0.0.1:${cluster.masters[1].port}`;
  session = new Session({ id: 'c', name: 'cluster', url }, undefined);
  await session.connect();
  monitor = new LockMonitor(session, () => ({ patterns: ['lock:*'], limit: 500, intervalMs: 2000 }));
});

after(async () => {
  monitor?.dispose();
  session?.dispose();
  admin?.disconnect();
  await cluster?.stop();
});

const listed = () =>
  monitor
    .snapshot()
    .locks.map((lock) => lock.key.toString())
    .sort();

test('a redis-cluster:// connection reports the cluster and its masters', () => {
  assert.equal(session.state.kind, 'connected');
  if (session.state.kind !== 'connected') return;
  assert.equal(session.state.role, 'cluster of 3 masters');
  assert.deepEqual(session.state.masters, cluster.masters.map((master) => `127.0.0.1:${master.port}`).sort());
});

test('the Locks view scans every master and merges; Load more lists more from every master without duplicates', async () => {
  await monitor.refresh();
  assert.deepEqual(listed(), [...allKeys].sort(), "every master's locks");

  const paged = new LockMonitor(session, () => ({ patterns: ['lock:*'], limit: 12, intervalMs: 2000 }));
  try {
    await paged.refresh();
    assert.equal(paged.snapshot().locks.length, 12);
    const firstPageMasters = new Set(
      paged.snapshot().locks.map((lock) => /\{(job:\d+)\}/.exec(lock.key.toString())![1]),
    );
    assert.equal(firstPageMasters.size, 3, 'a page takes from every master in turn');
    assert.ok(paged.snapshot().more, 'more to load');
    await paged.loadMore();
    assert.equal(paged.snapshot().locks.length, 24);
    await paged.loadMore();
    assert.equal(paged.snapshot().more, false, 'scanned through');
    assert.deepEqual(
      paged
        .snapshot()
        .locks.map((lock) => lock.key.toString())
        .sort(),
      [...allKeys].sort(),
      'each lock exactly once',
    );
  } finally {
    paged.dispose();
  }
});

test('Load Lock Scripts loads on every master; the Scripts view reads each master', async () => {
  const scripts = new LockScripts(session.redis, pack);
  for (const node of session.masters()) await node.script('FLUSH');
  const before = await scripts.loadedByMaster();
  assert.equal(before.size, 3);
  for (const flags of before.values()) assert.ok(SCRIPT_NAMES.every((name) => !flags[name]));
  assert.deepEqual(await scripts.loadWhereMissing(), [], 'a pack never loaded is not loaded unasked');

  await scripts.load();
  for (const [master, flags] of await scripts.loadedByMaster())
    assert.ok(
      SCRIPT_NAMES.every((name) => flags[name]),
      master,
    );
  // Release through the cluster client runs on the master owning each key.
  for (const tag of tags.values()) assert.equal(await scripts.release(`lock:{${tag}}:0`, `worker-0:${tag}`), true);
  for (const tag of tags.values()) await admin.set(`lock:{${tag}}:0`, `worker-0:${tag}`, 'PX', 600_000);
});

test('keyspace notifications from every master update the listing', async () => {
  await monitor.refresh();
  assert.equal((await monitor.enableNotifications()).kind, 'notifications');
  for (const node of cluster.nodes) {
    const client = node.client();
    const [, flags] = (await client.config('GET', 'notify-keyspace-events')) as string[];
    client.disconnect();
    assert.match(flags, /K/, `set on ${node.port}, replicas too, so a promoted replica keeps publishing`);
  }
  for (const tag of tags.values()) await admin.set(`lock:{${tag}}:live`, 'worker:live', 'PX', 600_000);
  await waitFor('a new lock on each master', () =>
    [...tags.values()].every((tag) => listed().includes(`lock:{${tag}}:live`)),
  );
  for (const tag of tags.values()) await admin.del(`lock:{${tag}}:live`);
  await waitFor('their deletion', () => listed().length === allKeys.length);
  monitor.stopLive();
});

test('each master keeps its own scan schedule: a big keyspace on one does not slow the scans of the others', async () => {
  const [big, ...small] = cluster.masters;
  const bigTag = tags.get(big)!;
  const filler = (i: number) => `{${bigTag}}:filler:${i}`;
  for (let from = 0; from < 300_000; from += 10_000) {
    const pipe = admin.pipeline();
    for (let i = from; i < from + 10_000; i++) pipe.set(filler(i), 'x');
    await pipe.exec();
  }
  const scheduled = new LockMonitor(session, () => ({ patterns: ['lock:*'], limit: 500, intervalMs: 1000 }));
  const clients = new Map(cluster.masters.map((master) => [master, master.client()]));
  const scans = async () =>
    new Map(
      await Promise.all(
        [...clients].map(async ([master, client]) => [master, await commandCalls(client, 'scan')] as const),
      ),
    );
  try {
    await scheduled.refresh();
    assert.equal(scheduled.snapshot().locks.length, allKeys.length);
    const before = await scans();
    const due = (master: RedisServer) =>
      scheduled.snapshot().nodes.find((node) => node.name === `127.0.0.1:${master.port}`)!.nextScanAt!;
    // Until every small master is due, then one tick: whatever each scan took, the big one is not due yet.
    await sleep(Math.max(...small.map(due)) - Date.now() + 10);
    assert.ok(due(big) > Date.now(), 'the big master is scheduled later than the small ones');
    await scheduled.tick();
    const after = await scans();
    for (const master of small) assert.ok(after.get(master)! > before.get(master)!, `${master.port} scanned again`);
    assert.equal(after.get(big), before.get(big), 'the big master waits for its own, longer schedule');
  } finally {
    scheduled.dispose();
    for (const client of clients.values()) client.disconnect();
    for (let from = 0; from < 300_000; from += 10_000) {
      const pipe = admin.pipeline();
      for (let i = from; i < from + 10_000; i++) pipe.unlink(filler(i));
      await pipe.exec();
    }
  }
});

test('CLUSTER FAILOVER on a replica: the masters change, every lock is listed again, the scripts are reloaded where missing', async () => {
  const scripts = new LockScripts(session.redis, pack);
  const [oldMaster] = cluster.masters;
  const replica = await replicaOf(oldMaster);
  const reloaded: string[][] = [];
  const changed = new Promise<readonly string[]>((resolve) => session.onDidChangeMasters(resolve));
  session.onDidChangeMasters(() => void scripts.loadWhereMissing().then((masters) => reloaded.push(masters)));

  const client = replica.client();
  try {
    assert.equal(await client.cluster('FAILOVER'), 'OK');
    await waitFor('the replica to take over', async () => (await client.role())[0] === 'master', 15_000);
  } finally {
    client.disconnect();
  }
  // The view learns it by itself: the slot map is re-read on MOVED and every 5 s.
  const masters = await Promise.race([
    changed,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('masters never changed')), 15_000)),
  ]);
  assert.ok(masters.includes(`127.0.0.1:${replica.port}`), `new master listed: ${masters.join(', ')}`);
  assert.ok(!masters.includes(`127.0.0.1:${oldMaster.port}`), 'old master gone');

  await monitor.refresh(true);
  assert.deepEqual(listed(), [...allKeys].sort(), 'every lock, read from the new master');

  await waitFor('the reload after the failover', () => reloaded.length > 0, 10_000);
  assert.deepEqual(reloaded[0], [`127.0.0.1:${replica.port}`], 'loaded where missing: only on the promoted replica');
  for (const [master, flags] of await scripts.loadedByMaster())
    assert.ok(
      SCRIPT_NAMES.every((name) => flags[name]),
      master,
    );
});

/** The replica of `master`, from CLUSTER REPLICAS. */
async function replicaOf(master: RedisServer): Promise<RedisServer> {
  const client: Redis = master.client();
  try {
    const id = await client.cluster('MYID');
    const lines = (await client.call('CLUSTER', 'REPLICAS', id)) as string[];
    const port = Number(/:(\d+)@/.exec(lines[0])![1]);
    return cluster.replicas.find((replica) => replica.port === port)!;
  } finally {
    client.disconnect();
  }
}

// The Locks view's logic over redis-sentinel://: a master and a replica watched by a real
// Sentinel (redis-server --sentinel) on loopback. After a failover the session follows the new
// master by itself, and the listing is read from it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type Redis from 'ioredis';
import { Session, type SessionState } from '../extension/src/connections/session';
import { LockMonitor } from '../extension/src/locks/monitor';
import { startSentinelGroup, type SentinelGroup } from '../harness/sentinel';
import { waitFor } from './helpers';

let group: SentinelGroup;
let session: Session;
let monitor: LockMonitor;
let writer: Redis;
const KEYS = Array.from({ length: 20 }, (_, i) => `lock:report:${i}`);

before(async () => {
  group = await startSentinelGroup();
  writer = group.servers[0].client();
  for (const key of KEYS) await writer.set(key, `worker:${key}`, 'PX', 600_000);
  assert.equal(await writer.wait(1, 2000), 1, 'replicated before any failover');
  const sentinels = group.sentinels.map(({ host, port }) => `${host}:${port}`).join(',');
  session = new Session(
    { id: 's', name: 'sentinel', url: `redis-sentinel://${sentinels}/0#${group.masterName}` },
    undefined,
  );
  await session.connect();
  monitor = new LockMonitor(session, () => ({ patterns: ['lock:*'], limit: 500, intervalMs: 2000 }));
});

after(async () => {
  monitor?.dispose();
  session?.dispose();
  writer?.disconnect();
  await group?.stop();
});

const listed = () =>
  monitor
    .snapshot()
    .locks.map((lock) => lock.key.toString())
    .sort();

test('a redis-sentinel:// connection asks the sentinels for the master and says which it is', async () => {
  const { state } = session;
  assert.equal(state.kind, 'connected');
  assert.equal(state.kind === 'connected' && state.role, `master 127.0.0.1:${group.servers[0].port} via Sentinel`);
  await monitor.refresh();
  assert.deepEqual(listed(), [...KEYS].sort());
});

test('a wrong master name, no sentinel, or a URL of the wrong kind fails with a message that says what to use', async () => {
  const sentinel = `${group.sentinels[0].host}:${group.sentinels[0].port}`;
  const cases: [string, RegExp][] = [
    [`redis-sentinel://${sentinel}/0#nosuchmaster`, /monitor no master by that name: check the name after '#'/],
    ['redis-sentinel://127.0.0.1:1/0#locksmith', /No sentinel answered at .*: check the addresses and ports/],
    [`redis://${sentinel}/0`, /is a Sentinel, not a data node: use redis-sentinel:\/\//],
    [
      `redis-cluster://127.0.0.1:${group.servers[0].port}`,
      /is not a Redis Cluster \(cluster support disabled\): use redis:\/\//,
    ],
    ['redis-cluster://127.0.0.1:1', /No seed node answered at redis-cluster:\/\/127\.0\.0\.1:1/],
  ];
  for (const [url, message] of cases) {
    const wrong = new Session({ id: 'w', name: 'wrong', url }, undefined);
    try {
      await assert.rejects(wrong.connect(), message, url);
      assert.equal(wrong.state.kind, 'error');
    } finally {
      wrong.dispose();
    }
  }
});

test('after a failover the session follows the new master and the view lists its locks', async () => {
  const states: SessionState[] = [];
  session.onDidChange((state) => states.push(state));
  const mastersChanged = new Promise<readonly string[]>((resolve) => session.onDidChangeMasters(resolve));
  const newPort = await group.failover();
  assert.equal(newPort, group.servers[1].port);

  await waitFor(
    'the session on the new master',
    () => session.state.kind === 'connected' && session.state.role.includes(`:${newPort} `),
    20_000,
  );
  assert.ok(
    states.some((state) => state.kind === 'reconnecting'),
    `went through reconnecting: ${states.map((state) => state.kind).join(', ')}`,
  );
  assert.deepEqual(await mastersChanged, [`127.0.0.1:${newPort}`]);

  await monitor.refresh(true);
  assert.deepEqual(listed(), [...KEYS].sort(), 'the replicated locks, read from the new master');
  // Writes go to the new master too: the view's Release runs there.
  await session.redis.set('lock:after-failover', 'worker:new', 'PX', 600_000);
  await monitor.refresh(true);
  assert.ok(listed().includes('lock:after-failover'));
});

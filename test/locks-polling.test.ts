// The Locks view's polling against a real redis-server: listed locks re-read on every tick at
// O(locks), full scans for new keys on a schedule derived from how long the last one took, an
// explicit refresh that scans at once, and SCAN steps sized so that none is slow.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { DEFAULT_LOCK_PATTERNS, discoverLocks } from '../extension/src/locks/discovery';
import type { MonitorSource } from '../extension/src/locks/keyspaceEvents';
import { LockMonitor, type MonitorSettings } from '../extension/src/locks/monitor';
import { FIRST_SCAN_COUNT, ScanPacer } from '../extension/src/locks/schedule';
import { commandCalls, sleep, useRedis, waitFor } from './helpers';

const fx = useRedis();

/** The monitor's view of one plain server. */
const source = (redis: Redis): MonitorSource => ({
  db: 0,
  masters: () => [redis],
  nodeName: () => 'server',
  onEveryNode: (action) => Promise.all([action(redis)]),
});

const keys = (monitor: LockMonitor) =>
  monitor
    .snapshot()
    .locks.map((lock) => lock.key.toString())
    .sort();

function monitorOf(settings: Partial<MonitorSettings> = {}): LockMonitor {
  const full: MonitorSettings = { patterns: DEFAULT_LOCK_PATTERNS, limit: 500, intervalMs: 1000, ...settings };
  return new LockMonitor(source(fx.redis), () => full);
}

/** The interval the last full scan set: when the next one is due after it. */
function scanInterval(monitor: LockMonitor): number {
  const { scannedAt, nextScanAt } = monitor.snapshot();
  assert.ok(scannedAt > 0 && nextScanAt !== undefined, 'a full scan happened');
  return nextScanAt - scannedAt;
}

beforeEach(async () => {
  await fx.redis.flushall();
});

describe('the scan schedule', () => {
  test('backs off on a big keyspace and comes back to the refresh interval on a small one', async () => {
    await fx.redis.call('DEBUG', 'POPULATE', '300000', 'filler');
    await fx.redis.set('lock:a', 'api-1:1:aaaaaaaa', 'PX', 60_000);
    const monitor = monitorOf();
    try {
      await monitor.refresh();
      assert.deepEqual(keys(monitor), ['lock:a']);
      // 300,000 keys take tens of ms to scan: 50 times that is well beyond the 1 s refresh interval.
      assert.ok(scanInterval(monitor) > 2000, `next scan after ${scanInterval(monitor)} ms`);

      await fx.redis.flushall();
      await fx.redis.set('lock:b', 'api-1:1:bbbbbbbb', 'PX', 60_000);
      await monitor.refresh(true);
      assert.deepEqual(keys(monitor), ['lock:b']);
      assert.equal(scanInterval(monitor), 1000, 'never more often than the refresh interval');
    } finally {
      monitor.dispose();
    }
  });

  test('between scans each tick re-reads only the listed locks: new owners and TTLs show, deleted ones go, no SCAN', async () => {
    await fx.redis.call('DEBUG', 'POPULATE', '300000', 'filler');
    await fx.redis.set('lock:a', 'api-1:1:aaaaaaaa', 'PX', 60_000);
    await fx.redis.set('lock:b', 'api-1:1:bbbbbbbb', 'PX', 60_000);
    const monitor = monitorOf();
    try {
      await monitor.refresh();
      const scans = await commandCalls(fx.redis, 'scan');
      await fx.redis.set('lock:a', 'api-2:2:cccccccc', 'PX', 5_000);
      await fx.redis.del('lock:b');
      await fx.redis.set('lock:new', 'api-3:3:dddddddd', 'PX', 60_000);
      await monitor.tick();
      const [a, ...rest] = monitor.snapshot().locks;
      assert.equal(rest.length, 0, 'lock:b gone, lock:new not scanned for yet');
      assert.equal(a.kind === 'token' && a.owner, 'api-2#2');
      assert.ok(a.pttl <= 5_000);
      assert.equal(await commandCalls(fx.redis, 'scan'), scans, 'a tick sends no SCAN');
    } finally {
      monitor.dispose();
    }
  });

  test('a lock created between scans appears at the next scheduled scan, not before', async () => {
    await fx.redis.set('lock:a', 'api-1:1:aaaaaaaa', 'PX', 60_000);
    const monitor = monitorOf({ intervalMs: 1000 });
    try {
      await monitor.refresh();
      await fx.redis.set('lock:new', 'api-3:3:dddddddd', 'PX', 60_000);
      await monitor.tick();
      assert.deepEqual(keys(monitor), ['lock:a'], 'the scan is not due yet');
      await sleep(monitor.snapshot().nextScanAt! - Date.now() + 10);
      await monitor.tick();
      assert.deepEqual(keys(monitor), ['lock:a', 'lock:new']);
    } finally {
      monitor.dispose();
    }
  });

  test('an explicit refresh scans at once, whatever the schedule', async () => {
    await fx.redis.call('DEBUG', 'POPULATE', '300000', 'filler');
    const monitor = monitorOf();
    try {
      await monitor.refresh();
      assert.deepEqual(keys(monitor), []);
      await fx.redis.set('lock:new', 'api-3:3:dddddddd', 'PX', 60_000);
      await monitor.tick();
      assert.deepEqual(keys(monitor), [], 'the next scheduled scan is far off');
      await monitor.refresh(true);
      assert.deepEqual(keys(monitor), ['lock:new']);
    } finally {
      monitor.dispose();
    }
  });
});

describe('SCAN steps', () => {
  test('a slow step lowers COUNT for the next ones, and COUNT never grows while steps stay slow', async () => {
    // Long key names make MATCH expensive per key: at COUNT 100 a step keeps the server busy for ms.
    const long = 'a'.repeat(20_000);
    const pipe = fx.redis.pipeline();
    for (let i = 0; i < 3000; i++) pipe.set(`${i}:${long}`, '1');
    pipe.set(`${long}:b`, 'api-1:1:aaaaaaaa');
    await pipe.exec();
    // Every SCAN the page sends, with its COUNT, as the server saw it.
    const monitor = await fx.redis.monitor();
    const counts: number[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'scan') counts.push(Number(args[args.indexOf('COUNT') + 1]));
    });
    try {
      const pacer = new ScanPacer();
      const page = await discoverLocks(fx.redis, { patterns: ['*a*b'], limit: Infinity, pacer });
      assert.equal(page.entries.length, 1, 'every matching key found');
      assert.ok(pacer.count < FIRST_SCAN_COUNT, `COUNT lowered to ${pacer.count}`);
      await waitFor(
        'the monitor to see the last SCAN',
        () => (counts.length > 0 && counts.at(-1) === pacer.count) || counts.length > 3,
      );
      assert.equal(counts[0], FIRST_SCAN_COUNT, 'a node is first scanned with a small COUNT');
      assert.ok(Math.max(...counts) <= FIRST_SCAN_COUNT, `COUNTs used: ${counts.join(', ')}`);
      assert.ok(
        counts.some((count) => count < FIRST_SCAN_COUNT),
        'lowered after a slow step',
      );
    } finally {
      monitor.disconnect();
    }
  });
});

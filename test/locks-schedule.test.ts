// The pure parts of the Locks view's polling: the scan schedule, SCAN step sizing, the merge of
// per-node listings, the bounds on the view's settings and the freshness line of the tooltip.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LockEntry } from '../extension/src/locks/classify';
import { mergeListings } from '../extension/src/locks/monitor';
import { describeFreshness } from '../extension/src/locks/present';
import {
  FIRST_SCAN_COUNT,
  MAX_SCAN_COUNT,
  MAX_SCAN_INTERVAL_MS,
  MIN_SCAN_COUNT,
  SCAN_BUDGET,
  ScanPacer,
  ScanSchedule,
} from '../extension/src/locks/schedule';
import { LOCKS_BOUNDS, readLocksSettings } from '../extension/src/settings';

describe('ScanSchedule', () => {
  test('a first scan is due at once; after one, the next waits duration / budget', () => {
    const schedule = new ScanSchedule();
    assert.equal(schedule.due(0), true);
    schedule.record(700, 10_000, 2000);
    assert.equal(schedule.nextAt, 10_000 + 700 / SCAN_BUDGET);
    assert.equal(schedule.due(10_000 + 34_999), false);
    assert.equal(schedule.due(10_000 + 35_000), true);
  });

  test('never sooner than the refresh interval, never later than the upper bound', () => {
    const schedule = new ScanSchedule();
    schedule.record(1, 0, 2000);
    assert.equal(schedule.nextAt, 2000);
    schedule.record(60_000, 0, 2000);
    assert.equal(schedule.nextAt, MAX_SCAN_INTERVAL_MS);
  });
});

describe('ScanPacer', () => {
  test('starts small, grows on fast steps up to the maximum', () => {
    const pacer = new ScanPacer();
    assert.equal(pacer.count, FIRST_SCAN_COUNT);
    for (let i = 0; i < 20; i++) pacer.record(0.2);
    assert.equal(pacer.count, MAX_SCAN_COUNT);
  });

  test('halves on slow steps down to the minimum; the round trip is not counted as server time', () => {
    const pacer = new ScanPacer();
    pacer.recordRoundTrip(30);
    pacer.record(30.5);
    assert.ok(pacer.count > FIRST_SCAN_COUNT, 'a distant but idle server is not slow');
    const grown = pacer.count;
    pacer.record(40);
    assert.equal(pacer.count, Math.floor(grown / 2));
    for (let i = 0; i < 20; i++) pacer.record(80);
    assert.equal(pacer.count, MIN_SCAN_COUNT);
  });
});

describe('mergeListings', () => {
  const lock = (key: string) => ({ key: Buffer.from(key) }) as LockEntry;
  const names = (locks: readonly LockEntry[]) => locks.map((entry) => entry.key.toString());

  test('takes from every node in turn, up to the page size; more when cut or a node has more', () => {
    const a = { locks: ['a1', 'a2', 'a3'].map(lock), more: false };
    const b = { locks: ['b1'].map(lock), more: false };
    assert.deepEqual(names(mergeListings([a, b], 3).locks), ['a1', 'b1', 'a2']);
    assert.equal(mergeListings([a, b], 3).more, true);
    assert.equal(mergeListings([a, b], 10).more, false);
    assert.equal(mergeListings([a, { ...b, more: true }], 10).more, true);
    assert.deepEqual(names(mergeListings([a], 2).locks), ['a1', 'a2']);
  });
});

describe('the Locks view settings, bounded whoever set them', () => {
  test('defaults, floors and caps', () => {
    assert.deepEqual(readLocksSettings({}), {
      patterns: readLocksSettings({ lockPatterns: [] }).patterns,
      limit: 500,
      intervalMs: 2000,
    });
    const bounded = readLocksSettings({ refreshInterval: 0.01, maxLocksPerConnection: 1e9, lockPatterns: ['x:*', 7] });
    assert.equal(bounded.intervalMs, LOCKS_BOUNDS.minIntervalMs);
    assert.equal(bounded.limit, LOCKS_BOUNDS.maxLimit);
    assert.deepEqual(bounded.patterns, ['x:*']);
    assert.equal(readLocksSettings({ maxLocksPerConnection: 1 }).limit, LOCKS_BOUNDS.minLimit);
    assert.equal(readLocksSettings({ refreshInterval: Number.NaN }).intervalMs, 2000);
  });

  test('at most 16 patterns of at most 256 bytes, duplicates dropped', () => {
    const many = Array.from({ length: 40 }, (_, i) => `p${i}:*`);
    assert.equal(readLocksSettings({ lockPatterns: many }).patterns.length, LOCKS_BOUNDS.maxPatterns);
    assert.deepEqual(readLocksSettings({ lockPatterns: ['a:*', 'a:*', 'x'.repeat(300)] }).patterns, ['a:*']);
  });
});

describe("the connection tooltip's freshness line", () => {
  const polling = { kind: 'polling', reason: 'no notifications' } as const;

  test('polling: when the keys were scanned, when the next scan is, and that TTLs are live', () => {
    const line = describeFreshness({ live: polling, scannedAt: 60_000, nextScanAt: 95_000 }, 100_000, true, 2000);
    assert.match(line, /^keys scanned 40 s ago, next scan in 0\.0 s; TTLs live \(re-read every 2 s\)/);
    assert.match(
      describeFreshness({ live: polling, scannedAt: 60_000, nextScanAt: 130_000 }, 100_000, true, 2000),
      /next scan in 30 s/,
    );
  });

  test('live and hidden views say so', () => {
    assert.match(describeFreshness({ live: { kind: 'notifications' }, scannedAt: 0 }, 0, true, 2000), /^Live/);
    assert.match(describeFreshness({ live: polling, scannedAt: 0 }, 0, false, 2000), /hidden/);
  });
});

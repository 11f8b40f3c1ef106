// The lock history from a real redis-server: holds begin, extend and end as the pack's scripts
// and other clients act, read from keyspace notifications (exact) or from successive reads
// (approximate); a SIGKILLed holder's hold ends as expired; memory stays bounded; groups and
// their stats; export as JSON and CSV.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import type { LockEntry } from '../extension/src/locks/classify';
import { groupOf, groupStats, keyShape } from '../extension/src/locks/groups';
import { LockHistory, type Hold } from '../extension/src/locks/history';
import { historyCsv, historyJson } from '../extension/src/locks/historyExport';
import type { MonitorSource } from '../extension/src/locks/keyspaceEvents';
import { LockMonitor } from '../extension/src/locks/monitor';
import { sleep, useRedis, waitFor } from './helpers';

const fx = useRedis();
const KEY = 'lock:{report:7}';

const source = (redis: Redis): MonitorSource => ({
  db: 0,
  masters: () => [redis],
  nodeName: () => 'server',
  onEveryNode: (action) => Promise.all([action(redis)]),
});

/** A token lock as a read saw it at `at`, with `pttl` left. */
const entry = (key: string, token: string, at: number, pttl = 1000): LockEntry => ({
  kind: 'token',
  key: Buffer.from(key),
  token: Buffer.from(token),
  owner: token.split(':').slice(0, 2).join('#'),
  type: 'string',
  pttl,
  readAt: at,
  value: { type: 'string', head: Buffer.from(token), length: token.length },
});

let history: LockHistory;
let monitor: LockMonitor;

function watch(intervalMs = 1000): void {
  history = new LockHistory(10_000);
  monitor = new LockMonitor(
    source(fx.redis),
    () => ({ patterns: ['lock:*'], limit: 500, intervalMs }),
    () => {},
    {
      observing: (how, at) => history.observe(how, at),
      events: (events, read) => history.observeEvents(events, read),
      reads: (locks, gone, at) => history.observeReads(locks, gone, at),
    },
  );
}

const ends = () => history.holds().map((hold) => `${hold.token}:${hold.end ?? 'holding'}`);

beforeEach(async () => {
  await fx.redis.flushall();
});

afterEach(() => monitor?.dispose());

describe('from keyspace notifications', () => {
  beforeEach(async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'K$gxh');
    watch();
    await monitor.refresh();
    assert.equal((await monitor.startLive()).kind, 'notifications');
  });

  test('released, expired, overwritten and forced holds, and extensions, each as it happened', async () => {
    await fx.locks.acquire(KEY, 'a:1:released', 10_000);
    await waitFor('a begins', () => ends().join() === 'a:1:released:holding');
    await fx.locks.extend(KEY, 'a:1:released', 20_000);
    await fx.locks.release(KEY, 'a:1:released');
    await fx.locks.acquire(KEY, 'b:2:expires', 150);
    await waitFor('b expires', () => ends().includes('b:2:expires:expired'), 5_000);
    await fx.locks.acquire(KEY, 'c:3:overwritten', 10_000);
    await waitFor('c begins', () => ends().includes('c:3:overwritten:holding'));
    await fx.redis.set(KEY, 'd:4:forced', 'PX', 10_000);
    await waitFor('d begins', () => ends().includes('d:4:forced:holding'));
    history.markForced(Buffer.from(KEY), Buffer.from('d:4:forced'), Date.now());
    await fx.locks.release(KEY, 'd:4:forced');
    await waitFor('d ends', () => ends().includes('d:4:forced:forced'));

    assert.deepEqual(ends(), [
      'a:1:released:released',
      'b:2:expires:expired',
      'c:3:overwritten:overwritten',
      'd:4:forced:forced',
    ]);
    const [a] = history.holds();
    assert.equal(a.extensions.length, 1, 'the extend');
    assert.equal(a.owner, 'a#1');
    assert.ok(history.holds().every((hold) => !hold.approximate));
    assert.ok(history.holds().every((hold) => hold.to! >= hold.from));
  });

  test('a release and an immediate re-acquire by a waiter are two holds, not an overwrite', async () => {
    await fx.locks.acquire(KEY, 'a:1:first', 10_000);
    await waitFor('a begins', () => ends().length === 1);
    await fx.locks.release(KEY, 'a:1:first');
    await fx.locks.acquire(KEY, 'b:2:next', 10_000);
    await waitFor('b begins', () => ends().includes('b:2:next:holding'));
    assert.deepEqual(ends(), ['a:1:first:released', 'b:2:next:holding']);
  });

  test("a SIGKILLed holder's hold ends as expired: the lease ran out", async () => {
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/holder.ts', fx.server.url, 'plain', KEY, 'doomed:9:holder', '300'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await once(holder.stdout, 'data')) as [Buffer];
      assert.equal(String(line).trim(), 'holding');
      holder.kill('SIGKILL');
      await waitFor('the lease to run out', () => ends().includes('doomed:9:holder:expired'), 5_000);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('from successive reads (no notifications)', () => {
  beforeEach(async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', '');
    watch();
    assert.equal((await monitor.startLive()).kind, 'polling');
  });

  test('holds begin and end between reads, marked approximate; a lease that ran out reads as expired', async () => {
    await fx.locks.acquire(KEY, 'a:1:released', 10_000);
    await monitor.refresh();
    await fx.locks.release(KEY, 'a:1:released');
    await monitor.tick();
    await fx.locks.acquire(KEY, 'b:2:expires', 200);
    await monitor.refresh(true);
    await sleep(400);
    await monitor.tick();
    await monitor.refresh(true);
    assert.deepEqual(ends(), ['a:1:released:released', 'b:2:expires:expired']);
    assert.ok(history.holds().every((hold) => hold.approximate));
  });

  test('waiters counted by the reads become waiter samples', async () => {
    await fx.locks.acquire(KEY, 'a:1:holder', 30_000);
    await monitor.refresh();
    const waiting = fx.locks.acquire(KEY, 'b:2:waiter', 30_000, { waitMs: 10_000 });
    await waitFor('one waiter counted', async () => {
      await monitor.tick();
      return history.waiterSamples()[0]?.samples.at(-1)?.[1] === 1;
    });
    await fx.locks.release(KEY, 'a:1:holder');
    assert.equal(await waiting, 1);
    await waitFor('nobody waiting', async () => {
      await monitor.tick();
      return history.waiterSamples()[0]?.samples.at(-1)?.[1] === 0;
    });
    assert.equal(history.waiterSamples()[0].key, KEY);
  });

  test('a lease extended between two reads counts as an extension', async () => {
    await fx.locks.acquire(KEY, 'a:1:long', 2_000);
    await monitor.refresh();
    await fx.locks.extend(KEY, 'a:1:long', 60_000);
    await monitor.tick();
    assert.equal(history.holds()[0].extensions.length, 1);
  });
});

describe('what nobody observed', () => {
  const key = Buffer.from(KEY);
  const read = (history: LockHistory, at: number, ...locks: LockEntry[]) =>
    history.observeReads(locks, locks.length ? [] : [key], at);
  const summary = (history: LockHistory) =>
    history
      .holds()
      .map((hold) => [hold.token, hold.from, hold.to ?? null, hold.end ?? 'holding', hold.startUnseen ?? null]);

  test('while nothing observes, nothing is recorded', () => {
    const local = new LockHistory(1000);
    read(local, 1000, entry(KEY, 'a:1:x', 1000));
    local.observeEvents([{ key, event: 'set', at: 1100 }], new Map([[KEY, entry(KEY, 'a:1:x', 1100)]]));
    assert.deepEqual(local.holds(), []);
    assert.deepEqual(local.gaps(), []);
  });

  test('a gap is a gap: the hold open when observation stopped ends unobserved, the holder found after it began unseen, nothing expired', () => {
    const local = new LockHistory(1000);
    local.observe({ kind: 'events' }, 0);
    read(local, 10, entry(KEY, 'a:1:x', 10, 3_000));
    local.observe({ kind: 'none', reason: 'the Locks view was hidden' }, 2_000);
    // Three minutes later, a lease of 3 s long run out: another holder, or the same token again.
    local.observe({ kind: 'events' }, 180_000);
    read(local, 180_010, entry(KEY, 'b:2:y', 180_010, 3_000));
    assert.deepEqual(summary(local), [
      ['a:1:x', 10, 2_000, 'unobserved', { gapFrom: undefined }],
      ['b:2:y', 180_010, null, 'holding', { gapFrom: 2_000 }],
    ]);
    assert.deepEqual(local.gaps(), [{ from: 2_000, to: 180_000, reason: 'the Locks view was hidden' }]);
  });

  test('reads that stop for longer than the lease leave a gap, not an expiry; a change of holder between contiguous reads is still placed at the read', () => {
    const local = new LockHistory(1000);
    local.observe({ kind: 'reads', everyMs: 2_000 }, 0);
    read(local, 0, entry(KEY, 'a:1:x', 0, 3_000));
    read(local, 2_000, entry(KEY, 'a:1:x', 2_000, 3_000));
    // No read for a minute (the machine slept): the holder changed in between.
    read(local, 62_000, entry(KEY, 'b:2:y', 62_000, 3_000));
    read(local, 64_000, entry(KEY, 'c:3:z', 64_000, 3_000));
    assert.deepEqual(summary(local), [
      ['a:1:x', 0, 2_000, 'unobserved', { gapFrom: undefined }],
      ['b:2:y', 62_000, 64_000, 'released', { gapFrom: 2_000 }],
      ['c:3:z', 64_000, null, 'holding', null],
    ]);
    assert.equal(local.gaps().length, 1);
    assert.equal(local.gaps()[0].from, 2_000);
    assert.equal(local.gaps()[0].to, 62_000);
    assert.match(local.gaps()[0].reason, /no read for 1 min/);
  });

  test('between contiguous reads, a key seen gone after its lease ran out expired (approximate)', () => {
    const local = new LockHistory(1000);
    local.observe({ kind: 'reads', everyMs: 2_000 }, 0);
    read(local, 0, entry(KEY, 'a:1:x', 0, 1_500));
    read(local, 2_000);
    assert.deepEqual(summary(local), [['a:1:x', 0, 2_000, 'expired', { gapFrom: undefined }]]);
    assert.ok(local.holds()[0].approximate);
  });

  test('with notifications, reads never end a hold: only events do', () => {
    const local = new LockHistory(1000);
    local.observe({ kind: 'events' }, 0);
    read(local, 10, entry(KEY, 'a:1:x', 10, 1_000));
    read(local, 5_000, entry(KEY, 'b:2:y', 5_000, 1_000));
    read(local, 6_000);
    assert.deepEqual(summary(local), [['a:1:x', 10, null, 'holding', { gapFrom: undefined }]]);
    local.observeEvents([{ key, event: 'expired', at: 6_500 }], new Map());
    assert.equal(local.holds()[0].end, 'expired');
  });

  test("a read that raced the acquisition's own event takes the event's time: the start was seen", () => {
    const local = new LockHistory(1000);
    local.observe({ kind: 'events' }, 0);
    read(local, 5_000, entry(KEY, 'a:1:x', 5_000));
    local.observeEvents(
      [
        { key, event: 'set', at: 4_990 },
        { key, event: 'pexpire', at: 4_990 },
      ],
      new Map([[KEY, entry(KEY, 'a:1:x', 5_010)]]),
    );
    assert.deepEqual(summary(local), [['a:1:x', 4_990, null, 'holding', null]]);
    assert.deepEqual(local.holds()[0].extensions, [], 'not an extension');
  });

  test('a change tells the new gaps and the observation', () => {
    const local = new LockHistory(1000);
    const changes: Array<{ gaps: unknown[]; observation?: unknown }> = [];
    local.onDidChange(({ gaps, observation }) => changes.push({ gaps: [...gaps], observation }));
    local.observe({ kind: 'events' }, 0);
    local.observe({ kind: 'none', reason: 'the connection was lost' }, 500);
    local.observe({ kind: 'events' }, 900);
    assert.deepEqual(changes, [
      { gaps: [], observation: { kind: 'events', since: 0 } },
      {
        gaps: [{ from: 500, reason: 'the connection was lost' }],
        observation: { kind: 'none', reason: 'the connection was lost', since: 500 },
      },
      {
        gaps: [{ from: 500, to: 900, reason: 'the connection was lost' }],
        observation: { kind: 'events', since: 900 },
      },
    ]);
    assert.deepEqual(local.observation(), { kind: 'events', since: 900 });
  });

  test('a monitor stopped and started again: the history shows the gap between, from a real server', async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'K$gxh');
    watch();
    assert.equal((await monitor.startLive()).kind, 'notifications');
    await monitor.refresh();
    await fx.locks.acquire(KEY, 'a:1:gap', 300);
    await waitFor('a begins', () => ends().join() === 'a:1:gap:holding');
    monitor.stopLive('the Locks view was hidden');
    await sleep(500);
    await fx.locks.acquire(KEY, 'b:2:gap', 10_000);
    await monitor.startLive();
    await monitor.refresh(true);
    assert.deepEqual(ends(), ['a:1:gap:unobserved', 'b:2:gap:holding']);
    assert.deepEqual(history.holds()[1].startUnseen, { gapFrom: history.gaps()[0].from });
    assert.equal(history.gaps().length, 1);
    assert.equal(history.gaps()[0].reason, 'the Locks view was hidden');
  });
});

describe('bounds, groups and export', () => {
  test('memory is bounded: past the bound the oldest holds go', () => {
    const bounded = new LockHistory(100);
    bounded.observe({ kind: 'events' }, 0);
    for (let i = 0; i < 500; i++) {
      const key = `lock:job:${i % 7}`;
      bounded.observeEvents(
        [{ key: Buffer.from(key), event: 'set', at: i }],
        new Map([[key, entry(key, `w:${i}:x`, i)]]),
      );
    }
    const holds = bounded.holds();
    const events = holds.reduce((sum, hold) => sum + 1 + hold.extensions.length + (hold.end ? 1 : 0), 0);
    assert.ok(events <= 100, `${events} events kept`);
    assert.equal(holds[holds.length - 1].token, 'w:499:x', 'the newest are kept');
  });

  test('keys that differ only in their id part form a group; named patterns win', () => {
    assert.equal(keyShape('lock:{orders:42}'), 'lock:{orders:*}');
    assert.equal(keyShape('lock:job:7f3a9c01'), 'lock:job:*');
    assert.equal(keyShape('lock:user:8743c9c0-0795-4907-87fd-6c719a6b4586'), 'lock:user:*');
    assert.equal(keyShape('lock:report-daily'), 'lock:report-daily');
    assert.equal(keyShape('lock:v2:cache'), 'lock:v2:cache');
    assert.equal(groupOf('lock:{orders:42}', ['lock:{orders:4*}']), 'lock:{orders:4*}');
    assert.equal(groupOf('lock:{orders:42}', ['mutex:*']), 'lock:{orders:*}');
  });

  test('group stats: acquisitions per minute, hold times, and a warning when leases ran out', () => {
    const now = 10 * 60_000;
    const hold = (from: number, to: number, end: Hold['end'], key = 'lock:{orders:1}'): Hold => ({
      id: from,
      keyId: key,
      key,
      owner: 'w#1',
      token: 'w:1:x',
      from,
      to,
      end,
      extensions: [],
      approximate: false,
    });
    const holds = [
      hold(now - 5000, now - 4000, 'released'),
      hold(now - 3000, now - 1000, 'expired'),
      hold(now - 9000, now - 8500, 'released', 'lock:other'),
    ];
    const stats = groupStats(holds, now, keyShape);
    const orders = stats.get('lock:{orders:*}')!;
    assert.equal(orders.acquisitions, 2);
    assert.equal(orders.acquisitionsPerMinute, 0.2);
    assert.deepEqual([orders.holdP50, orders.holdMax], [2000, 2000]);
    assert.equal(orders.warning, '1 of 2 holds expired in the last 10 min: lease too short, or holders crashing');
    assert.equal(stats.get('lock:other')!.warning, undefined);
  });

  test('export: JSON with every hold, CSV one row per hold with spreadsheet-safe fields', () => {
    const local = new LockHistory(1000);
    local.observe({ kind: 'events' }, 0);
    const set = (key: string, token: string, at: number) =>
      local.observeEvents([{ key: Buffer.from(key), event: 'set', at }], new Map([[key, entry(key, token, at)]]));
    set('lock:a', 'w:1:x', 1000);
    set('lock:b', '=cmd:2:"q",x', 2000);
    local.observeEvents([{ key: Buffer.from('lock:a'), event: 'del', at: 3000 }], new Map());
    local.observe({ kind: 'none', reason: 'the Locks view was hidden' }, 4000);
    const json = JSON.parse(historyJson('prod', local.holds(), local.gaps(), 5000)) as {
      holds: Array<Record<string, unknown>>;
      gaps: Array<Record<string, unknown>>;
    };
    assert.deepEqual(json.holds[0], {
      key: 'lock:a',
      owner: 'w#1',
      token: 'w:1:x',
      acquiredAt: '1970-01-01T00:00:01.000Z',
      endedAt: '1970-01-01T00:00:03.000Z',
      durationMs: 2000,
      end: 'released',
      extensions: [],
      leaseMs: 1000,
      approximate: false,
      startSeen: true,
    });
    assert.equal(json.holds[1].end, 'unobserved', 'cut by the gap, not ended by a guess');
    assert.deepEqual(json.gaps, [{ from: '1970-01-01T00:00:04.000Z', to: null, reason: 'the Locks view was hidden' }]);
    const [header, first, second] = historyCsv(local.holds()).split('\r\n');
    assert.equal(
      header,
      'key,owner,token,acquired_at,ended_at,duration_ms,end,extensions,lease_ms,approximate,start_seen',
    );
    assert.equal(
      first,
      'lock:a,w#1,w:1:x,1970-01-01T00:00:01.000Z,1970-01-01T00:00:03.000Z,2000,released,0,1000,false,true',
    );
    assert.equal(second.split(',')[2], `"'=cmd:2:""q""`, 'a formula-like token is defused and quoted');
  });
});

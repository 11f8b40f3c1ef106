// Live updates of the Locks view's listing (LockMonitor) from keyspace notifications, against a
// real redis-server: polling with a reason when the server publishes none, enabling them only
// on request (keeping the user's flags), and O(changes) reads once they flow.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { Session } from '../extension/src/connections/session';
import type { LockEntry } from '../extension/src/locks/classify';
import { missingLockEvents, withLockEvents } from '../extension/src/locks/keyspaceEvents';
import { LockMonitor, type ChangeKind } from '../extension/src/locks/monitor';
import { commandCalls, useRedis, waitFor } from './helpers';

const fx = useRedis();
const PATTERNS = ['lock:*', '*:lock'];

let session: Session;
let monitor: LockMonitor;
let changes: ChangeKind[];

async function connect(username?: string, password?: string): Promise<void> {
  session = new Session(
    { id: 'n', name: 'n', url: `redis://127.0.0.1:${fx.server.port}/0`, ...(username && { username }) },
    password,
  );
  await session.connect();
  monitor = new LockMonitor(session, () => ({ patterns: PATTERNS, limit: 500, intervalMs: 2000 }));
  changes = [];
  monitor.onDidChange((kind) => changes.push(kind));
}

beforeEach(async () => {
  await fx.redis.flushall();
  await fx.redis.config('SET', 'notify-keyspace-events', '');
  for (let i = 0; i < 50; i++) await fx.redis.set(`lock:job-${i}`, `worker-${i}:token-${i}`, 'PX', 60_000);
});

afterEach(() => {
  monitor?.dispose();
  session?.dispose();
});

const find = (key: string): LockEntry | undefined =>
  monitor.snapshot().locks.find((lock) => lock.key.toString() === key);

describe('keyspace notification flags', () => {
  test("what is missing, and what enabling sets without removing the user's flags", () => {
    assert.deepEqual(missingLockEvents(''), ['K', 'g', '$', 'x']);
    assert.deepEqual(missingLockEvents('KEA'), [], 'A stands for g$lshzxetd');
    assert.deepEqual(missingLockEvents('Ex'), ['K', 'g', '$']);
    assert.equal(withLockEvents(''), 'Kg$xh');
    assert.equal(withLockEvents('Elx'), 'ElxKg$h', 'E, l and x stay');
    assert.equal(withLockEvents('EA'), 'EAK', 'A already has g, $, x and h');
  });
});

describe('LockMonitor live updates', () => {
  test('without notifications it polls, says why and what enabling would set; the server is left unchanged', async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'El');
    await connect();
    const mode = await monitor.startLive();
    assert.equal(mode.kind, 'polling');
    assert.match(mode.kind === 'polling' ? mode.reason : '', /notify-keyspace-events 'lE', without Kg\$x/);
    assert.equal(mode.kind === 'polling' && mode.enable, 'lEKg$xh', "Redis reports the user's flags as 'lE'");
    assert.deepEqual(
      await fx.redis.config('GET', 'notify-keyspace-events'),
      ['notify-keyspace-events', 'lE'],
      'never changed silently',
    );
    assert.equal(await fx.redis.pubsub('NUMPAT'), 0, 'no subscription while polling');
  });

  test("enabling on request adds the flags, keeps the user's, subscribes and re-reads", async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'El');
    await connect();
    assert.equal((await monitor.startLive()).kind, 'polling');
    const mode = await monitor.enableNotifications();
    assert.equal(mode.kind, 'notifications');
    const [, flags] = (await fx.redis.config('GET', 'notify-keyspace-events')) as string[];
    assert.deepEqual(missingLockEvents(flags), []);
    for (const flag of ['E', 'l', 'h']) assert.ok(flags.includes(flag), `${flag} in '${flags}'`);
    assert.equal(await fx.redis.pubsub('NUMPAT'), PATTERNS.length, 'one pattern subscription per lock pattern');
    assert.equal(monitor.snapshot().locks.length, 50, 'read after subscribing, so no change falls in between');
  });

  test('set, del, pexpire, expire and expiry update only the affected locks, without a SCAN', async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'K$gx');
    await connect();
    await monitor.refresh();
    assert.equal((await monitor.startLive()).kind, 'notifications');
    const scans = await commandCalls(fx.redis, 'scan');
    const types = await commandCalls(fx.redis, 'type');
    const before = find('lock:job-7');

    await fx.redis.set('lock:new', 'worker-new:token', 'PX', 60_000);
    await waitFor('the new lock', () => find('lock:new') !== undefined);
    await fx.redis.del('lock:job-1');
    await waitFor('the deleted lock to go', () => find('lock:job-1') === undefined);
    await fx.redis.pexpire('lock:job-2', 600_000);
    await waitFor('the extended TTL', () => (find('lock:job-2')?.pttl ?? 0) > 60_000);
    await fx.redis.expire('lock:job-3', 1);
    await waitFor('the shortened TTL', () => (find('lock:job-3')?.pttl ?? Infinity) <= 1000);
    await waitFor(
      'the expired lock to go',
      async () => (await fx.redis.exists('lock:job-3')) === 0 && find('lock:job-3') === undefined,
      5000,
    );
    await fx.redis.set('cache:user:1', 'not a lock'); // matches no pattern: no event reaches the view
    await fx.redis.set('orders:lock', 'worker-9:token-x', 'PX', 60_000);
    await waitFor('a lock of the second pattern', () => find('orders:lock') !== undefined);

    assert.equal(await commandCalls(fx.redis, 'scan'), scans, 'no full re-read');
    // One TYPE per re-read key (new, job-2, job-3, orders:lock); del and expired need none.
    assert.equal((await commandCalls(fx.redis, 'type')) - types, 4);
    assert.equal(monitor.snapshot().locks.length, 50 + 2 - 2);
    assert.equal(find('lock:job-7'), before, 'unchanged locks are the same objects: their rows are not redrawn');
    assert.ok(
      changes.includes('rows') && changes.includes('values'),
      `rows for keys that come and go, values for a TTL change: ${changes.join(', ')}`,
    );
  });

  test('a partial listing (Load more pending) updates its own locks but adds no others, so Load more never lists a key twice', async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'K$gx');
    await connect();
    const paged = new LockMonitor(session, () => ({ patterns: PATTERNS, limit: 10, intervalMs: 2000 }));
    try {
      await paged.refresh();
      assert.equal((await paged.startLive()).kind, 'notifications');
      assert.ok(paged.snapshot().more, 'more to load');
      const [first] = paged.snapshot().locks;
      await fx.redis.set('lock:fresh', 'worker:fresh', 'PX', 60_000);
      await fx.redis.set(first.key, 'worker:moved-on', 'PX', 60_000);
      await waitFor('the listed lock to change owner', () =>
        paged.snapshot().locks.some((lock) => lock.key.equals(first.key) && lock !== first),
      );
      assert.equal(paged.snapshot().locks.length, 10, 'the fresh lock waits for Load more or a refresh');
      while (paged.snapshot().more) await paged.loadMore();
      const keys = paged.snapshot().locks.map((lock) => lock.key.toString());
      assert.equal(new Set(keys).size, keys.length, 'no key twice');
      await paged.refresh(true);
      assert.ok(
        paged.snapshot().locks.some((lock) => lock.key.toString() === 'lock:fresh'),
        'a refresh lists it',
      );
    } finally {
      paged.dispose();
    }
  });

  test('a change noticed while a full read runs is read again after it', async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'K$gx');
    await connect();
    assert.equal((await monitor.startLive()).kind, 'notifications');
    const reading = monitor.refresh();
    await fx.redis.set('lock:during', 'worker:during', 'PX', 60_000);
    await reading;
    await waitFor('the lock set during the read', () => find('lock:during') !== undefined);
    await fx.redis.del('lock:during');
    await waitFor('its deletion', () => find('lock:during') === undefined);
  });

  test("a browse-only ACL user (no CONFIG) stays on polling with the server's reason", async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'K$gx');
    await fx.redis.acl(
      'SETUSER',
      'viewer',
      'on',
      '>viewer-pw',
      '~*',
      '&*',
      '-@all',
      '+scan',
      '+type',
      '+pttl',
      '+getrange',
      '+info',
      '+ping',
      '+zcard',
      '+hscan', // the one-hop queue's tickets of a plain lock
      '+pubsub|shardnumsub',
      '+psubscribe',
      '+hello',
      '+client|setname',
    );
    try {
      await connect('viewer', 'viewer-pw');
      const mode = await monitor.startLive();
      assert.equal(mode.kind, 'polling');
      assert.match(mode.kind === 'polling' ? mode.reason : '', /cannot use keyspace notifications \(NOPERM/);
      assert.equal(mode.kind === 'polling' && mode.enable, undefined, 'nothing to offer without CONFIG rights');
      await monitor.refresh();
      assert.equal(monitor.snapshot().locks.length, 50, 'polling still lists the locks');
    } finally {
      await fx.redis.acl('DELUSER', 'viewer');
    }
  });

  test("after a restart the subscription is gone with the server's config: startLive says so and polling takes over", async () => {
    await fx.redis.config('SET', 'notify-keyspace-events', 'K$gx');
    await connect();
    assert.equal((await monitor.startLive()).kind, 'notifications');
    const states: string[] = [];
    session.onDidChange((state) => states.push(state.kind));
    await fx.server.restart();
    await waitFor('the session to reconnect', () => states.join().endsWith('reconnecting,connected'), 15_000);
    const mode = await monitor.startLive();
    assert.equal(mode.kind, 'polling', 'CONFIG SET is not saved: the restarted server publishes nothing');
    assert.equal(mode.kind === 'polling' && mode.enable, 'Kg$xh');
  });
});

// A trusted workspace's `redisLocksmith.lockPatterns: ["*"]`: where the patterns come from is
// known (and said), a listing that is mostly not locks is recognised (and warned about once), and
// a value that does not look like a lock is never shown as an owner, however broad the patterns.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyKey, type LockEntry } from '../extension/src/locks/classify';
import { DEFAULT_LOCK_PATTERNS, discoverLocks } from '../extension/src/locks/discovery';
import { describeFit, patternFit } from '../extension/src/locks/patternFit';
import { lockPatternsOrigin } from '../extension/src/settings';
import { useRedis } from './helpers';

const READ_AT = Date.UTC(2025, 0, 1, 12);
const UUID = '8743c9c0-0795-4907-87fd-6c719a6b4586';

function stringKey(key: string, value: string): LockEntry {
  const head = Buffer.from(value);
  return classifyKey({
    key: Buffer.from(key),
    type: 'string',
    pttl: -1,
    readAt: READ_AT,
    value: { type: 'string', head, length: head.length },
  });
}

function hashKey(key: string, fields: Record<string, string>): LockEntry {
  const entries = Object.entries(fields).map(([name, value]) => ({
    name: Buffer.from(name),
    value: Buffer.from(value),
  }));
  return classifyKey({
    key: Buffer.from(key),
    type: 'hash',
    pttl: 30_000,
    readAt: READ_AT,
    value: { type: 'hash', fields: entries, length: entries.length },
  });
}

describe('a value is an owner only when it looks like one', () => {
  test('under a key not named like a lock, data is data: no owner, no timestamp lock, no holders', () => {
    for (const [key, value] of [
      ['cache:user:1', 'not a lock'],
      ['session:42', 'alice'],
      ['config:feature', 'on'],
      ['user:7:last_seen', '1735732800'],
      ['counter:visits', '4711'],
    ]) {
      const entry = stringKey(key, value);
      assert.equal(entry.kind, 'other', `${key} = ${value}`);
      assert.equal(entry.kind === 'other' && entry.why, 'value', key);
    }
    const stats = hashKey('stats:page:home', { views: '10', clicks: '3' });
    assert.deepEqual([stats.kind, stats.kind === 'other' && stats.why], ['other', 'hash']);
  });

  test('under any key, a token-shaped value is an owner; a Redisson holder field holds its hash', () => {
    for (const value of ['web-1:4711:9f2c4e1ab37d5e60', UUID, '9f2c4e1ab37d5e60aa11bb22', 'Zm9vYmFyYmF6cXV4MTIzNDU2']) {
      assert.equal(stringKey('job:nightly', value).kind, 'token', value);
    }
    assert.equal(hashKey('orders', { [`${UUID}:57`]: '1' }).kind, 'reentrant');
  });

  test('under a key named like a lock, any short printable value is an owner, as before', () => {
    for (const key of ['lock:a', 'orders:lock', 'job-lock:report', 'app.mutex.sync', 'orderLock', 'locks:b']) {
      const entry = stringKey(key, 'worker-7');
      assert.equal(entry.kind, 'token', key);
    }
    assert.equal(stringKey('lock:legacy', '1735732800').kind, 'timestamp');
    assert.equal(stringKey('block:7', 'worker-7').kind, 'other', '"block" is not "lock"');
  });

  test('every key the default patterns match is named like a lock', () => {
    for (const pattern of DEFAULT_LOCK_PATTERNS) {
      const key = pattern.replace(/\*/g, 'x');
      assert.equal(stringKey(key, 'worker-7').kind, 'token', key);
    }
  });
});

describe('where the lock patterns come from', () => {
  test("a trusted workspace's value (folder, then workspace) wins over the user's; untrusted, it is not used", () => {
    assert.deepEqual(lockPatternsOrigin({ globalValue: ['mutex:*'] }, true), { from: 'user' });
    assert.deepEqual(lockPatternsOrigin({ workspaceValue: ['*'], globalValue: ['mutex:*'] }, true), {
      from: 'workspace',
    });
    assert.deepEqual(lockPatternsOrigin({ workspaceFolderValue: ['*'], workspaceValue: ['a:*'] }, true), {
      from: 'workspace folder',
    });
    assert.deepEqual(lockPatternsOrigin({ workspaceValue: ['*'] }, false), { from: 'default' });
    assert.deepEqual(lockPatternsOrigin({}, true), { from: 'default' });
  });
});

describe('what the patterns match', () => {
  const fx = useRedis();

  test('`*` over data and two locks: the fit says most matches are not locks, and no data value is an owner', async () => {
    const pipe = fx.redis.pipeline();
    for (let i = 0; i < 300; i++) pipe.set(`cache:user:${i}`, `{"name":"user ${i}"}`);
    for (let i = 0; i < 100; i++) pipe.set(`session:${i}`, `user-${i}`);
    pipe.set('lock:{orders:42}', 'api-1:4711:9f2c4e1ab37d5e60', 'PX', 60_000);
    pipe.set('report:lock', 'cron-7:311:0d1e2f3a4b5c6d7e', 'PX', 60_000);
    await pipe.exec();
    const page = await discoverLocks(fx.redis, { patterns: ['*'], limit: 1_000 });
    assert.equal(page.entries.length, 402);
    const owners = page.entries.flatMap((entry) => (entry.kind === 'token' ? [entry.owner] : []));
    assert.deepEqual(owners.sort(), ['api-1#4711', 'cron-7#311']);
    const fit = patternFit(page.entries, page.next !== undefined);
    assert.deepEqual(fit, { matched: 402, locks: 2, more: false, mostlyNotLocks: true });
    assert.equal(
      describeFit(fit, ['*'], 'prod'),
      'The lock patterns (*) match 402 keys on prod, and only 2 of them are locks: the Locks view reads every key they match.',
    );
    assert.equal(patternFit(page.entries.slice(0, 10), true).mostlyNotLocks, false, 'too few keys to tell');
  });
});

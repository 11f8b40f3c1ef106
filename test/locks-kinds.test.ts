// The Locks view reads the pack's lock kinds as they are in a real Redis: a reentrant lock of the
// pack's tokens, a read-write lock (readers, a writer, a waiting writer) and a semaphore, each
// with its holders and their own leases; and the waiters of a lock where they can be counted.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { ReadWriteLock, ReentrantLock, SemaphoreLock, TokenLock } from '../extension/src/locks/classify';
import { discoverLocks, readLocks } from '../extension/src/locks/discovery';
import { presentHolder, presentLock } from '../extension/src/locks/present';
import { sleep, useRedis, waitFor } from './helpers';

const fx = useRedis();

beforeEach(async () => {
  await fx.redis.flushall();
});

async function read(key: string) {
  const [entry] = await readLocks(fx.redis, [Buffer.from(key)]);
  assert.ok(entry, `${key} read`);
  return entry;
}

describe('the pack kinds in the Locks view', () => {
  test("a reentrant lock of the pack's tokens: its holder and hold count", async () => {
    await fx.locks.reentrant.acquire('lock:{report}', 'api-1:4711:aaaa', 30_000);
    await fx.locks.reentrant.acquire('lock:{report}', 'api-1:4711:aaaa', 30_000);
    const lock = (await read('lock:{report}')) as ReentrantLock;
    assert.equal(lock.kind, 'reentrant');
    assert.deepEqual(
      lock.holders.map((holder) => [holder.owner, holder.count, holder.token.toString()]),
      [['api-1#4711', 2, 'api-1:4711:aaaa']],
    );
    assert.equal(presentHolder(lock, lock.holders[0], lock.readAt).description, 'entered 2×');
  });

  test('a read-write lock: readers with their own leases, then a writer waiting for them to drain', async () => {
    assert.equal(await fx.locks.rw.read('lock:{catalog}', 'api-1:1:r1', 30_000), true);
    assert.equal(await fx.locks.rw.read('lock:{catalog}', 'api-2:2:r2', 10_000), true);
    const reading = (await read('lock:{catalog}')) as ReadWriteLock;
    assert.equal(reading.kind, 'readwrite');
    assert.equal(reading.mode, 'read');
    assert.match(presentLock(reading, reading.readAt).description, /^read · 2 readers · \d+ s$/);
    const leases = new Map(reading.holders.map((holder) => [holder.owner, holder.leftMs!]));
    assert.ok(leases.get('api-1#1')! > 25_000 && leases.get('api-2#2')! <= 10_000, JSON.stringify([...leases]));
    // A writer's single attempt leaves its intent for a moment: new readers wait behind it.
    const writing = fx.locks.rw.write('lock:{catalog}', 'api-3:3:w', 30_000, { waitMs: 5_000 });
    await waitFor('the waiting writer', async () => ((await read('lock:{catalog}')) as ReadWriteLock).writerWaiting);
    const waiting = (await read('lock:{catalog}')) as ReadWriteLock;
    assert.match(presentLock(waiting, waiting.readAt).description, /writer waiting/);
    await fx.locks.rw.release('lock:{catalog}', 'api-1:1:r1');
    await fx.locks.rw.release('lock:{catalog}', 'api-2:2:r2');
    assert.equal(await writing, true);
    const written = (await read('lock:{catalog}')) as ReadWriteLock;
    assert.deepEqual([written.mode, written.holders.map((holder) => holder.owner)], ['write', ['api-3#3']]);
  });

  test('a semaphore: permits used of N, each holder with its own lease', async () => {
    for (const token of ['w:1:a', 'w:2:b'])
      assert.equal(await fx.locks.semaphore.acquire('sem:{exports}', token, 30_000, 3), true);
    const semaphore = (await read('sem:{exports}')) as SemaphoreLock;
    assert.equal(semaphore.kind, 'semaphore');
    assert.equal(semaphore.permits, 3);
    assert.match(presentLock(semaphore, semaphore.readAt).description, /^2\/3 permits · \d+ s$/);
    assert.deepEqual(
      semaphore.holders.map((holder) => holder.role),
      ['hold', 'hold'],
    );
  });

  test('waiters: the queue of a plain lock and the clients subscribed to its wake-ups', async () => {
    await fx.locks.acquire('lock:{order:1}', 'holder:1:x', 30_000);
    const controller = new AbortController();
    const waiter = fx.locks.acquire('lock:{order:1}', 'waiter:2:y', 30_000, {
      waitMs: 10_000,
      signal: controller.signal,
    });
    try {
      await waitFor('the waiter to queue and subscribe', async () => {
        const lock = await read('lock:{order:1}');
        return lock.waiters?.queued === 1 && lock.waiters.subscribed === 1;
      });
      const lock = (await read('lock:{order:1}')) as TokenLock;
      assert.match(presentLock(lock, lock.readAt).description, /^holder#1 · \d+ s · 1 waiting$/);
      const page = await discoverLocks(fx.redis, { patterns: ['lock:*'] });
      const kinds = page.entries.map((entry) => [
        entry.key.toString(),
        entry.kind === 'other' ? entry.why : entry.kind,
      ]);
      assert.deepEqual(kinds.sort(), [
        ['lock:{order:1}', 'token'],
        ['lock:{order:1}:tickets', 'queue'],
        ['lock:{order:1}:waiters', 'queue'],
      ]);
    } finally {
      controller.abort();
      await waiter.catch(() => undefined);
      await sleep(10);
    }
  });
});

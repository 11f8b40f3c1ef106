// Faults the Locks view must survive (issue 6), through the extension's own Session and
// discoverLocks against real redis-server processes: a server restart, a cut TCP connection
// (via a proxy), and a very slow server (2 s added latency each way).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ConnectionConfig } from '../extension/src/connections/saved';
import { Session, type SessionState } from '../extension/src/connections/session';
import { discoverLocks } from '../extension/src/locks/discovery';
import { LockMonitor } from '../extension/src/locks/monitor';
import { loadPack, SCRIPT_NAMES } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { startProxy, type TcpProxy } from '../harness/proxy';
import { startRedis, type RedisServer } from '../harness/redis';
import { commandCalls, sleep, waitFor } from './helpers';

const pack = loadPack();
const shas = SCRIPT_NAMES.map((name) => pack[name].sha1);

// Every fault below must surface as a state or a rejected call, never as an unhandled rejection.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
before(() => process.on('unhandledRejection', onUnhandled));
after(() => process.off('unhandledRejection', onUnhandled));
const assertNoUnhandled = () => assert.deepEqual(unhandled, [], 'unhandled rejections');

function recordStates(session: Session): SessionState[] {
  const seen: SessionState[] = [];
  session.onDidChange((state) => seen.push(state));
  return seen;
}

const kinds = (seen: readonly SessionState[]) => seen.map((state) => state.kind).join(' -> ');

/** Settles `promise` into a value or an error and how long that took, in ms. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = performance.now();
  try {
    const value = await promise;
    return { ms: performance.now() - start, value };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

const keyNames = (entries: readonly { key: Buffer }[]) => entries.map((entry) => entry.key.toString()).sort();

function config(id: string, url: string): ConnectionConfig {
  return { id, name: id, url };
}

/** Seeds token locks with a minute to live through a client of its own (not the session's). */
async function seedLocks(server: RedisServer, keys: readonly string[]): Promise<void> {
  const client = server.client();
  try {
    for (const key of keys) await client.set(key, `owner-${key}`, 'PX', 60_000);
  } finally {
    client.disconnect();
  }
}

describe('faults the Locks view survives', () => {
  test('redis-server restart: reconnects by itself, finds the new locks, scripts read "not loaded" and load again', async () => {
    const server = await startRedis();
    const session = new Session(config('restart', `redis://127.0.0.1:${server.port}/0`), undefined);
    try {
      await session.connect();
      const scripts = new LockScripts(session.redis, pack);
      assert.deepEqual(await scripts.load(), Object.fromEntries(SCRIPT_NAMES.map((name) => [name, pack[name].sha1])));
      assert.deepEqual(
        await session.redis.script('EXISTS', ...shas),
        shas.map(() => 1),
        'loaded before the restart',
      );
      await seedLocks(server, ['lock:before-restart']);
      const seen = recordStates(session);

      const port = server.port;
      await server.restart();
      assert.equal(server.port, port, 'restarted on the same port');
      await waitFor(
        'connected after reconnecting',
        () => seen.some((s) => s.kind === 'reconnecting') && session.state.kind === 'connected',
      );
      const order = seen.map((s) => s.kind);
      assert.ok(order.indexOf('reconnecting') < order.lastIndexOf('connected'), kinds(seen));
      assert.ok(!order.includes('error') && !order.includes('closed'), `never gave up: ${kinds(seen)}`);
      const reconnecting = seen.find((s) => s.kind === 'reconnecting') as { reason: string };
      assert.match(reconnecting.reason, new RegExp(`127\\.0\\.0\\.1:${port}`), 'the reason names the server');

      // The new server knows none of the scripts: the Scripts view must say "not loaded".
      assert.deepEqual(
        await session.redis.script('EXISTS', ...shas),
        shas.map(() => 0),
      );
      assert.deepEqual(await scripts.loaded(), Object.fromEntries(SCRIPT_NAMES.map((name) => [name, false])));

      // Locks taken after the restart show up; the one from before is gone with the data.
      await seedLocks(server, ['lock:after:1', 'lock:after:2', 'orders:lock']);
      const page = await discoverLocks(session.masters()[0]);
      assert.deepEqual(keyNames(page.entries), ['lock:after:1', 'lock:after:2', 'orders:lock']);
      assert.equal(page.next, undefined);

      // Load works again, and EVALSHA then runs from the cache.
      assert.deepEqual(await scripts.load(), Object.fromEntries(SCRIPT_NAMES.map((name) => [name, pack[name].sha1])));
      assert.deepEqual(await scripts.loaded(), Object.fromEntries(SCRIPT_NAMES.map((name) => [name, true])));
      assert.equal(await session.redis.evalsha(pack.release.sha1, 1, 'lock:after:1', 'owner-lock:after:1'), 1);
      assert.equal(await session.redis.exists('lock:after:1'), 0, 'released by the cached script');
      assert.equal(session.state.kind, 'connected');
      assertNoUnhandled();
    } finally {
      session.dispose();
      await server.stop();
    }
  });

  test('dropped TCP connection: reconnecting while cut, reads fail or can be cancelled, nothing stays stuck after restore', async () => {
    const server = await startRedis();
    let proxy: TcpProxy | undefined;
    let session: Session | undefined;
    try {
      proxy = await startProxy(server.port);
      session = new Session(config('cut', proxy.url), undefined);
      await session.connect();
      await seedLocks(server, ['lock:a', 'lock:b']);
      assert.deepEqual(keyNames((await discoverLocks(session.masters()[0])).entries), ['lock:a', 'lock:b']);
      const seen = recordStates(session);

      // Two reads are on the wire (held back by latency) when the connection drops.
      proxy.setLatency(500);
      const controller = new AbortController();
      const cancelled = timed(discoverLocks(session.masters()[0], { signal: controller.signal }));
      let resentSettled = false;
      const resent = timed(discoverLocks(session.masters()[0])).finally(() => (resentSettled = true));
      await sleep(100);
      proxy.cut();
      proxy.setLatency(0);
      await waitFor('reconnecting', () => session!.state.kind === 'reconnecting');
      const state = session.state as { kind: 'reconnecting'; reason: string };
      assert.match(
        state.reason,
        new RegExp(`127\\.0\\.0\\.1:${proxy.port}`),
        `the reason names the server: ${state.reason}`,
      );

      // A read started while cut fails instead of queueing for a server that is not there.
      const whileCut = await timed(discoverLocks(session.masters()[0]));
      assert.ok(whileCut.error instanceof Error, 'a read while cut rejects');
      assert.ok(whileCut.ms < 5000, `and does not wait for the server (${Math.round(whileCut.ms)} ms)`);

      // A read sent before the cut is kept for a resend (ioredis), and the user can still cancel it.
      const reason = new Error('refresh cancelled');
      const abortedAt = performance.now();
      controller.abort(reason);
      const aborted = await cancelled;
      assert.equal(aborted.error, reason);
      assert.ok(performance.now() - abortedAt < 1000, 'cancelled at once, though the connection is down');

      // Still cut after several retries: still reconnecting, not given up.
      await sleep(800);
      assert.equal(session.state.kind, 'reconnecting', kinds(seen));
      assert.equal(proxy.connections, 0, 'the proxy refuses while cut');

      proxy.restore();
      await waitFor('connected after restore', () => session!.state.kind === 'connected');
      assert.ok(!seen.some((s) => s.kind === 'error' || s.kind === 'closed'), kinds(seen));
      // The read that was in flight is not stuck (the view keeps one read per connection): it completes.
      await waitFor('the read in flight during the cut to settle', () => resentSettled, 5000);
      const { error, value } = await resent;
      assert.equal(error, undefined, `resent read: ${String(error)}`);
      assert.deepEqual(keyNames(value!.entries), ['lock:a', 'lock:b']);
      assert.deepEqual(keyNames((await discoverLocks(session.masters()[0])).entries), ['lock:a', 'lock:b']);

      // A cut that holds new connections silently (a black hole) instead of refusing them.
      proxy.cut('hold');
      await waitFor('reconnecting (hold)', () => session!.state.kind === 'reconnecting');
      await waitFor('a held reconnect attempt', () => proxy!.holding > 0);
      assert.equal(session.state.kind, 'reconnecting');
      proxy.restore();
      await waitFor('connected after a held cut', () => session!.state.kind === 'connected');
      assert.equal(await session.redis.ping(), 'PONG');
      assertNoUnhandled();
    } finally {
      session?.dispose();
      await proxy?.close();
      await server.stop();
    }
  });

  test('2 s latency: an aborted discovery settles at once, a concurrent one is unaffected, the session stays usable', async () => {
    const server = await startRedis();
    let proxy: TcpProxy | undefined;
    let session: Session | undefined;
    try {
      const keys = Array.from({ length: 20 }, (_, i) => `lock:job:${i}`);
      await seedLocks(server, keys);
      proxy = await startProxy(server.port);
      session = new Session(config('slow', proxy.url), undefined);
      await session.connect();
      const seen = recordStates(session);

      proxy.setLatency(2000);
      // A round trip now takes 4 s; a page needs at least three (SCAN, TYPE, details).
      const controller = new AbortController();
      const cancelled = timed(discoverLocks(session.masters()[0], { signal: controller.signal }));
      // The refresh that replaces it, started while the first is in flight on the same client.
      let secondSettled = false;
      const second = timed(discoverLocks(session.masters()[0])).finally(() => (secondSettled = true));
      await sleep(200);
      const reason = new Error('refresh cancelled');
      const abortedAt = performance.now();
      controller.abort(reason);
      const first = await cancelled;
      const settledIn = performance.now() - abortedAt;
      assert.equal(first.error, reason, 'rejects with signal.reason');
      assert.ok(settledIn < 1500, `settled ${Math.round(settledIn)} ms after abort; a round trip takes 4000 ms`);
      assert.ok(first.ms < 1500, `settled ${Math.round(first.ms)} ms after it started`);
      assert.equal(secondSettled, false, 'aborting one read does not end the other');
      assert.equal(session.state.kind, 'connected', 'latency alone is not a disconnect');

      // Already aborted: rejects without sending anything.
      await assert.rejects(
        discoverLocks(session.masters()[0], { signal: AbortSignal.abort(reason) }),
        (error) => error === reason,
      );

      // The server speeds up: the second read completes with every lock, and so does a new one.
      proxy.setLatency(0);
      const done = await second;
      assert.equal(done.error, undefined, `second read: ${String(done.error)}`);
      assert.deepEqual(keyNames(done.value!.entries), [...keys].sort());
      assert.deepEqual(keyNames((await discoverLocks(session.masters()[0])).entries), [...keys].sort());
      assert.equal(await session.redis.ping(), 'PONG');
      assert.equal(session.state.kind, 'connected');
      assert.deepEqual(seen, [], `no state change through it all: ${kinds(seen)}`);
      assertNoUnhandled();
    } finally {
      session?.dispose();
      await proxy?.close();
      await server.stop();
    }
  });

  test("the view's listing (LockMonitor) over a 2 s latency: one read in flight, an explicit refresh cancels it, the listing stays usable", async () => {
    const server = await startRedis();
    let proxy: TcpProxy | undefined;
    let session: Session | undefined;
    let monitor: LockMonitor | undefined;
    const counter = server.client();
    try {
      const keys = Array.from({ length: 20 }, (_, i) => `lock:job:${i}`);
      await seedLocks(server, keys);
      proxy = await startProxy(server.port);
      session = new Session(config('slow-view', proxy.url), undefined);
      await session.connect();
      monitor = new LockMonitor(session, () => ({ patterns: ['lock:*'], limit: 500, intervalMs: 2000 }));
      await monitor.refresh();
      const listed = monitor.snapshot().locks;
      assert.equal(listed.length, 20);

      proxy.setLatency(2000);
      const scans = await commandCalls(counter, 'scan');
      const slow = timed(monitor.refresh());
      // The view's timer fires again while the read is slow: nothing more is sent.
      const skipped = await timed(monitor.refresh());
      assert.ok(skipped.ms < 100, `a second timer refresh returns at once (${Math.round(skipped.ms)} ms)`);
      assert.equal(monitor.snapshot().busy, true);
      assert.deepEqual(
        keyNames(monitor.snapshot().locks),
        keyNames(listed),
        'the last listing stays shown while a read is slow',
      );

      // The user's explicit refresh: the slow read is abandoned, a new one starts.
      await sleep(200);
      const explicit = timed(monitor.refresh(true));
      const first = await slow;
      assert.ok(
        first.ms < 1500,
        `the abandoned read returns at once (${Math.round(first.ms)} ms), without touching the listing`,
      );
      assert.deepEqual(keyNames(monitor.snapshot().locks), keyNames(listed));
      proxy.setLatency(0);
      const done = await explicit;
      assert.equal(done.error, undefined);
      assert.equal(monitor.snapshot().busy, false);
      assert.equal(monitor.snapshot().error, undefined);
      assert.deepEqual(keyNames(monitor.snapshot().locks), [...keys].sort());
      // The abandoned read's SCAN may have reached the server; the skipped one never did.
      assert.ok(
        (await commandCalls(counter, 'scan')) - scans <= 2,
        'at most the abandoned and the explicit read scanned',
      );
      assertNoUnhandled();
    } finally {
      monitor?.dispose();
      session?.dispose();
      counter.disconnect();
      await proxy?.close();
      await server.stop();
    }
  });

  test("the view's listing through a cut connection: the read fails with the reason, and the next refresh after restore lists the locks", async () => {
    const server = await startRedis();
    let proxy: TcpProxy | undefined;
    let session: Session | undefined;
    let monitor: LockMonitor | undefined;
    try {
      const keys = ['lock:a', 'lock:b'];
      await seedLocks(server, keys);
      proxy = await startProxy(server.port);
      session = new Session(config('cut-view', proxy.url), undefined);
      await session.connect();
      monitor = new LockMonitor(session, () => ({ patterns: ['lock:*'], limit: 500, intervalMs: 2000 }));
      await monitor.refresh();
      const seen = recordStates(session);
      proxy.cut('refuse');
      await waitFor('reconnecting', () => session!.state.kind === 'reconnecting');
      // The view re-reads only connected sessions; an explicit refresh of a dropped one must not hang the view.
      const whileCut = await timed(monitor.refresh(true));
      assert.equal(whileCut.error, undefined, 'refresh never throws into the view');
      assert.ok(monitor.snapshot().error, 'the failure is kept for the view to show');
      assert.deepEqual(keyNames(monitor.snapshot().locks), keys, 'the last listing is kept');
      proxy.restore();
      await waitFor('connected again', () => session!.state.kind === 'connected');
      await monitor.refresh(true);
      assert.equal(monitor.snapshot().error, undefined);
      assert.deepEqual(keyNames(monitor.snapshot().locks), keys);
      assert.match(kinds(seen), /reconnecting.*connected/);
      assertNoUnhandled();
    } finally {
      monitor?.dispose();
      session?.dispose();
      await proxy?.close();
      await server.stop();
    }
  });
});

// Shared test plumbing: one throwaway Redis per test file (or per describe block), stopped after it whatever happens.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe } from 'node:test';
import type Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { LockScripts, type LockScriptsOptions } from '../pack/runtime';
import { SERVER_KINDS, startRedis, type RedisServer, type ServerKind, type StartOptions } from '../harness/redis';

/** The pack, read once for every test file. */
export const pack = loadPack();

export interface RedisFixture {
  server: RedisServer;
  redis: Redis;
  locks: LockScripts;
}

/**
 * Starts a Redis (or with `server: 'valkey'` a Valkey) before the enclosing file's or describe
 * block's tests and stops it after them; read the fields inside tests.
 */
export function useRedis(options: StartOptions = {}, scripts: LockScriptsOptions = {}): RedisFixture {
  const fixture = {} as RedisFixture;
  before(async () => {
    // DEBUG DIGEST lets tests prove that a call wrote nothing, TTLs included.
    const args = ['--enable-debug-command', 'local', ...(options.args ?? [])];
    fixture.server = await startRedis({ ...options, args });
    fixture.redis = fixture.server.client();
    fixture.locks = new LockScripts(fixture.redis, pack, scripts);
  });
  after(async () => {
    fixture.locks?.close();
    fixture.redis?.disconnect();
    await fixture.server?.stop();
  });
  return fixture;
}

/** A digest of the whole dataset, values and expiry times included. */
export async function digest(redis: Redis): Promise<string> {
  return (await redis.call('DEBUG', 'DIGEST')) as string;
}

/** Asserts the call fails with `pattern` and the dataset is byte-for-byte unchanged. */
export async function rejectsAndWritesNothing(
  redis: Redis,
  call: () => Promise<unknown>,
  pattern: RegExp,
): Promise<void> {
  const before = await digest(redis);
  await assert.rejects(call, pattern);
  assert.equal(await digest(redis), before);
}

/** Asserts the call answers 0 (or false) and the dataset is byte-for-byte unchanged. */
export async function zeroAndWritesNothing(redis: Redis, call: () => Promise<unknown>): Promise<void> {
  const before = await digest(redis);
  assert.equal(Number(await call()), 0);
  assert.equal(await digest(redis), before);
}

/**
 * Flushes the fixture's server before each test, and records the wake-ups published on `channel`
 * (as `channel=payload`) by an SSUBSCRIBE client of its own.
 */
export function recordWakeups(
  fixture: RedisFixture,
  ...channels: string[]
): { messages: string[]; subscriber: () => Redis } {
  const recorded = { messages: [] as string[], subscriber: () => client };
  let client: Redis;
  beforeEach(async () => {
    await fixture.redis.flushall();
    recorded.messages.length = 0;
    client = fixture.server.client();
    client.on('smessage', (name: string, message: string) => recorded.messages.push(`${name}=${message}`));
    await client.ssubscribe(...channels);
  });
  afterEach(() => client.disconnect());
  return recorded;
}

/**
 * Sets key to value with a lease of ms; the returned check asserts the lease is untouched: counted
 * down from ms by the time passed since, however long the programs run in between took (a JVM
 * started on a loaded machine can take seconds).
 */
export async function setWithLease(redis: Redis, key: string, value: string, ms: number) {
  const setAt = Date.now();
  await redis.set(key, value, 'PX', ms);
  return async (message: string): Promise<void> => {
    const pttl = await redis.pttl(key);
    const atLeast = ms - (Date.now() - setAt) - 10; // 10 ms: the server's and this clock's rounding
    assert.ok(pttl >= atLeast, `${message}: ${pttl} ms left, at least ${atLeast} ms expected`);
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long a proof program may take to start and make its first call: a Lettuce waiter took over
 * 10 s to subscribe while the whole suite ran on a slower 2-core machine (load average 20 to 30).
 */
export const PROGRAM_START_MS = 30_000;

/** Polls `predicate` every 25 ms; fails naming `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Calls of one command so far on a server, from INFO commandstats (e.g. 'scan', 'type'). */
export async function commandCalls(redis: Redis, command: string): Promise<number> {
  const stats = await redis.info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

/** Scripts a server has run so far (EVALSHA and EVAL): a proof program's first try shows here. */
export async function scriptCalls(redis: Redis): Promise<number> {
  return (await commandCalls(redis, 'evalsha')) + (await commandCalls(redis, 'eval'));
}

/**
 * Each server's proofs in a suite of its own, Redis 7.0's and Valkey 9.1's side by side: for files
 * whose proofs mostly wait on leases and their own server. Within a server the tests stay one
 * after another (a suite's subtests take its concurrency unless given their own).
 */
export function serversSideBySide(proofs: (server: ServerKind) => void): void {
  describe('Redis 7.0 and Valkey 9.1 side by side', { concurrency: SERVER_KINDS.length }, () => {
    for (const server of SERVER_KINDS) describe(server, { concurrency: 1 }, () => proofs(server));
  });
}

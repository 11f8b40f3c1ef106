// Fenced writes: guarded_set (only while the lock holds the writer's token) and fenced_set (only
// when no newer fencing token has written), branch by branch, and Kleppmann's paused holder: a
// process SIGSTOPped past its lease while another takes the lock and writes; after SIGCONT its
// writes are refused. On Redis 7.0 and Valkey 9.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { rejectsAndWritesNothing, sleep, useRedis, waitFor, zeroAndWritesNothing } from './helpers';

for (const server of SERVER_KINDS) describe(server, () => fencedContract(server));

function fencedContract(server: ServerKind): void {
  const fx = useRedis({ server }, { native: 'lua' });
  const TTL = 10_000;
  const LOCK = 'lock:{doc}';
  const DATA = 'doc:{doc}';

  beforeEach(async () => {
    await fx.redis.flushall();
  });

  describe('guarded_set', () => {
    test('the lock holds the token: the value is written, the data key keeps its TTL', async () => {
      await fx.locks.acquire(LOCK, 'owner-1', TTL);
      await fx.redis.set(DATA, 'old', 'PX', 60_000);
      assert.equal(await fx.locks.fenced.setIfHeld(LOCK, DATA, 'owner-1', 'new'), true);
      assert.equal(await fx.redis.get(DATA), 'new');
      assert.ok((await fx.redis.pttl(DATA)) > 50_000);
    });

    test('held by another, or not held: 0 and nothing written', async () => {
      await fx.redis.set(DATA, 'old');
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('guarded_set', [LOCK, DATA], ['owner-1', 'new']));
      await fx.locks.acquire(LOCK, 'owner-2', TTL);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('guarded_set', [LOCK, DATA], ['owner-1', 'new']));
    });

    test('bad arguments and a data key of another type: an error, nothing written', async () => {
      await fx.locks.acquire(LOCK, 'owner-1', TTL);
      for (const [keys, args, message] of [
        [[LOCK], ['owner-1', 'v'], /ERR guarded_set takes exactly 2 keys/],
        [[LOCK, DATA], ['', 'v'], /ARGV\[1\] token must be a non-empty string/],
        [[LOCK, DATA], ['owner-1'], /ARGV\[2\] value must be a non-empty string/],
      ] as const) {
        await rejectsAndWritesNothing(fx.redis, () => fx.locks.run('guarded_set', [...keys], [...args]), message);
      }
      await fx.redis.hset(DATA, 'f', 'v');
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('guarded_set', [LOCK, DATA], ['owner-1', 'v']),
        /WRONGTYPE/,
      );
    });
  });

  describe('fenced_set', () => {
    test('writes value and fence; the same token again may write; an older one is refused', async () => {
      assert.equal(await fx.locks.fenced.set(DATA, 5, 'five'), true);
      assert.deepEqual(await fx.redis.hgetall(DATA), { value: 'five', fence: '5' });
      assert.equal(await fx.locks.fenced.set(DATA, 5, 'five again'), true);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('fenced_set', [DATA], [4, 'four']));
      assert.equal(await fx.locks.fenced.set(DATA, 6, 'six'), true);
      assert.deepEqual(await fx.redis.hgetall(DATA), { value: 'six', fence: '6' });
    });

    test('bad arguments, a fence field that is no integer, another type: an error, nothing written', async () => {
      for (const [args, message] of [
        [['0', 'v'], /ARGV\[1\] fence must be a positive integer/],
        [['007', 'v'], /ARGV\[1\] fence/],
        [['1000000000000000', 'v'], /ARGV\[1\] fence/],
        [['3'], /ARGV\[2\] value must be a non-empty string/],
      ] as const) {
        await rejectsAndWritesNothing(fx.redis, () => fx.locks.run('fenced_set', [DATA], [...args]), message);
      }
      await fx.redis.hset(DATA, 'value', 'x', 'fence', 'abc');
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('fenced_set', [DATA], ['3', 'v']),
        /ERR fenced_set: the data key's fence field is not a positive integer, got 'abc'/,
      );
      await fx.redis.del(DATA);
      await fx.redis.set(DATA, 'string');
      await rejectsAndWritesNothing(fx.redis, () => fx.locks.run('fenced_set', [DATA], ['3', 'v']), /WRONGTYPE/);
    });
  });

  test('a holder SIGSTOPped past its lease while another takes the lock and writes: after SIGCONT, its writes are refused', async (t) => {
    const LEASE = 300;
    const GUARDED = 'doc:{doc}:guarded';
    const FENCED = 'doc:{doc}:fenced';
    const fence = 'fence:{doc}';
    const script = join(__dirname, '..', 'harness', 'fenced-writer-process.ts');
    const args = [String(fx.server.port), LOCK, fence, GUARDED, FENCED, String(LEASE), '200'];
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitFor('the paused holder to take the lock', () => out.includes('holding'));
      // Paused before its timer fires: its writes go out only after SIGCONT.
      child.kill('SIGSTOP');
      const paused = Number(/holding (\d+)/.exec(out)![1]);
      await sleep(LEASE + 100);
      // The premise: the stop took hold before the holder's 200 ms timer (else its writes went out
      // while it still held the lease, and accepting them was right).
      assert.equal(await fx.redis.exists(GUARDED, FENCED), 0, 'nothing written before the stop took hold');
      const next = await fx.locks.acquire(LOCK, 'next-holder', TTL, { fence });
      assert.ok(next > paused, `the next holder's fencing token ${next} is newer than ${paused}`);
      assert.equal(await fx.locks.fenced.setIfHeld(LOCK, GUARDED, 'next-holder', 'from next-holder'), true);
      assert.equal(await fx.locks.fenced.set(FENCED, next, 'from next-holder'), true);
      child.kill('SIGCONT');
      await waitFor('the paused holder to write', () => out.includes('wrote'));
      assert.match(out, /wrote 0 0/, 'both writes refused');
      assert.equal(await fx.redis.get(GUARDED), 'from next-holder');
      assert.deepEqual(await fx.redis.hgetall(FENCED), { value: 'from next-holder', fence: String(next) });
      t.diagnostic(`paused holder fencing token ${paused}, the next ${next}: ${out.trim().split('\n').at(-1)}`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
  });
}

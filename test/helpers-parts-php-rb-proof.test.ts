// The parts of the phpredis, Predis and redis-rb helpers (fenced-writes, replica-wait, multi), run as real
// programs on Debian's client libraries against a throwaway Redis 7.0 and Valkey 9 (the programs'
// modes: test/proofs/helpers/phpredis.php, predis.php, redis-rb.rb):
// - fenced-writes: a holder whose lease expired, and one whose lock another owner took, has its
//   guarded write refused; a fenced write with an older token than the data key's is refused, a
//   newer one commits; the data keys hold the live holder's values; a holder SIGSTOPped past its
//   lease while the next one takes the lock and writes has both its writes refused after SIGCONT;
// - replica-wait (docs/dev/wait-for-replicas.md): on a master with no replica, and on one whose
//   replica's link lags by a second, an acquire waiting for one is a shortfall, the lock released
//   (the key gone), or kept with the callback; a busy lock is busy; with the replica's link slowed
//   to 200 ms the acquire returns once the replica has the lock and the fence (read from the
//   replica right then; without the option it does not have it yet), also after SCRIPT FLUSH (the
//   pair sent again with EVAL on NOSCRIPT); a connection killed during WAIT is a shortfall with the
//   lock given back; fsync where the server cannot (Redis 7.0 has no WAITAOF; Valkey with
//   appendonly no) is released whatever the callback says; bad values are refused
//   before any command reaches the server;
// - multi: 3 processes x 30 transfers between 2 or 3 of 4 accounts under
//   withMultiLock (with_multi_lock) and one trying without waiting (at least 30 times, 2 ms apart, from
//   their start until they are done), on overlapping key sets: every waiting acquire
//   succeeds (no deadlock), a busy try holds none of its keys, no lock ever has two holders, the
//   sum holds; bad keys and ttl (and Predis's cluster client) are refused before anything is sent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { helperKinds } from '../snippets/helper';
import { startProxy, type TcpProxy } from '../harness/proxy';
import { SERVER_KINDS, startRedis, type RedisServer, type ServerKind } from '../harness/redis';
import { commandCalls, sleep, useRedis, waitFor } from './helpers';
import { HELPER_PROOFS, prepareOnce, proofName } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A link slow enough that a write is not on the replica when an acquire without the option returns. */
const SLOW_LINK_MS = 200;
/** Far longer than the shortfall's 50 ms wait for a round trip to the replica. */
const LAGGING_LINK_MS = 1000;

const PROOFS = HELPER_PROOFS.filter((proof) => ['phpredis', 'predis', 'redis-rb'].includes(proof.client));
/** How each helper spells the option, its keys and the shortfall callback. */
const SPELLING: Record<string, { option: string; timeout: string; onShortfall: string }> = {
  phpredis: { option: 'waitForReplicas.', timeout: 'timeoutMs', onShortfall: 'onShortfall' },
  predis: { option: 'waitForReplicas.', timeout: 'timeoutMs', onShortfall: 'onShortfall' },
  'redis-rb': { option: 'wait_for_replicas ', timeout: 'timeout_ms', onShortfall: 'on_shortfall' },
};

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });
  /** A master with one replica, which replicates through a proxy whose latency the tests set. */
  const pair = {} as { master: RedisServer; replica: RedisServer; link: TcpProxy; redis: Redis };
  before(async () => {
    const args = ['--repl-diskless-sync-delay', '0'];
    pair.master = await startRedis({ server, args });
    pair.link = await startProxy(pair.master.port);
    pair.replica = await startRedis({ server, args: [...args, '--replicaof', '127.0.0.1', String(pair.link.port)] });
    pair.redis = pair.master.client();
  });
  after(async () => {
    pair.redis?.disconnect();
    await pair.replica?.stop();
    await pair.master?.stop();
    await pair.link?.close();
  });
  /** The pair flushed and in sync, its link at full speed. */
  async function resetPair(): Promise<void> {
    pair.link.setLatency(0);
    await pair.redis.flushall();
    assert.equal(await pair.redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
  }

  for (const proof of PROOFS) {
    describe(`${proofName(proof)} helper's parts against a real ${server}`, () => {
      let command: string[];
      const spelling = SPELLING[proof.client];
      const run = (url: string, ...args: string[]) => start(command, url, proof.env ?? {}, args).done;

      /** The shortfall mode against `redis` (at `url`): released, kept by the callback, busy. */
      async function shortfalls(redis: Redis, url: string): Promise<void> {
        await redis.set('proof:busy', 'other', 'PX', 60_000);
        await redis.script('LOAD', pack.acquire.source); // no NOSCRIPT: its retry sends the pair again
        const waits = await commandCalls(redis, 'wait');
        const output = await run(url, 'replica-shortfall');
        assert.match(output, /^shortfall timeout 0\/1 released$/m);
        const message = /^message (.*)$/m.exec(output)?.[1];
        assert.equal(
          message,
          `proof:lock was acknowledged by 0 of 1 replica within 50 ms (WAIT): released, not held. Check the replicas (INFO replication: connected_slaves, their lag), or pass ${spelling.onShortfall} to keep such locks`,
        );
        assert.equal(await redis.exists('proof:lock'), 0, 'released');
        const [, reasons, fence, token] = /^kept (\S+) (\d+) (\S+)$/m.exec(output) ?? [];
        assert.equal(reasons, 'timeout', 'the callback got the shortfall once');
        assert.equal(fence, '1');
        assert.equal(await redis.get('proof:kept'), token, 'kept');
        assert.match(output, /^busy timeout$/m, 'busy, the callback not called again');
        assert.equal(await redis.get('proof:busy'), 'other');
        assert.equal((await commandCalls(redis, 'wait')) - waits, 3, 'one WAIT per acquire');
      }

      before(async () => {
        command = await prepareOnce(proof, work, pack, 'all');
      });
      beforeEach(async () => {
        await fx.redis.flushall();
      });

      test('fenced-writes: a lapsed or overtaken holder writes nothing; an older fencing token is refused, a newer one commits', async () => {
        const output = await run(fx.server.url, 'fenced-writes');
        const lines = output.trim().split('\n');
        assert.deepEqual(lines.slice(0, -1), [
          'held-write true',
          'held-fenced true',
          'expired-write false',
          'taken-write false',
          'holder-write true',
          'newer-fenced true',
          'older-fenced false',
        ]);
        assert.match(
          lines.at(-1)!,
          /^unfenced set_?[Ff]enced needs a fencing token: acquire proof:lock with a \$?fence_?[Kk]ey$/,
        );
        assert.equal(await fx.redis.get('proof:data'), 'second');
        assert.deepEqual(await fx.redis.hgetall('proof:fdata'), { value: 'second', fence: '2' });
      });

      test('fenced-writes: a holder SIGSTOPped past its lease while the next one takes the lock and writes writes nothing after SIGCONT', async () => {
        const [file, ...rest] = command;
        const child = spawn(file, [...rest, fx.server.url, 'fenced-paused'], { env: { ...process.env, ...proof.env } });
        let output = '';
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (/^held 1$/m.test(output)) resolve();
          });
          void exited.then(() => reject(new Error(`exited before holding:\n${output}`)));
        });
        child.kill('SIGSTOP');
        try {
          await sleep(500); // its 300 ms lease ends while it is stopped
          // The premise: the stop took hold in the holder's 3 s sleep, before it wrote anything.
          assert.equal(
            await fx.redis.exists('proof:data', 'proof:fdata'),
            0,
            'the holder wrote before the stop took hold: rerun on a less loaded machine',
          );
          assert.equal(await fx.locks.acquire('proof:lock', 'next', 60_000, { fence: 'proof:fence' }), 2);
          assert.equal(await fx.locks.fenced.setIfHeld('proof:lock', 'proof:data', 'next', 'next'), true);
          assert.equal(await fx.locks.fenced.set('proof:fdata', 2, 'next'), true);
        } finally {
          child.kill('SIGCONT');
        }
        assert.equal(await exited, 0, output);
        assert.match(output, /^paused-write false$/m);
        assert.match(output, /^paused-fenced false$/m);
        assert.equal(await fx.redis.get('proof:data'), 'next');
        assert.deepEqual(await fx.redis.hgetall('proof:fdata'), { value: 'next', fence: '2' });
      });

      test('replica-wait, no replica: a shortfall releases (the key gone) and says why; the callback keeps it; busy stays busy', async () => {
        await shortfalls(fx.redis, fx.server.url);
      });

      test(`replica-wait, a replica behind a ${LAGGING_LINK_MS} ms link: the same shortfalls`, async () => {
        await resetPair();
        pair.link.setLatency(LAGGING_LINK_MS);
        await shortfalls(pair.redis, pair.master.url);
      });

      test(`replica-wait, a replica behind a ${SLOW_LINK_MS} ms link: the acquire returns once the replica has the lock and the fencing token`, async () => {
        await resetPair();
        await pair.redis.script('FLUSH'); // the pipeline's NOSCRIPT path: the pair sent again with EVAL
        const evals = await commandCalls(pair.redis, 'eval');
        pair.link.setLatency(SLOW_LINK_MS);
        const output = await run(pair.master.url, 'replica-acked', pair.replica.url);
        // EVAL twice: the first pipelined acquire's and withLock's release's, each after its NOSCRIPT.
        assert.equal((await commandCalls(pair.redis, 'eval')) - evals, 2, 'the pair was sent again with EVAL');
        const control: unknown = JSON.parse(/^control (.*)$/m.exec(output)?.[1] ?? '"missing"');
        assert.ok(control === null || control === false, 'the control: without the option, not on the replica yet');
        const acked = JSON.parse(/^acked (.*)$/m.exec(output)?.[1] ?? '[]') as unknown[];
        const [token, fence] = acked;
        assert.equal(fence, 1);
        assert.deepEqual(
          acked.slice(2),
          [token, '1'],
          'the replica had the lock and the fence when the acquire returned',
        );
        assert.match(output, /^with-lock \S+$/m);
        assert.equal(await pair.redis.exists('proof:with'), 0, 'withLock released it');
      });

      if (proof.client === 'predis')
        test(`replica-wait through a Predis replication client (master and replica), a ${SLOW_LINK_MS} ms link: acknowledged as on one server`, async () => {
          await resetPair();
          pair.link.setLatency(SLOW_LINK_MS);
          const env = { ...proof.env, PROOF_PREDIS_REPLICA: pair.replica.url };
          const output = await start(command, pair.master.url, env, ['replica-acked', pair.replica.url]).done;
          const acked = JSON.parse(/^acked (.*)$/m.exec(output)?.[1] ?? '[]') as unknown[];
          assert.equal(acked[1], 1, 'the fencing token');
          assert.deepEqual(
            acked.slice(2),
            [acked[0], '1'],
            'the replica had the lock and the fence when the acquire returned',
          );
          assert.match(output, /^with-lock \S+$/m);
        });

      test('replica-wait: the connection killed during WAIT is a shortfall, the lock given back', async () => {
        await resetPair();
        pair.link.cut('refuse'); // no replica acknowledges: WAIT waits its 5 s
        try {
          const done = run(pair.master.url, 'replica-lost');
          const waiting = async () => /^id=(\d+) .*cmd=wait /m.exec((await pair.redis.client('LIST')) as string)?.[1];
          await waitFor('the program waiting in WAIT', async () => (await waiting()) !== undefined);
          await pair.redis.client('KILL', 'ID', (await waiting())!);
          const output = await done;
          // None of the three resends a pipeline whose replies were lost (connection_lost: Ruby's symbol).
          assert.match(output, /^shortfall connection.lost released$/m);
          assert.equal(await pair.redis.exists('proof:lock'), 0, 'given back');
        } finally {
          pair.link.restore();
        }
      });

      test(`replica-wait, fsync on ${server === 'redis' ? 'Redis 7.0 (no WAITAOF)' : 'appendonly no'}: misconfigured, released whatever the callback`, async () => {
        const output = await run(fx.server.url, 'replica-fsync');
        const reason = server === 'redis' ? 'no.waitaof' : 'aof.off';
        assert.match(output, new RegExp(`^shortfall ${reason} released not-called$`, 'm'));
        const needs = server === 'redis' ? 'WAITAOF, which this server does not have' : 'appendonly yes on the master';
        assert.match(output, new RegExp(`^message proof:lock: wait.?for.?replicas.fsync needs ${needs}`, 'im'));
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
      });

      if (helperKinds(proof.client).includes('multi')) {
        test('multi: overlapping key sets under contention: no deadlock, no partial hold, never two holders, the money adds up', async (t) => {
          const accounts = ['a', 'b', 'c', 'd'].map((account) => `proof:acct:${account}`);
          for (const account of accounts) await fx.redis.set(account, '100');
          const [, , , trying] = await Promise.all([
            run(fx.server.url, 'multi', '30'),
            run(fx.server.url, 'multi', '30'),
            run(fx.server.url, 'multi', '30'),
            run(fx.server.url, 'multi-try', '30'),
          ]);
          const { busy, tries } = JSON.parse(trying.trim()) as { busy: number; tries: number };
          t.diagnostic(`${busy} of ${tries} tries found a key busy`);
          assert.ok(busy > 0, 'the tries met contention');
          const balances = await Promise.all(accounts.map(async (account) => Number(await fx.redis.get(account))));
          assert.equal(
            balances.reduce((sum, balance) => sum + balance, 0),
            400,
            `balances ${balances.join(', ')}`,
          );
          assert.equal(
            await fx.redis.exists(...accounts.map((account) => `lock:${account}`)),
            0,
            'every lock released',
          );
        });

        test('multi: bad keys and ttl are refused, naming the cause, before anything is sent', async () => {
          await fx.redis.config('RESETSTAT');
          const refused = (await run(fx.server.url, 'multi-bad')).trim().split('\n');
          const notKeys = 'refused keys must be a non-empty array of non-empty lock key strings, got';
          const expected =
            proof.client === 'redis-rb'
              ? [
                  `${notKeys} []`,
                  'refused keys names lock:a more than once: give each lock key once',
                  `${notKeys} ["lock:a", ""]`,
                  `${notKeys} "lock:a"`,
                  'refused ttl_ms must be a positive integer of milliseconds, got 0',
                ]
              : [
                  'refused keys must be a non-empty list of lock keys',
                  'refused keys names lock:a more than once: give each lock key once',
                  "refused keys must be non-empty strings, got ''",
                  'refused keys must be a non-empty list of lock keys',
                  'refused ttlMs must be a positive integer of milliseconds, got 0',
                ];
          if (proof.client === 'predis')
            expected.push(
              'refused acquireMulti takes every key in one call on one server: a cluster client is not supported, connect to one server',
            );
          assert.deepEqual(refused, expected);
          assert.doesNotMatch(await fx.redis.info('commandstats'), /cmdstat_(evalsha|eval):/, 'nothing sent');
        });
      }

      test('replica-wait: bad values are refused, naming the value, before anything is sent', async () => {
        await fx.redis.config('RESETSTAT');
        const output = await run(fx.server.url, 'replica-bad');
        const { option, timeout } = spelling;
        const refused = output.trim().split('\n');
        assert.equal(refused.length, proof.client === 'predis' ? 8 : 7, output);
        assert.match(refused[0], new RegExp(`^refused ${option}replicas must be a positive integer, got 0$`));
        assert.match(refused[1], new RegExp(`^refused ${option}replicas must be a positive integer, got ["']1["']$`));
        assert.match(
          refused[2],
          new RegExp(`^refused ${option}${timeout} must be a positive integer of milliseconds, got 0$`),
        );
        assert.match(
          refused[3],
          new RegExp(
            `^refused ${option}${timeout} \\(500\\) must be shorter than the lease \\(300 ms\\): the wait spends it$`,
          ),
        );
        assert.match(refused[4], new RegExp(`^refused ${option}fsync must be true or false, got ["']yes["']$`));
        assert.match(refused[5], new RegExp(`^refused ${option}${spelling.onShortfall} must be`));
        assert.match(refused[6], /has no timeout; it takes replicas, /);
        if (proof.client === 'predis')
          assert.match(refused[7], /^refused waitForReplicas needs a Predis client of one server/);
        const stats = await fx.redis.info('commandstats');
        assert.doesNotMatch(stats, /cmdstat_(evalsha|eval|wait|waitaof):/, 'nothing sent');
      });
    });
  }
}

// The redis-py helper's parts, run as real programs (test/proofs/helpers/redis-py.py) on Debian's
// redis-py and the newest from PyPI, sync and asyncio, against Redis 7.0 and Valkey 9:
// - asyncio: the core proofs' asyncio halves (renewal, fencing, busy after the bound);
// - fenced-writes: set_if_held writes only while the lease holds the lock, set_fenced refuses an
//   older fencing token than the data key's; a holder SIGSTOPped past its lease while another
//   takes the lock and writes has both its writes refused after SIGCONT (Kleppmann's pause);
// - replica-wait (docs/dev/wait-for-replicas.md): on a master with no replica an acquire falls short
//   and gives the lock back (or keeps it with on_shortfall); with a real replica behind a slow link
//   it returns once the replica has the lock and its fencing token; bad values are refused before
//   anything is sent; a RedisCluster sends the pair to the lock's master, whose replica has it on return.
//   A connection cut during the wait (a proxy) is a connection-lost shortfall, never held.
// - multi: 3 processes (2 sync, 1 asyncio) x 30 transfers between 2 or 3 of 4 accounts under
//   multi_lock and one trying 30 times without waiting, on overlapping key sets: every waiting
//   acquire succeeds (no deadlock), a busy try holds none of its keys, no lock ever has two holders,
//   the balances add up; the same with 3 + 1 processes x 20 on a real Cluster through RedisCluster,
//   the 4 locks in 4 slots; extend/release answer True only while every key was held; bad keys and
//   values refused before anything is sent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Cluster, Redis } from 'ioredis';
import { keySlot, waitersKey } from '../pack/layout';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { startProxy, type TcpProxy } from '../harness/proxy';
import { SERVER_KINDS, startCluster, startRedis, type RedisCluster, type RedisServer } from '../harness/redis';
import { HELPER_PROOFS, prepareOnce, proofName, type HelperProof } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';
import { sleep, waitFor } from './helpers';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-redis-py-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Long enough that a write is certainly not on the replica when an acquire returns without waiting. */
const SLOW_LINK_MS = 200;

const ACCOUNTS = ['a', 'b', 'c', 'd'].map((account) => `proof:acct:${account}`);

/** The accounts' balances add up and every lock is released once the transfers are done. */
async function assertBalanced(redis: Redis | Cluster): Promise<void> {
  const balances = await Promise.all(ACCOUNTS.map(async (account) => Number(await redis.get(account))));
  assert.equal(
    balances.reduce((sum, balance) => sum + balance, 0),
    400,
    `balances ${balances.join(', ')}`,
  );
  for (const account of ACCOUNTS) assert.equal(await redis.exists(`lock:${account}`), 0, `lock:${account} released`);
}

/** The commands the server has run, by name (INFO commandstats). */
async function commandCounts(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  return new Map([...info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map((match) => [match[1], Number(match[2])]));
}

for (const server of SERVER_KINDS) {
  describe(server, () => {
    let master: RedisServer;
    let replica: RedisServer;
    let link: TcpProxy;
    let redis: Redis;
    let locks: LockScripts;

    before(async () => {
      master = await startRedis({ server, args: ['--repl-diskless-sync-delay', '0'] });
      link = await startProxy(master.port);
      redis = master.client();
      locks = new LockScripts(redis, pack);
    });
    beforeEach(async () => {
      link.setLatency(0);
      await redis.flushall();
    });
    after(async () => {
      locks?.close();
      redis?.disconnect();
      await replica?.stop();
      await master?.stop();
      await link?.close();
    });

    const proofs = HELPER_PROOFS.filter((candidate) => candidate.client === 'redis-py');
    const prepared = (proof: HelperProof) => prepareOnce(proof, work, pack, 'all');
    const run = async (proof: HelperProof, ...args: string[]) =>
      start(await prepared(proof), master.url, proof.env ?? {}, args).done;

    // The core proofs (test/helpers-proof.test.ts) run the core alone, sync: their asyncio halves run here.
    describe('asyncio', () => {
      for (const proof of proofs) {
        test(`${proofName(proof)}: renewal (sync and asyncio), fencing tokens that grow (asyncio), busy after the bound (asyncio)`, async () => {
          assert.match(await run(proof, 'renew'), /^renewed$/m);
          assert.equal(await redis.exists('proof:lock'), 0);
          await Promise.all([run(proof, 'fence', '20'), run(proof, 'fence', '20')]);
          const tokens = (await redis.lrange('proof:tokens', 0, -1)).map(Number);
          assert.equal(tokens.length, 40);
          for (let i = 1; i < tokens.length; i++)
            assert.ok(tokens[i] > tokens[i - 1], `${tokens[i]} after ${tokens[i - 1]}`);
          await redis.set('proof:lock', 'other-owner', 'PX', 60_000);
          const [, elapsed, message] = /^busy (\d+) (.*)$/m.exec(await run(proof, 'busy')) ?? [];
          assert.ok(Number(elapsed) >= 500, `the sync wait gave up after ${elapsed} ms`);
          assert.match(message, /proof:lock is held by another owner; gave up after waiting 500 ms/);
          assert.equal(await redis.get('proof:lock'), 'other-owner');
          assert.equal(await redis.exists(waitersKey('proof:lock')!), 0, 'the waiters left the line');
        });
      }
    });

    describe('fenced-writes', () => {
      for (const proof of proofs) {
        test(`${proofName(proof)}: set_if_held only while held; set_fenced refuses an older token (sync, asyncio)`, async () => {
          const output = await run(proof, 'fenced-writes');
          assert.match(output, /^fenced 1 2$/m);
          assert.deepEqual(
            output.split('\n').filter((line) => line.startsWith('refused ')),
            [
              'refused set_fenced needs a fencing token: acquire proof:plain with fence_key',
              "refused set_if_held works on a plain lock's lease; proof:rw is held by no single token",
            ],
          );
          assert.equal(await redis.get('proof:{w}:data'), 'first', 'the lapsed writes wrote nothing');
          assert.deepEqual(await redis.hgetall('proof:fenced'), { value: 'second again', fence: '2' });
          assert.equal(await redis.get('proof:{a}:data'), 'async');
          assert.deepEqual(await redis.hgetall('proof:fenced-async'), { value: 'async', fence: '1' });
        });

        for (const mode of ['sync', 'async']) {
          test(`${proofName(proof)} (${mode}): a holder SIGSTOPped past its lease while another takes the lock and writes has both writes refused after SIGCONT`, async () => {
            const [file, ...rest] = await prepared(proof);
            const child = spawn(file, [...rest, master.url, 'paused', mode], { env: { ...process.env, ...proof.env } });
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
            try {
              child.kill('SIGSTOP');
              await waitFor('the paused lease ended', async () => (await redis.exists('proof:{paused}')) === 0);
              // The premise: the stop took hold in the holder's sleep, before it wrote anything.
              assert.equal(
                await redis.exists('proof:{paused}:data', 'proof:paused-fenced'),
                0,
                'the holder wrote before the stop took hold: rerun on a less loaded machine',
              );
              const fence = 'proof:{paused}:fence';
              assert.equal(await locks.acquire('proof:{paused}', 'next', 60_000, { fence }), 2);
              assert.equal(await locks.fenced.setIfHeld('proof:{paused}', 'proof:{paused}:data', 'next', 'next'), true);
              assert.equal(await locks.fenced.set('proof:paused-fenced', 2, 'next'), true);
            } finally {
              child.kill('SIGCONT');
            }
            assert.equal(await exited, 0, output);
            assert.match(output, /^wrote False False$/m);
            assert.equal(await redis.get('proof:{paused}:data'), 'next');
            assert.deepEqual(await redis.hgetall('proof:paused-fenced'), { value: 'next', fence: '2' });
          });
        }
      }
    });

    describe('replica-wait, no replica', () => {
      for (const proof of proofs) {
        test(`${proofName(proof)}: a shortfall gives the lock back (sync, waiting, asyncio); on_shortfall keeps it`, async () => {
          assert.equal(/^connected_slaves:(\d+)/m.exec(await redis.info('replication'))?.[1], '0');
          const output = await run(proof, 'shortfall');
          assert.match(
            output,
            /^shortfall timeout 0: proof:lock was acknowledged by 0 of 1 replica within 50 ms \(WAIT\): released, not held\. Check the replicas \(INFO replication: connected_slaves, their lag\), or pass on_shortfall to keep such locks$/m,
          );
          assert.match(output, /^queued shortfall, fence 1$/m);
          assert.match(output, /^async shortfall 0: proof:async was acknowledged by 0 of 1 replica/m);
          for (const key of ['proof:lock', 'proof:{queued}', 'proof:async'])
            assert.equal(await redis.exists(key), 0, key);
          assert.equal(await redis.exists(waitersKey('proof:{queued}')!), 0, 'left the line');
          const kept = /^kept (\S+) timeout 0$/m.exec(output)?.[1];
          assert.equal(await redis.get('proof:kept'), kept, 'on_shortfall kept the lock');
          const keptAsync = /^async kept (\S+) timeout$/m.exec(output)?.[1];
          assert.equal(await redis.get('proof:kept-async'), keptAsync, 'on_shortfall kept the lock (asyncio)');
          // fsync where the server cannot: released whatever on_shortfall says.
          const fsync =
            server === 'redis'
              ? 'no-waitaof: proof:fsync: wait_for_replicas.fsync needs WAITAOF, which this server does not have'
              : 'aof-off: proof:fsync: wait_for_replicas.fsync needs appendonly yes on the master, which has it off';
          assert.ok(output.includes(`\nfsync ${fsync}`), output);
        });

        test(`${proofName(proof)}: a connection cut during the wait is a connection-lost shortfall, never held`, async () => {
          const proxy = await startProxy(master.port);
          try {
            const running = start(await prepared(proof), proxy.url, proof.env ?? {}, ['lost']);
            await waitFor('the acquire on the master', async () => (await redis.exists('proof:lost')) === 1);
            await sleep(200); // the WAIT behind it is waiting (20 s: no replica)
            proxy.cut('refuse');
            assert.match(
              await running.done,
              /^lost connection-lost False: proof:lost: the connection closed before the replicas acknowledged the acquire \(it may not have reached any\): could not be released \(it ends with its lease\), not held\./m,
            );
            assert.ok((await redis.pttl('proof:lost')) > 0, 'the lock ends with its lease');
          } finally {
            await proxy.close();
          }
        });

        test(`${proofName(proof)}: bad values are refused with a message naming them, before anything is sent`, async () => {
          await redis.config('RESETSTAT');
          const output = await run(proof, 'bad-replicas');
          const refused = output.split('\n').filter((line) => line.startsWith('refused '));
          assert.deepEqual(refused, [
            'refused wait_for_replicas.replicas must be a positive integer, got 0',
            'refused wait_for_replicas.replicas must be a positive integer, got True',
            'refused wait_for_replicas.timeout_ms must be a positive integer of milliseconds, got 0',
            'refused wait_for_replicas.timeout_ms (300) must be shorter than the lease (300 ms): the wait spends it',
            "refused wait_for_replicas.fsync must be True or False, got 'yes'",
            "refused wait_for_replicas.on_shortfall must be 'release' or a function, got 'keep'",
            "refused wait_for_replicas must be a WaitForReplicas or a dict of replicas, timeout_ms, fsync, on_shortfall, got {'replica': 1}",
            'refused wait_for_replicas must be a WaitForReplicas or a dict of replicas, timeout_ms, fsync, on_shortfall, got 1',
            'refused wait_for_replicas.timeout_ms (1000) must be shorter than the lease (300 ms): the wait spends it',
          ]);
          const sent = [...(await commandCounts(redis)).keys()].filter(
            (name) => name !== 'info' && name !== 'config|resetstat',
          );
          assert.deepEqual(sent, [], "nothing but the test's own commands reached the server");
        });
      }
    });

    describe('multi', () => {
      for (const proof of proofs) {
        test(`${proofName(proof)}: overlapping key sets under contention (2 sync and 1 asyncio waiting, 1 trying): no deadlock, no partial hold, never two holders, the money adds up`, async (t) => {
          for (const account of ACCOUNTS) await redis.set(account, '100');
          await redis.set('proof:started', '0');
          const [, , , trying] = await Promise.all([
            run(proof, 'multi', '30'),
            run(proof, 'multi', '30'),
            run(proof, 'multi-async', '30'),
            run(proof, 'multi-try', '30'),
          ]);
          const busy = Number(/^busy (\d+)$/m.exec(trying)?.[1]);
          t.diagnostic(`${busy} of 30 tries found a key busy`);
          assert.ok(busy > 0, 'the tries met contention');
          await assertBalanced(redis);
        });

        test(`${proofName(proof)}: extend and release answer True only while every key was held; busy names a busy key and holds none; a waiter is woken by the release`, async (t) => {
          const output = await run(proof, 'multi-lease');
          const lines = output.split('\n');
          for (const line of [
            'keys proof:{m}:a proof:{m}:b True True True',
            'lost False False other 0',
            'busy proof:{m}:a 0: proof:{m}:a is held by another owner; gave up after waiting 0 ms',
            'renewed 3 False True 0',
            'block lost 0: lease on proof:{m}:a, proof:{m}:b lost: it expired or was taken before release',
            'async lost False False 0',
            'async held True True',
            'async busy proof:{m}:a 0',
          ])
            assert.ok(lines.includes(line), `${line}\nnot in:\n${output}`);
          const waited = /^waited (\d+) 0: proof:\{m\}:a is held by another owner; gave up after waiting 300 ms$/m.exec(
            output,
          );
          assert.ok(waited && Number(waited[1]) >= 300, output);
          // Its retry bound is 30 s and the holder's lease 60 s: only the release's wake-up is this quick.
          const woken = /^woken (\d+) proof:\{m\}:b proof:\{m\}:c$/m.exec(output);
          t.diagnostic(`woken ${woken?.[1]} ms after it began waiting (the holder released 200 ms in)`);
          assert.ok(woken && Number(woken[1]) < 5000, output);
          assert.equal(await redis.exists('proof:{m}:b', 'proof:{m}:c'), 0, 'every lease released');
        });

        test(`${proofName(proof)}: bad keys and values are refused with a message naming them, before anything is sent`, async () => {
          await redis.config('RESETSTAT');
          const output = await run(proof, 'multi-bad');
          assert.deepEqual(
            output.split('\n').filter((line) => line.startsWith('refused ')),
            [
              'refused ValueError keys is empty: a multi-key lock takes one or more lock keys',
              "refused ValueError keys names 'proof:{m}:a' more than once: give each lock key once",
              "refused TypeError keys must be a list of non-empty strings (the lock keys), got 'proof:{m}:a'",
              "refused TypeError keys must be a list of non-empty strings (the lock keys), got ['proof:{m}:a', '']",
              "refused TypeError keys must be a list of non-empty strings (the lock keys), got ['proof:{m}:a', 7]",
              'refused ValueError ttl_ms must be a positive integer of milliseconds, got 0',
              'refused ValueError wait_ms must be a non-negative integer of milliseconds, got -1',
              'refused ValueError retry_ms must be a positive integer of milliseconds, got 0',
              'refused async keys is empty: a multi-key lock takes one or more lock keys',
              "refused async keys names 'proof:{m}:a' more than once: give each lock key once",
              'refused block ttl_ms must be a positive integer of milliseconds, got True',
            ],
          );
          const sent = [...(await commandCounts(redis)).keys()].filter(
            (name) => name !== 'info' && name !== 'config|resetstat',
          );
          assert.deepEqual(sent, [], "nothing but the test's own commands reached the server");
        });
      }
    });

    describe('a Cluster with a replica per master', () => {
      let cluster: RedisCluster;
      before(async () => {
        cluster = await startCluster({ server, replicas: 1 });
      });
      after(async () => {
        await cluster?.stop();
      });

      for (const proof of proofs) {
        test(`${proofName(proof)}: multi across 4 slots through RedisCluster (3 waiting, one of them asyncio past redis-py 4.3, and 1 trying): no deadlock, no partial hold, never two holders, the money adds up`, async (t) => {
          const slots = new Set(ACCOUNTS.map((account) => keySlot(`lock:${account}`)));
          assert.equal(slots.size, 4, 'the 4 locks hash to 4 slots');
          const client = await cluster.client();
          try {
            for (const account of ACCOUNTS) await client.set(account, '100');
            await client.set('proof:started', '0');
            const url = cluster.masters[0].url;
            const cmd = await prepared(proof);
            const multi = (mode: string) => start(cmd, url, proof.env ?? {}, [mode, '20', 'cluster']).done;
            // Debian's redis-py 4.3 cannot run a script through an asyncio RedisCluster (its AsyncScript
            // reads the client's connection_pool, which a RedisCluster has not): sync there.
            const third = proof.label === undefined ? 'multi' : 'multi-async';
            const [, , , trying] = await Promise.all([
              multi('multi'),
              multi('multi'),
              multi(third),
              multi('multi-try'),
            ]);
            t.diagnostic(`${/^busy (\d+)$/m.exec(trying)?.[1]} of 20 tries busy`);
            await assertBalanced(client);
          } finally {
            client.disconnect();
          }
        });
      }

      for (const proof of proofs) {
        test(`${proofName(proof)}: RedisCluster sends the pair to the lock's master, whose replica has it on return`, async () => {
          for (const node of cluster.masters) {
            const client = node.client();
            await client.flushall();
            client.disconnect();
          }
          const output = await start(await prepared(proof), cluster.masters[0].url, proof.env ?? {}, ['cluster']).done;
          const masters = new Set(
            [...output.matchAll(/^acknowledged proof:\{[a-d]\} 1 (\d+)$/gm)].map((match) => match[1]),
          );
          assert.equal(masters.size, 3, `the four locks span the three masters:\n${output}`);
          assert.match(output, /^shortfall 1 True 0$/m);
          assert.match(output, /^refused wait_for_replicas needs a redis\.asyncio\.Redis here, not a RedisCluster/m);
        });
      }
    });

    describe('replica-wait, with a replica behind a slow link', () => {
      before(async () => {
        replica = await startRedis({
          server,
          args: ['--repl-diskless-sync-delay', '0', '--replicaof', '127.0.0.1', String(link.port)],
        });
        assert.equal(await redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
      });

      for (const proof of proofs) {
        test(`${proofName(proof)}: held once the replica has the lock and its fencing token (one-shot, waiting, asyncio)`, async () => {
          link.setLatency(SLOW_LINK_MS);
          const output = await run(proof, 'acknowledged', replica.url);
          assert.match(output, /^acknowledged 1$/m);
          assert.equal(await redis.exists('proof:{lock}', 'proof:{wait}'), 2, 'the sync leases are held');
          assert.equal(await redis.exists('proof:async'), 0, 'the block released');
        });
      }
    });
  });
}

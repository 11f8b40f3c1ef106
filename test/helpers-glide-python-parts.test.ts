// The Valkey GLIDE for Python helper's parts, run as real programs (test/proofs/helpers/glide-python.py)
// on the pinned valkey-glide (test/proofs/glide/requirements.txt) against Redis 7.0 and Valkey 9:
// - fenced-writes: set_if_held writes only while the lease holds the lock, set_fenced refuses an
//   older fencing token than the data key's; a holder SIGSTOPped past its lease while another
//   takes the lock and writes has both its writes refused after SIGCONT (Kleppmann's pause);
// - replica-wait (docs/dev/wait-for-replicas.md): on a master with no replica an acquire falls short
//   and gives the lock back (or keeps it with on_shortfall); with a real replica behind a slow link
//   it returns once the replica has the lock and its fencing token; bad values are refused before
//   anything is sent; a GlideClusterClient sends the pair to the lock's master, whose replica has it on
//   return; a connection cut during the wait (a proxy) is a connection-lost shortfall, never held.
// - multi: 3 processes x 30 transfers between 2 or 3 of 4 accounts under multi_lock and one trying
//   30 times without waiting, on overlapping key sets: every waiting acquire succeeds (no deadlock),
//   a busy try holds none of its keys, no lock ever has two holders, the balances add up; the same
//   with 3 + 1 processes x 20 on a real Cluster through GlideClusterClient, the 4 locks in 4 slots,
//   where a waiter is woken by the release; extend/release answer True only while every key was
//   held; bad keys and values refused before anything is sent.
import assert from 'node:assert/strict';
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
import { HELPER_PROOFS, prepareOnce } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';
import { sleep, waitFor } from './helpers';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-glide-python-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

const proof = HELPER_PROOFS.find((candidate) => candidate.client === 'glide-python')!;
const prepared = () => prepareOnce(proof, work, pack, 'all');

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

    const run = async (...args: string[]) => start(await prepared(), master.url, proof.env ?? {}, args).done;

    describe('fenced-writes', () => {
      test('set_if_held only while held; set_fenced refuses an older token; both refused before sending on the wrong lease', async () => {
        const output = await run('fenced-writes');
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
        assert.equal(await redis.exists('proof:rw:data'), 0);
      });

      test('a holder SIGSTOPped past its lease while another takes the lock and writes has both writes refused after SIGCONT', async () => {
        const holder = start(await prepared(), master.url, proof.env ?? {}, ['paused']);
        await holder.printed('held 1');
        try {
          holder.signal('SIGSTOP');
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
          holder.signal('SIGCONT');
        }
        assert.match(await holder.done, /^wrote False False$/m);
        assert.equal(await redis.get('proof:{paused}:data'), 'next');
        assert.deepEqual(await redis.hgetall('proof:paused-fenced'), { value: 'next', fence: '2' });
      });
    });

    describe('replica-wait, no replica', () => {
      test('a shortfall gives the lock back (one-shot, waiting); on_shortfall keeps it; fsync the server cannot honour gives it back', async () => {
        assert.equal(/^connected_slaves:(\d+)/m.exec(await redis.info('replication'))?.[1], '0');
        const output = await run('shortfall');
        assert.match(
          output,
          /^shortfall timeout 0: proof:lock was acknowledged by 0 of 1 replica within 50 ms \(WAIT\): released, not held\. Check the replicas \(INFO replication: connected_slaves, their lag\), or pass on_shortfall to keep such locks$/m,
        );
        assert.match(output, /^queued shortfall, fence 1$/m);
        for (const key of ['proof:lock', 'proof:{queued}']) assert.equal(await redis.exists(key), 0, key);
        assert.equal(await redis.exists(waitersKey('proof:{queued}')!), 0, 'left the line');
        const kept = /^kept (\S+) timeout 0$/m.exec(output)?.[1];
        assert.equal(await redis.get('proof:kept'), kept, 'on_shortfall kept the lock (after NOSCRIPT)');
        assert.match(output, /^block kept True timeout$/m, 'a coroutine on_shortfall kept the lock for the block');
        const fsync =
          server === 'redis'
            ? 'no-waitaof: proof:fsync: wait_for_replicas.fsync needs WAITAOF, which this server does not have'
            : 'aof-off: proof:fsync: wait_for_replicas.fsync needs appendonly yes on the master, which has it off';
        assert.ok(output.includes(`\nfsync ${fsync}`), output);
      });

      test('a connection cut during the wait is a connection-lost shortfall, never held', async () => {
        const proxy = await startProxy(master.port);
        try {
          const running = start(await prepared(), proxy.url, proof.env ?? {}, ['lost']);
          await waitFor('the acquire on the master', async () => (await redis.exists('proof:lost')) === 1);
          await sleep(200); // the WAIT behind it is waiting (20 s: no replica)
          proxy.cut('refuse');
          // GLIDE fails the batch (FatalReceiveError) and the give-back finds the proxy refusing.
          assert.match(
            await running.done,
            /^lost connection-lost False: proof:lost: the connection closed before the replicas acknowledged the acquire \(it may not have reached any\): could not be released \(it ends with its lease\), not held\./m,
          );
          assert.ok((await redis.pttl('proof:lost')) > 0, 'the lock ends with its lease');
        } finally {
          await proxy.close();
        }
      });

      test('bad values are refused with a message naming them, before anything is sent', async () => {
        const output = await run('bad-replicas');
        assert.deepEqual(
          output.split('\n').filter((line) => line.startsWith('refused ')),
          [
            'refused wait_for_replicas.replicas must be a positive integer, got 0',
            'refused wait_for_replicas.replicas must be a positive integer, got True',
            'refused wait_for_replicas.timeout_ms must be a positive integer of milliseconds, got 0',
            'refused wait_for_replicas.timeout_ms (300) must be shorter than the lease (300 ms): the wait spends it',
            "refused wait_for_replicas.fsync must be True or False, got 'yes'",
            "refused wait_for_replicas.on_shortfall must be 'release' or a function, got 'keep'",
            "refused wait_for_replicas must be a WaitForReplicas or a dict of replicas, timeout_ms, fsync, on_shortfall, got {'replica': 1}",
            'refused wait_for_replicas must be a WaitForReplicas or a dict of replicas, timeout_ms, fsync, on_shortfall, got 1',
            'refused wait_for_replicas works with the plain lock, not a reentrant, read-write or semaphore one',
          ],
        );
        const sent = [...(await commandCounts(redis)).keys()].filter(
          (name) => name !== 'info' && name !== 'config|resetstat',
        );
        assert.deepEqual(sent, [], "nothing but the program's reset and the test's INFO reached the server");
      });
    });

    describe('multi', () => {
      test('overlapping key sets under contention (3 waiting, 1 trying): no deadlock, no partial hold, never two holders, the money adds up', async (t) => {
        for (const account of ACCOUNTS) await redis.set(account, '100');
        await redis.set('proof:started', '0');
        const [, , , trying] = await Promise.all([
          run('multi', '30'),
          run('multi', '30'),
          run('multi', '30'),
          run('multi-try', '30'),
        ]);
        const busy = Number(/^busy (\d+)$/m.exec(trying)?.[1]);
        t.diagnostic(`${busy} of 30 tries found a key busy`);
        assert.ok(busy > 0, 'the tries met contention');
        await assertBalanced(redis);
      });

      test('extend and release answer True only while every key was held; busy names a busy key and holds none', async () => {
        const output = await run('multi-lease');
        const lines = output.split('\n');
        for (const line of [
          'keys proof:{m}:a proof:{m}:b True True True',
          'lost False False other 0',
          'busy proof:{m}:a 0: proof:{m}:a is held by another owner; gave up after waiting 0 ms',
          'renewed 3 False True 0',
          'block lost 0: lease on proof:{m}:a, proof:{m}:b lost: it expired or was taken before release',
        ])
          assert.ok(lines.includes(line), `${line}\nnot in:\n${output}`);
        const waited = /^waited (\d+) 0: proof:\{m\}:a is held by another owner; gave up after waiting 300 ms$/m.exec(
          output,
        );
        // The helper counts whole ms left: it gives up once less than 1 ms of the 300 is left.
        assert.ok(waited && Number(waited[1]) >= 299, output);
        assert.match(output, /^taken \d+ proof:\{m\}:b proof:\{m\}:c$/m, 'taken once the holder released');
        assert.equal(await redis.exists('proof:{m}:b', 'proof:{m}:c'), 0, 'every lease released');
      });

      test('bad keys and values are refused with a message naming them, before anything is sent', async () => {
        const output = await run('multi-bad');
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
            'refused block ttl_ms must be a positive integer of milliseconds, got True',
          ],
        );
        const sent = [...(await commandCounts(redis)).keys()].filter(
          (name) => name !== 'info' && name !== 'config|resetstat',
        );
        assert.deepEqual(sent, [], "nothing but the program's reset and the test's INFO reached the server");
      });
    });

    describe('a Cluster with a replica per master', () => {
      let cluster: RedisCluster;
      before(async () => {
        cluster = await startCluster({ server, replicas: 1 });
      });
      after(async () => {
        await cluster?.stop();
      });

      test('multi across 4 slots (3 waiting, 1 trying): no deadlock, no partial hold, never two holders, the money adds up; a waiter woken by the release', async (t) => {
        const slots = new Set(ACCOUNTS.map((account) => keySlot(`lock:${account}`)));
        assert.equal(slots.size, 4, 'the 4 locks hash to 4 slots');
        const url = `cluster://${cluster.masters.map((node) => `127.0.0.1:${node.port}`).join(',')}`;
        const client = await cluster.client();
        try {
          for (const account of ACCOUNTS) await client.set(account, '100');
          await client.set('proof:started', '0');
          const multi = async (...args: string[]) => start(await prepared(), url, proof.env ?? {}, args).done;
          const [, , , trying] = await Promise.all([
            multi('multi', '20'),
            multi('multi', '20'),
            multi('multi', '20'),
            multi('multi-try', '20'),
          ]);
          t.diagnostic(`${/^busy (\d+)$/m.exec(trying)?.[1]} of 20 tries busy`);
          await assertBalanced(client);
          // Its retry bound is 30 s and the holder's lease 60 s: only the release's wake-up is this quick.
          const woken = /^woken (\d+) True$/m.exec(await multi('multi-woken'));
          t.diagnostic(`woken ${woken?.[1]} ms after it started waiting (released after 300 ms)`);
          assert.ok(woken && Number(woken[1]) < 5000, `woken ${woken?.[1]} ms after it started waiting`);
        } finally {
          client.disconnect();
        }
      });

      test("GlideClusterClient sends the pair to the lock's master, whose replica has it on return", async () => {
        const url = `cluster://${cluster.masters.map((node) => `127.0.0.1:${node.port}`).join(',')}`;
        const output = await start(await prepared(), url, proof.env ?? {}, ['cluster']).done;
        const masters = new Set(
          [...output.matchAll(/^acknowledged proof:\{[a-d]\} 1 (\d+)$/gm)].map((match) => match[1]),
        );
        assert.equal(masters.size, 3, `the four locks span the three masters:\n${output}`);
        assert.match(output, /^shortfall 1 True 0$/m);
      });
    });

    describe('replica-wait, with a replica behind a slow link', () => {
      before(async () => {
        replica = await startRedis({
          server,
          args: ['--repl-diskless-sync-delay', '0', '--replicaof', '127.0.0.1', String(link.port)],
        });
        assert.equal(await redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
      });

      test('held once the replica has the lock and its fencing token (one-shot, waiting, a block)', async () => {
        link.setLatency(SLOW_LINK_MS);
        const output = await run('acknowledged', replica.url);
        assert.match(output, /^acknowledged 1$/m);
        assert.equal(await redis.exists('proof:{lock}', 'proof:{wait}'), 2, 'the leases are held');
        assert.equal(await redis.exists('proof:block'), 0, 'the block released');
      });
    });
  });
}

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
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { waitersKey } from '../pack/layout';
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

    describe('replica-wait in a Cluster', () => {
      let cluster: RedisCluster;
      before(async () => {
        cluster = await startCluster({ server, replicas: 1 });
      });
      after(async () => {
        await cluster?.stop();
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

// The Jedis, Lettuce, Spring Data Redis and Valkey GLIDE for Java helpers' parts, run as real programs
// (test/proofs/helpers/<client>.java and jvm-parts.java) against a throwaway Redis 7.0 and Valkey 9:
// - replica-wait (docs/dev/wait-for-replicas.md): on a master with no replica the acquire is a
//   shortfall and the lock is given back, or kept with the callback; a real replica behind a
//   slow link has the lock (and its fencing token) once the acquire returns; a busy lock is busy;
//   fsync on a server that cannot honour it is released whatever the callback says; bad values are
//   refused before anything is sent; the connection cut during the wait is a connection-lost
//   shortfall (a WAIT Lettuce resends alone on its new connection is no acknowledgement);
// - fenced-writes: a holder whose lease expired, or was taken by another token, has its guarded
//   write refused; a fenced write with an older token than the data key's is refused, a newer one
//   commits; the data keys hold what the writes that were let through wrote.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Cluster, default as Redis } from 'ioredis';
import { keySlot } from '../pack/layout';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { startProxy, type TcpProxy } from '../harness/proxy';
import {
  SERVER_KINDS,
  startCluster,
  startRedis,
  type RedisCluster,
  type RedisServer,
  type ServerKind,
} from '../harness/redis';
import { sleep, useRedis, waitFor } from './helpers';
import { HELPER_PROOFS, prepareOnce, proofName } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-jvm-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

const JVM = ['jedis', 'lettuce', 'spring-data-redis', 'glide-java'];
const KEY = 'proof:lock';
const FENCE = 'proof:fence';
/** Long enough that a write is certainly not on the replica when an acquire returns without waiting. */
const SLOW_LINK_MS = 200;

interface Pair {
  master: RedisServer;
  replica: RedisServer;
  link: TcpProxy;
  primary: Redis;
  /** Reads the replica directly. */
  replicaClient: Redis;
}

/** A master and one replica replicating through a proxy whose latency the tests set. */
function usePair(server: ServerKind): Pair {
  const pair = {} as Pair;
  before(async () => {
    pair.master = await startRedis({ server, args: ['--repl-diskless-sync-delay', '0'] });
    pair.link = await startProxy(pair.master.port);
    pair.replica = await startRedis({
      server,
      args: ['--repl-diskless-sync-delay', '0', '--replicaof', '127.0.0.1', String(pair.link.port)],
    });
    pair.primary = pair.master.client();
    pair.replicaClient = pair.replica.client();
  });
  after(async () => {
    pair.primary?.disconnect();
    pair.replicaClient?.disconnect();
    await pair.replica?.stop();
    await pair.master?.stop();
    await pair.link?.close();
  });
  return pair;
}

/** The accounts the multi proofs move money between, 100 each; their locks (lock:<account>) hash to 4 slots. */
const ACCOUNTS = ['a', 'b', 'c', 'd'].map((account) => `proof:acct:${account}`);

/** After the transfers: the balances add up to 400 and every account's lock is released. */
async function assertTransfersSettled(redis: Redis | Cluster): Promise<void> {
  const balances = await Promise.all(ACCOUNTS.map(async (account) => Number(await redis.get(account))));
  assert.equal(
    balances.reduce((sum, balance) => sum + balance, 0),
    400,
    `balances ${balances.join(', ')}`,
  );
  for (const account of ACCOUNTS) assert.equal(await redis.exists(`lock:${account}`), 0, `lock:${account} released`);
}

/** The lock the multi-woken mode finds held (one of its two), and the longest a woken wait may take. */
const WOKEN_LOCK = 'lock:proof:acct:b';
const WOKEN_WITHIN_MS = 5000;

/**
 * A multi-key waiter with a 30 s retry bound on a lock another owner holds is woken by the lock's
 * release: holds WOKEN_LOCK, starts the multi-woken mode, waits for its subscription on one of
 * `nodes`, releases, and returns how long after the release the waiter held both keys.
 */
async function wokenAfterMs(run: () => Promise<string>, redis: Redis | Cluster, nodes: Redis[]): Promise<number> {
  const control = new LockScripts(redis, pack);
  try {
    assert.equal(await control.acquire(WOKEN_LOCK, 'other', 60_000), 1);
    const waiting = run();
    await waitFor(
      `the waiter's subscription to ${WOKEN_LOCK}`,
      async () => {
        const counts = await Promise.all(nodes.map((node) => node.call('PUBSUB', 'SHARDNUMSUB', WOKEN_LOCK)));
        return counts.some((reply) => Array.isArray(reply) && Number(reply[1]) > 0);
      },
      30_000,
    );
    const released = Date.now();
    assert.equal(await control.release(WOKEN_LOCK, 'other'), true);
    const held = Number(/^held (\d+)$/m.exec(await waiting)?.[1]);
    return held - released;
  } finally {
    control.close();
  }
}

/** Calls of the commands an acquire with waitForReplicas sends, from INFO commandstats. */
async function sentCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval|wait|waitaof):calls=(\d+)/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  const alone = useRedis({ server });
  const pair = usePair(server);
  glideJavaInCluster(server);
  multiInCluster(server);

  for (const proof of HELPER_PROOFS.filter((candidate) => JVM.includes(candidate.client))) {
    describe(`${proofName(proof)} helper: fenced writes against a real ${server}`, () => {
      test('guarded and fenced writes refuse the holder that lost the lock, and the older token', async () => {
        await alone.redis.flushall();
        const command = await prepareOnce(proof, work, pack, 'all');
        const output = await start(command, alone.server.url, proof.env ?? {}, ['fenced-writes']).done;
        assert.match(output, /^guarded a true false false$/m, 'held: written; expired, then taken: refused');
        assert.match(output, /^guarded b true$/m);
        assert.match(output, /^fenced b true a false$/m, 'the newer token writes, the older is refused');
        const [, older, newer] = /^fences (\d+) (\d+)$/m.exec(output) ?? [];
        assert.ok(Number(newer) > Number(older), `fencing tokens ${older} then ${newer}`);
        assert.equal(await alone.redis.get('proof:data'), 'b1');
        assert.deepEqual(await alone.redis.hgetall('proof:fenced'), { value: 'b', fence: newer });
        assert.match(output, /^no fence setFenced needs a fencing token: acquire proof:lock with fenceKey$/m);
      });
    });

    describe(`${proofName(proof)} helper: multi-key locks against a real ${server}`, () => {
      let command: string[];
      const run = (mode: string, ...args: string[]) =>
        start(command, alone.server.url, { ...proof.env, PROOF_MULTI_PROCESSES: '4' }, [mode, ...args]).done;
      before(async () => {
        command = await prepareOnce(proof, work, pack, 'all');
      });

      test('overlapping key sets under contention: no deadlock, no partial hold, never two holders, the money adds up', async (t) => {
        await alone.redis.flushall();
        for (const account of ACCOUNTS) await alone.redis.set(account, '100');
        const [, , , trying] = await Promise.all([
          run('multi', '30'),
          run('multi', '30'),
          run('multi', '30'),
          run('multi-try', '30'),
        ]);
        const [, busy, tries] = /^busy (\d+) of (\d+)$/m.exec(trying) ?? [];
        t.diagnostic(`${busy} of ${tries} tries found a key busy`);
        assert.ok(Number(busy) > 0, 'the tries met contention');
        await assertTransfersSettled(alone.redis);
      });

      test('a waiter on a busy key is woken by its release, long before its 30 s retry bound', async (t) => {
        if (!proof.wakes) return t.skip(`${proofName(proof)}'s helper polls on one server`);
        await alone.redis.flushall();
        const afterMs = await wokenAfterMs(() => run('multi-woken'), alone.redis, [alone.redis]);
        t.diagnostic(`held both keys ${afterMs} ms after the release`);
        assert.ok(afterMs < WOKEN_WITHIN_MS, `held ${afterMs} ms after the release`);
      });

      test('extend and release answer true only while the token held every key; renewal keeps them all', async () => {
        await alone.redis.flushall();
        const output = await run('multi-lease');
        assert.match(output, /^renewed true$/m, 'three keys renewed past 3x their 1.5 s lease');
        assert.match(output, /^extend true false$/m, 'all held, then one taken by another owner');
        assert.match(output, /^release false$/m);
        assert.match(
          output,
          /^close lease on proof:multi:d, proof:multi:e lost: a key expired or was taken before release$/m,
        );
        assert.match(output, /^keys \[null, other, null\]$/m, 'the keys it still held released, the taken one left');
      });

      test('bad input: refused before anything is sent, with what is wrong', async () => {
        await alone.redis.flushall();
        const calls = await sentCalls(alone.redis);
        const output = await run('multi-bad');
        assert.deepEqual(output.match(/^refused .*$/gm), [
          'refused a multi-key lock needs one or more keys, got none',
          'refused a multi-key lock takes each key once, got proof:k twice',
          "refused a multi-key lock's keys must be non-empty, got [proof:k, ]",
          'refused ttlMs must be a positive integer of milliseconds, got 0',
          'refused fenceKey works with the plain lock, not with a multi-key lock',
        ]);
        assert.equal(await sentCalls(alone.redis), calls, 'no script sent');
        assert.equal(await alone.redis.dbsize(), 0, 'nothing written');
      });
    });

    describe(`${proofName(proof)} helper: waitForReplicas against a real ${server}`, () => {
      let command: string[];
      const run = (url: string, ...args: string[]) => start(command, url, proof.env ?? {}, args).done;

      before(async () => {
        command = await prepareOnce(proof, work, pack, 'all');
      });
      beforeEach(async () => {
        await alone.redis.flushall();
        pair.link.setLatency(0);
        await pair.primary.flushall();
        assert.equal(await pair.primary.wait(1, 10_000), 1, 'the replica is connected and in sync');
      });

      test('acknowledged: held once the replica (behind a 200 ms link) has the lock and its fencing token', async () => {
        pair.link.setLatency(SLOW_LINK_MS);
        const control = new LockScripts(pair.primary, pack);
        assert.equal(await control.acquire('lock:plain', 'a', 60_000), 1);
        assert.equal(
          await pair.replicaClient.get('lock:plain'),
          null,
          'the control: without the option, not on the replica yet',
        );
        const [, token, fence] = /^held (\S+) (\d+)$/m.exec(await run(pair.master.url, 'replica-held', '1')) ?? [];
        assert.ok(token, 'held');
        assert.equal(await pair.replicaClient.get(KEY), token);
        assert.equal(await pair.replicaClient.get(FENCE), fence);
        control.close();
      });

      test('shortfall on a master with no replica: the lock given back, and why', async () => {
        const output = await run(alone.server.url, 'replica-shortfall');
        assert.match(output, /^shortfall timeout 0 true$/m);
        assert.match(
          output,
          /^message proof:lock was acknowledged by 0 of 1 replica within 50 ms \(WAIT\): released, not held\. Check the replicas/m,
        );
        assert.equal(await alone.redis.exists(KEY), 0, 'released');
      });

      test('shortfall with onShortfall: the callback is called and the lock kept', async () => {
        const output = await run(alone.server.url, 'replica-kept');
        assert.match(output, /^kept timeout 0$/m);
        const token = /^held (\S+)$/m.exec(output)?.[1];
        assert.equal(await alone.redis.get(KEY), token);
      });

      test('fsync the server cannot honour: released whatever onShortfall says', async () => {
        const output = await run(alone.server.url, 'replica-fsync');
        // Redis 7.0 has no WAITAOF; Valkey 9 has it, with the AOF off.
        assert.match(
          output,
          server === 'redis' ? /^shortfall no-waitaof null true$/m : /^shortfall aof-off null true$/m,
        );
        assert.doesNotMatch(output, /^callback$/m);
        assert.equal(await alone.redis.exists(KEY), 0, 'released');
      });

      test('busy: as without the option, the holder untouched', async () => {
        await alone.redis.set(KEY, 'other', 'PX', 60_000);
        assert.match(await run(alone.server.url, 'replica-busy'), /^busy$/m);
        assert.equal(await alone.redis.get(KEY), 'other');
      });

      test('the connection cut during the wait: a connection-lost shortfall, never held', async (t) => {
        const front = await startProxy(pair.master.port);
        try {
          pair.link.setLatency(500); // the wait takes the link's round trip: 1 s
          const running = run(`redis://${front.host}:${front.port}`, 'replica-cut');
          await waitFor('the acquire ran', async () => (await pair.primary.exists(KEY)) === 1);
          await sleep(50); // its reply is back; the wait is not
          front.cut();
          setTimeout(() => front.restore(), 100);
          const output = await running;
          t.diagnostic(output.trim());
          const [, released] = /^shortfall connection-lost null (true|false)$/m.exec(output) ?? [];
          assert.ok(released, `a connection-lost shortfall, got: ${output}`);
          assert.equal(await pair.primary.exists(KEY), released === 'true' ? 0 : 1, `released: ${released}`);
        } finally {
          await front.close();
        }
      });

      test('a lock kind refuses waitForReplicas with nothing sent, and its lease refuses fenced writes', async (t) => {
        if (!proof.kinds) return t.skip(`${proofName(proof)}'s helper has no lock kinds`);
        const waits = async () => /^cmdstat_wait:calls=(\d+)/m.exec(await alone.redis.info('commandstats'))?.[1] ?? '0';
        const before = await waits();
        const output = await run(alone.server.url, 'plain-only', 'read');
        assert.match(output, /^refused waitForReplicas works with the plain lock, not yet with the lock kinds$/m);
        assert.equal(await waits(), before, 'no WAIT sent');
        assert.match(output, /^refused setIfHeld works on a plain lock's lease, not a lock kind's$/m);
        assert.match(output, /^refused setFenced works on a plain lock's lease, not a lock kind's$/m);
        assert.equal(await alone.redis.exists('proof:data'), 0, 'nothing written');
      });

      test('bad values: refused before anything is sent, naming the parameter and the value', async () => {
        const calls = await sentCalls(alone.redis);
        const output = await run(alone.server.url, 'replica-bad');
        assert.match(output, /^refused waitForReplicas\.replicas must be a positive integer, got 0$/m);
        assert.match(output, /^refused waitForReplicas\.timeoutMs must be a positive integer of milliseconds, got 0$/m);
        assert.match(
          output,
          /^refused waitForReplicas\.timeoutMs \(60000\) must be shorter than the lease \(60000 ms\): the wait spends it$/m,
        );
        assert.equal(await sentCalls(alone.redis), calls, 'no script and no WAIT sent');
        assert.equal(await alone.redis.exists(KEY), 0);
      });
    });
  }
}

/** The node of `nodes` that serves `key` (the others answer MOVED). */
async function owner(nodes: RedisServer[], key: string): Promise<number> {
  for (const [index, node] of nodes.entries()) {
    const client = node.client();
    try {
      await client.call('READONLY');
      await client.exists(key);
      return index;
    } catch {
      // MOVED: another node's slot
    } finally {
      client.disconnect();
    }
  }
  throw new Error(`no node serves ${key}`);
}

/**
 * GLIDE for Java's batch on a GlideClusterClient is routed whole to the lock key's primary: locks on
 * each of the three masters are held on return with the lock and its fencing token on that
 * master's replica.
 */
function glideJavaInCluster(server: ServerKind): void {
  const proof = HELPER_PROOFS.find((candidate) => candidate.client === 'glide-java');
  if (!proof) throw new Error('no glide-java proof');
  describe(`${proofName(proof)} helper: waitForReplicas in a real ${server} Cluster`, () => {
    let cluster: RedisCluster;
    let masters: Redis[] = [];
    before(async () => {
      cluster = await startCluster({ server, replicas: 1 });
      masters = cluster.masters.map((node) => node.client());
    });
    after(async () => {
      for (const client of masters) client.disconnect();
      await cluster?.stop();
    });

    test("the acquire and WAIT reach the lock's master, whose replica has the lock and fence on return", async () => {
      const command = await prepareOnce(proof, work, pack, 'all');
      const url = `cluster://${cluster.masters.map((node) => `127.0.0.1:${node.port}`).join(',')}`;
      const owners = new Set<number>();
      for (const tag of ['a', 'b', 'c', 'd', 'e', 'f']) {
        const [lock, fence] = [`proof:{${tag}}:lock`, `proof:{${tag}}:fence`];
        const env: Record<string, string> = { ...proof.env, PROOF_LOCK: lock, PROOF_FENCE: fence };
        await Promise.all(masters.map((client) => client.config('RESETSTAT')));
        const output: string = await start(command, url, env, ['replica-held', '1']).done;
        const [, token, fenced] = /^held (\S+) (\d+)$/m.exec(output) ?? [];
        assert.ok(token, `held: ${output}`);
        const master = await owner(cluster.masters, lock);
        owners.add(master);
        const waits = await Promise.all(
          masters.map(async (client) => /^cmdstat_wait:calls=(\d+)/m.exec(await client.info('commandstats'))?.[1]),
        );
        // Twice on a master whose script cache lacks the acquire: NOSCRIPT sends the pair again with EVAL.
        const expected = masters.map((_, index) => index === master);
        assert.deepEqual(
          waits.map((calls) => calls !== undefined),
          expected,
          `WAIT on ${lock}'s master alone: ${waits.join(',')}`,
        );
        const replica = cluster.replicas[await owner(cluster.replicas, lock)].client();
        try {
          await replica.call('READONLY');
          assert.deepEqual(await replica.mget(lock, fence), [token, fenced], `${lock} on its master's replica`);
        } finally {
          replica.disconnect();
        }
      }
      assert.equal(owners.size, 3, 'the locks span the three masters');
    });
  });
}

/**
 * The multi-key lock across a real 3-master Cluster's slots, through each JVM library's cluster
 * client (GLIDE for Java's with a subscriber client per wait): the 4 accounts' locks hash to 4 slots,
 * taken slot by slot and given back on a busy one.
 */
function multiInCluster(server: ServerKind): void {
  describe(`multi-key locks across the slots of a real ${server} Cluster`, () => {
    let cluster: RedisCluster;
    let redis: Cluster;
    let url: string;
    before(async () => {
      cluster = await startCluster({ server });
      redis = await cluster.client();
      url = `cluster://${cluster.masters.map((node) => `127.0.0.1:${node.port}`).join(',')}`;
    });
    after(async () => {
      redis?.disconnect();
      await cluster?.stop();
    });

    for (const proof of HELPER_PROOFS.filter((candidate) => JVM.includes(candidate.client) && candidate.cluster)) {
      test(`${proofName(proof)}: no deadlock, no partial hold, never two holders, the money adds up`, async (t) => {
        const command = await prepareOnce(proof, work, pack, 'all');
        assert.equal(
          new Set(ACCOUNTS.map((account) => keySlot(`lock:${account}`))).size,
          4,
          'the locks hash to 4 slots',
        );
        await Promise.all(
          cluster.masters.map(async (node) => {
            const client = node.client();
            await client.flushall().finally(() => client.disconnect());
          }),
        );
        for (const account of ACCOUNTS) await redis.set(account, '100');
        const env = { ...proof.env, PROOF_MULTI_PROCESSES: '4' };
        const run = (...args: string[]) => start(command, url, env, args).done;
        const [, , , trying] = await Promise.all([
          run('multi', '20'),
          run('multi', '20'),
          run('multi', '20'),
          run('multi-try', '20'),
        ]);
        t.diagnostic(`${/^busy (\d+ of \d+)$/m.exec(trying)?.[1]} tries found a key busy`);
        await assertTransfersSettled(redis);
      });

      test(`${proofName(proof)}: a waiter on a busy key is woken by its release`, async (t) => {
        if (!proof.wakes && !proof.wakesInCluster) return t.skip(`${proofName(proof)}'s helper polls`);
        const command = await prepareOnce(proof, work, pack, 'all');
        const masters = cluster.masters.map((node) => node.client());
        try {
          await redis.del(WOKEN_LOCK);
          const afterMs = await wokenAfterMs(
            () => start(command, url, proof.env ?? {}, ['multi-woken']).done,
            redis,
            masters,
          );
          t.diagnostic(`held both keys ${afterMs} ms after the release`);
          assert.ok(afterMs < WOKEN_WITHIN_MS, `held ${afterMs} ms after the release`);
        } finally {
          for (const client of masters) client.disconnect();
        }
      });
    }
  });
}

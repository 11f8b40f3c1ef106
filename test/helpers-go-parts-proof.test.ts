// The go-redis, redigo and Valkey GLIDE for Go helpers' parts, run as real programs
// (test/proofs/helpers/go-parts.go and the clients' own modes) with the real libraries against a
// throwaway Redis 7.0 and Valkey 9 (GLIDE connects at its client's creation: its bad settings are
// proven unsent by INFO commandstats and the data unchanged):
// - fenced-writes: a holder paused past its 300 ms lease has its SetIfHeld refused once the lease
//   expired, and both writes refused once the next holder (fencing token 2) took the lock and wrote;
//   the data keys hold the next holder's value; SetFenced without a fencing token is refused.
// - replica-wait (docs/dev/wait-for-replicas.md): on a master without replicas, waiting 50 ms for one
//   is a shortfall that releases the lock (the key is gone), or with OnShortfall keeps it; Fsync
//   where the server cannot is released whatever OnShortfall says; with a real replica behind a slow
//   link, Acquire returns once the replica has the lock and its fencing token; go-redis in a Cluster
//   sends the pair to the lock's master; a connection cut during the wait is not held without the
//   replica; bad settings are refused before anything is sent (no connection, nothing written).
// - multi (go-multi.go): 3 processes x 30 transfers between 2 or 3 of 4 accounts under AcquireMulti
//   (GLIDE's WithMultiLock) and one trying 30 times without waiting (TryAcquireMulti), on
//   overlapping key sets: every waiting acquire succeeds (no deadlock), a busy try holds none of
//   its keys, no lock ever has two holders, the balances add up; and the same with 3 + 1 processes
//   x 20 on a 3-master Cluster through go-redis's and GLIDE's cluster clients, where the 4 locks
//   hash to 4 slots. Renew keeps every key past the lease; Extend and Release are true only while
//   the token holds every key; a busy key is named by the BusyError; bad keys and options are
//   refused before anything is sent.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { startProxy, type TcpProxy } from '../harness/proxy';
import {
  SERVER_KINDS,
  startCluster,
  startRedis,
  type RedisCluster,
  type RedisServer,
  type ServerKind,
} from '../harness/redis';
import { commandCalls, digest, useRedis, waitFor } from './helpers';
import { keySlot } from '../pack/layout';
import { helperKinds } from '../snippets/helper';
import { HELPER_PROOFS, prepareOnce } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-go-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

const GO = HELPER_PROOFS.filter((proof) => ['go-redis', 'redigo', 'glide-go'].includes(proof.client));
const KEY = 'proof:lock';
/**
 * The replica's link: a write is not on the replica until this long after an acquire that does not
 * wait, far longer than the program takes to exit and the test to read the replica.
 */
const SLOW_LINK_MS = 500;
/** What each client refuses beyond the settings both refuse (go-parts.go's order, then the client's own). */
const REFUSED = [
  /^locksmith: WaitForReplicas Replicas must be at least 1, got -1$/,
  /^locksmith: WaitForReplicas Timeout must be a whole number of milliseconds, at least 1, got 1\.5ms$/,
  /^locksmith: WaitForReplicas Timeout must be a whole number of milliseconds, at least 1, got -1ms$/,
  /^locksmith: WaitForReplicas Timeout \(1s\) must be shorter than the lease \(1s\): the wait spends it$/,
  /^locksmith: ttl must be a whole number of milliseconds, at least 1, got 0s$/,
];
/** The lock kinds refuse the option, which only the plain lock has (go-kinds.go). */
const KIND_REFUSED = [
  /^locksmith: WaitForReplicas works with a plain lock, not a Reentrant one$/,
  /^locksmith: WaitForReplicas works with Acquire only$/,
];
const CLIENT_REFUSED: Record<string, RegExp[]> = {
  'go-redis': [
    /^locksmith: WaitForReplicas needs a \*redis\.Client, \*redis\.Conn or \*redis\.ClusterClient, got \*redis\.Pipeline$/,
    ...KIND_REFUSED,
  ],
  redigo: KIND_REFUSED,
  'glide-go': [/^locksmith: WaitForReplicas needs a \*glide\.Client or \*glide\.ClusterClient, got main\.wrapped$/],
};
/** The commands an acquire with WaitForReplicas sends. */
const SENT = ['evalsha', 'eval', 'wait', 'waitaof'];
/** GLIDE connects when its client is made (the program's start): its proof counts commands only. */
const CONNECTS_AT_START = ['glide-go'];
/** The clients whose helpers carry the lock kinds: SetIfHeld refuses their semaphore's lease (go-kinds.go). */
const WITH_KINDS = GO.filter((proof) => proof.kinds).map((proof) => proof.client);

/** The clients whose helpers carry the multi-key lock. */
const WITH_MULTI = GO.filter((proof) => helperKinds(proof.client).includes('multi')).map((proof) => proof.client);
/** The multi modes' accounts; each has its lock, `lock:` + account (in a Cluster, 4 slots). */
const ACCOUNTS = ['a', 'b', 'c', 'd'].map((account) => `proof:acct:${account}`);
/** What AcquireMulti refuses (go-multi.go's order), then what each client refuses besides. */
const MULTI_REFUSED = [
  /^locksmith: AcquireMulti needs one or more lock keys, got none$/,
  /^locksmith: AcquireMulti got the lock key "lock:a" twice: give each key once$/,
  /^locksmith: AcquireMulti got an empty lock key$/,
  /^locksmith: ttl must be a whole number of milliseconds, at least 1, got 0s$/,
  /^locksmith: RetryEvery must be at least 1 ms, got 0s$/,
  /^locksmith: Fence works with Acquire only$/,
];
const CLIENT_MULTI_REFUSED: Record<string, RegExp[]> = {
  'go-redis': [
    /^locksmith: AcquireMulti cannot take keys across a \*redis\.Ring's shards: use one \*redis\.Client or a \*redis\.ClusterClient$/,
  ],
};

/**
 * 3 processes making `rounds` transfers each under the multi-key lock and one trying without
 * waiting, from when all 4 have started until they are done and at least `rounds` times, from
 * accounts of 100 each: the sum holds and every lock is released. The busy tries, of how many.
 */
async function transfers(
  redis: Pick<Redis, 'set' | 'get' | 'del' | 'exists'>,
  run: (mode: string, rounds: string) => Promise<string>,
  rounds: number,
): Promise<{ busy: number; tries: number }> {
  for (const account of ACCOUNTS) await redis.set(account, '100');
  for (const counter of ['proof:multi:started', 'proof:multi:done']) await redis.del(counter);
  const outputs = await Promise.all(['multi', 'multi', 'multi', 'multi-try'].map((mode) => run(mode, String(rounds))));
  for (const output of outputs.slice(0, 3)) assert.match(output, new RegExp(`^moved ${rounds}$`, 'm'));
  const [, busy, tries] = /^busy (\d+) of (\d+)$/m.exec(outputs[3]) ?? [];
  assert.ok(busy, outputs[3]);
  assert.ok(Number(tries) >= rounds, `${tries} tries, fewer than ${rounds}`);
  const balances = await Promise.all(ACCOUNTS.map(async (account) => Number(await redis.get(account))));
  assert.equal(
    balances.reduce((sum, balance) => sum + balance, 0),
    400,
    `balances ${balances.join(', ')}`,
  );
  for (const account of ACCOUNTS) assert.equal(await redis.exists(`lock:${account}`), 0, `lock:${account} released`);
  return { busy: Number(busy), tries: Number(tries) };
}

/** The program's command, built once per client with every part its helper can carry. */
const commandOf = (client: string) =>
  prepareOnce(
    GO.find((candidate) => candidate.client === client)!,
    work,
    pack,
    'all',
  );
const run = async (client: string, url: string, ...args: string[]) =>
  start(await commandOf(client), url, {}, args).done;

/** INFO stats' counter `name`. */
async function stat(redis: Redis, name: string): Promise<number> {
  return Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(await redis.info('stats'))?.[1]);
}

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  describe('a master without replicas', () => {
    const fx = useRedis({ server });
    beforeEach(async () => {
      await fx.redis.flushall();
    });

    for (const { client } of GO) {
      describe(`${client} helper, replica-wait`, () => {
        before(async () => {
          await commandOf(client);
        });

        for (const how of ['try', 'wait']) {
          test(`${how === 'try' ? 'TryAcquire' : 'a waiting Acquire'} waiting 50 ms for 1 replica: a shortfall, the lock released`, async () => {
            // The script cache empty: a WAIT behind a NOSCRIPT would wait its 50 ms for nothing.
            await fx.redis.script('FLUSH');
            const waits = await commandCalls(fx.redis, 'wait');
            const output = await run(client, fx.server.url, 'replica-shortfall', how);
            assert.equal(await commandCalls(fx.redis, 'wait'), waits + 1, 'one pair: the source sent with the first');
            assert.match(output, /^shortfall proof:lock timeout 0 of 1 in 50ms, released true$/m);
            assert.match(
              output,
              /^proof:lock was acknowledged by 0 of 1 replica within 50 ms \(WAIT\): released, not held\. Check the replicas \(INFO replication: connected_slaves, their lag\), or pass OnShortfall to keep such locks$/m,
            );
            assert.equal(await fx.redis.exists(KEY), 0, 'the lock key is gone');
            assert.equal(await fx.redis.exists('{proof:lock}:waiters'), 0, 'and nobody is left in line');
          });
        }

        test('OnShortfall keeps the lock and is called with the shortfall', async () => {
          const output = await run(client, fx.server.url, 'replica-kept');
          const token = /^kept proof:lock timeout 0 by (\S+)$/m.exec(output)?.[1];
          assert.ok(token, output);
          assert.match(output, /^proof:lock was acknowledged by 0 of 1 replica within 50 ms \(WAIT\)$/m);
          assert.equal(await fx.redis.get(KEY), token, 'held by the program');
        });

        if (client === 'glide-go')
          test('a NOSCRIPT in the pair (the script cache flushed since the last): the pair sent again with EVAL', async () => {
            const [waits, evals] = await Promise.all([commandCalls(fx.redis, 'wait'), commandCalls(fx.redis, 'eval')]);
            const output = await run(client, fx.server.url, 'replica-noscript');
            assert.match(output, /^round 1 kept and released\nround 2 kept and released$/m);
            // Round 1: EVAL (the process's first pair); round 2: EVALSHA (NOSCRIPT), then EVAL.
            assert.equal(await commandCalls(fx.redis, 'wait'), waits + 3);
            assert.equal(await commandCalls(fx.redis, 'eval'), evals + 2);
            assert.equal(await fx.redis.exists(KEY), 0, 'released');
          });

        test('Fsync where the server cannot (WAITAOF): released whatever OnShortfall says, named as a setting to change', async () => {
          const output = await run(client, fx.server.url, 'replica-fsync');
          const [reason, message] =
            server === 'redis'
              ? [
                  'no-waitaof',
                  'WaitForReplicas Fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)',
                ]
              : ['aof-off', 'WaitForReplicas Fsync needs appendonly yes on the master, which has it off'];
          assert.match(output, new RegExp(`^fsync ${reason} -1 local false, released true, called false$`, 'm'));
          assert.ok(
            output.includes(
              `proof:lock: ${message}: released, not held. Turn Fsync off (WAIT alone covers a failover) or enable the AOF\n`,
            ),
            output,
          );
          assert.equal(await fx.redis.exists(KEY), 0, 'the lock key is gone');
        });

        test('bad settings are refused, each with its message, before anything is sent', async () => {
          const [connections, commandsBefore, before, sentBefore] = await Promise.all([
            stat(fx.redis, 'total_connections_received'),
            stat(fx.redis, 'total_commands_processed'),
            digest(fx.redis),
            Promise.all(SENT.map((command) => commandCalls(fx.redis, command))),
          ]);
          const refused = (await run(client, fx.server.url, 'replica-refused'))
            .split('\n')
            .filter((line) => line.startsWith('refused '))
            .map((line) => line.slice('refused '.length));
          const expected = [...REFUSED, ...CLIENT_REFUSED[client]];
          assert.equal(refused.length, expected.length, refused.join('\n'));
          refused.forEach((message, i) => assert.match(message, expected[i]));
          if (!CONNECTS_AT_START.includes(client)) {
            assert.equal(
              await stat(fx.redis, 'total_connections_received'),
              connections,
              'the program never connected',
            );
            // The INFO, DIGEST and INFO commandstats above are the only commands since.
            assert.equal(await stat(fx.redis, 'total_commands_processed'), commandsBefore + 3 + SENT.length);
          }
          const sent = await Promise.all(SENT.map((command) => commandCalls(fx.redis, command)));
          assert.deepEqual(sent, sentBefore, `no ${SENT.join(', ')} (INFO commandstats)`);
          assert.equal(await digest(fx.redis), before);
        });
      });
    }
  });

  if (server === 'valkey') {
    describe('a Valkey master with appendonly yes, no replica', () => {
      const fx = useRedis({ server, args: ['--appendonly', 'yes', '--appendfsync', 'always'] });

      for (const { client } of GO) {
        test(`${client} helper, replica-wait: Fsync reads WAITAOF's reply: fsynced on the master, by 0 of 1 replica; kept by OnShortfall`, async () => {
          const output = await run(client, fx.server.url, 'replica-fsync');
          const token = /^fsync kept by (\S+), called true: timeout 0 local true$/m.exec(output)?.[1];
          assert.ok(token, output);
          assert.match(output, /^proof:lock was fsynced by 0 of 1 replica within 50 ms \(WAITAOF\)$/m);
          assert.equal(await fx.redis.get(KEY), token);
          await fx.redis.flushall();
        });
      }
    });
  }

  describe('fenced-writes', () => {
    const fx = useRedis({ server });
    beforeEach(async () => {
      await fx.redis.flushall();
    });

    for (const { client } of GO) {
      test(`${client} helper: a holder paused past its lease has its guarded and fenced writes refused; the next holder's commit`, async () => {
        const paused = start(await commandOf(client), fx.server.url, {}, ['fenced-paused']);
        await paused.printed('expired guarded false');
        const next = await run(client, fx.server.url, 'fenced-next');
        assert.match(next, /^next 2 guarded true fenced true$/m);
        const output = await paused.done;
        assert.match(output, /^held 1 guarded true fenced true$/m, 'written while held');
        assert.match(output, /^expired guarded false$/m, 'refused once the lease expired');
        assert.match(
          output,
          /^late guarded false fenced false$/m,
          'refused once a newer token took the lock and wrote',
        );
        assert.equal(await fx.redis.get('proof:data'), 'next');
        assert.deepEqual(await fx.redis.hgetall('proof:fenced'), { value: 'next', fence: '2' });
      });

      if (client === 'glide-go')
        test(`${client} helper: a holder stopped (SIGSTOP) past its lease has both writes refused after SIGCONT, once the next holder wrote`, async () => {
          const stopped = start(await commandOf(client), fx.server.url, {}, ['fenced-stopped']);
          await stopped.printed('held 1 guarded true fenced true');
          try {
            await waitFor('the stopped lease ended', async () => (await fx.redis.exists(KEY)) === 0);
            // The premise: stopped before its late writes went out (a stop that came late let them
            // commit while token 1 was the newest, and this proof blamed the fencing).
            assert.equal(await fx.redis.get('proof:data'), 'first', 'nothing written before the stop took hold');
            assert.deepEqual(await fx.redis.hgetall('proof:fenced'), { value: 'first', fence: '1' });
            assert.match(await run(client, fx.server.url, 'fenced-next'), /^next 2 guarded true fenced true$/m);
          } finally {
            stopped.signal('SIGCONT');
          }
          assert.match(await stopped.done, /^late guarded false fenced false$/m);
          assert.equal(await fx.redis.get('proof:data'), 'next');
          assert.deepEqual(await fx.redis.hgetall('proof:fenced'), { value: 'next', fence: '2' });
        });

      test(`${client} helper: SetFenced without a fencing token, SetIfHeld on a semaphore's lease: refused before anything is sent`, async () => {
        const before = await digest(fx.redis);
        const output = await run(client, fx.server.url, 'fenced-refused');
        assert.match(output, /^refused locksmith: SetFenced needs a fencing token: Acquire with Fence$/m);
        if (WITH_KINDS.includes(client))
          assert.match(output, /^refused locksmith: SetIfHeld works with a plain lock's lease$/m);
        assert.equal(await fx.redis.exists('proof:fenced'), 0);
        assert.equal(await digest(fx.redis), before, 'the locks released, nothing written');
      });
    }
  });

  describe('multi', () => {
    const fx = useRedis({ server });
    beforeEach(async () => {
      await fx.redis.flushall();
    });

    for (const client of WITH_MULTI) {
      test(`${client} helper: overlapping key sets under contention: no deadlock, no partial hold, never two holders, the money adds up`, async (t) => {
        const { busy, tries } = await transfers(
          fx.redis,
          (mode, rounds) => run(client, fx.server.url, mode, rounds),
          30,
        );
        t.diagnostic(`${busy} of ${tries} tries found a key busy`);
        assert.ok(busy > 0, 'the tries met contention');
      });

      test(`${client} helper: Extend and Release are true only while the token holds every key; a busy key is named, none held`, async () => {
        const output = await run(client, fx.server.url, 'multi-lost');
        const token = /^held lock:proof:acct:a lock:proof:acct:b lock:proof:acct:c by (\S+)$/m.exec(output)?.[1];
        assert.ok(token, output);
        assert.match(output, /^renewed past its lease, released true, lost <nil>$/m);
        assert.match(output, /^refused locksmith: SetIfHeld works with a plain lock's lease$/m);
        assert.match(output, /^extended true, once one was lost extended false released false$/m);
        assert.match(
          output,
          /^busy lock:proof:acct:b: lock:proof:acct:b is held by another owner; gave up after waiting 200 ms$/m,
        );
        assert.equal(await fx.redis.get('lock:proof:acct:b'), 'another owner');
        assert.equal(await fx.redis.exists('lock:proof:acct:a', 'lock:proof:acct:c', 'proof:data'), 0);
      });

      test(`${client} helper: bad keys and options are refused, each with its message, before anything is sent`, async () => {
        const [connections, before, scripts] = await Promise.all([
          stat(fx.redis, 'total_connections_received'),
          digest(fx.redis),
          Promise.all(['evalsha', 'eval'].map((command) => commandCalls(fx.redis, command))),
        ]);
        const refused = (await run(client, fx.server.url, 'multi-refused'))
          .split('\n')
          .filter((line) => line.startsWith('refused '))
          .map((line) => line.slice('refused '.length));
        const expected = [...MULTI_REFUSED, ...(CLIENT_MULTI_REFUSED[client] ?? [])];
        assert.equal(refused.length, expected.length, refused.join('\n'));
        refused.forEach((message, i) => assert.match(message, expected[i]));
        if (!CONNECTS_AT_START.includes(client))
          assert.equal(await stat(fx.redis, 'total_connections_received'), connections, 'the program never connected');
        const sent = await Promise.all(['evalsha', 'eval'].map((command) => commandCalls(fx.redis, command)));
        assert.deepEqual(sent, scripts, 'no script ran (INFO commandstats)');
        assert.equal(await digest(fx.redis), before);
      });
    }
  });

  // go-redis sends the pair to the master of the lock's slot (MasterForKey), GLIDE for Go routes its
  // batch there (a primary slot-key route). Sent to another node,
  // WAIT would count on a connection that wrote nothing: the replicas of the other masters are
  // killed, so there it would time out with 0.
  describe("a Cluster of 3 masters with a replica each, only the lock's master keeping its replica", () => {
    const keys = { PROOF_LOCK: '{proof}:lock', PROOF_FENCE: '{proof}:fence' };
    let cluster: RedisCluster;
    let url: string;
    let kept: RedisServer;
    before(async () => {
      cluster = await startCluster({ server, replicas: 1 });
      url = `cluster://${cluster.masters.map((node) => `127.0.0.1:${node.port}`).join(',')}`;
      const client = cluster.masters[0].client();
      try {
        const slot = Number(await client.cluster('KEYSLOT', keys.PROOF_LOCK));
        const nodes = ((await client.cluster('NODES')) as string)
          .trim()
          .split('\n')
          .map((line) => line.split(' '));
        const owner = nodes.find(
          ([, , flags, , , , , , ...ranges]) =>
            flags.includes('master') &&
            ranges.some((range) => {
              const [from, to = from] = range.split('-').map(Number);
              return slot >= from && slot <= to;
            }),
        )![0];
        const replicaPort = Number(/:(\d+)@/.exec(nodes.find((node) => node[3] === owner)![1])![1]);
        kept = cluster.replicas.find((replica) => replica.port === replicaPort)!;
      } finally {
        client.disconnect();
      }
      await Promise.all(cluster.replicas.filter((replica) => replica !== kept).map((replica) => replica.crash()));
    });
    after(async () => {
      await cluster?.stop();
    });

    // Through the library's cluster client, the 4 locks in 4 slots: taken slot by slot in one
    // order, the slots taken given back on a busy key.
    for (const client of WITH_MULTI.filter((client) => GO.find((proof) => proof.client === client)?.cluster))
      test(`${client} helper, multi across slots: no deadlock, no partial hold, never two holders, the money adds up`, async (t) => {
        const slots = new Set(ACCOUNTS.map((account) => keySlot(`lock:${account}`)));
        assert.equal(slots.size, 4, 'the 4 locks hash to 4 slots');
        const redis = await cluster.client();
        try {
          const command = await commandOf(client);
          const { busy, tries } = await transfers(
            redis,
            (mode, rounds) => start(command, url, {}, [mode, rounds]).done,
            20,
          );
          t.diagnostic(`${busy} of ${tries} tries found a key busy`);
        } finally {
          redis.disconnect();
        }
      });

    for (const client of ['go-redis', 'glide-go'])
      test(`${client} helper, replica-wait: the pair goes to the lock's master, and Acquire returns once its replica has the lock`, async () => {
        // Each client its own lock in the same slot: the one before it still holds its own.
        const own = { PROOF_LOCK: `${keys.PROOF_LOCK}:${client}`, PROOF_FENCE: `${keys.PROOF_FENCE}:${client}` };
        const output = await start(await commandOf(client), url, own, ['replica-acked', 'try']).done;
        const [, token, fence] = /^acked (\S+) (\d+) in \d+ ms$/m.exec(output) ?? [];
        assert.ok(token, output);
        assert.equal(fence, '1');
        const replica = kept.client();
        try {
          await replica.call('READONLY');
          assert.equal(await replica.get(own.PROOF_LOCK), token);
        } finally {
          replica.disconnect();
        }
      });
  });

  describe('a master with a real replica behind a slow link', () => {
    let master: RedisServer;
    let replica: RedisServer;
    let link: TcpProxy;
    let redis: Redis;
    let replicaClient: Redis;
    before(async () => {
      master = await startRedis({ server, args: ['--repl-diskless-sync-delay', '0'] });
      link = await startProxy(master.port);
      const args = ['--repl-diskless-sync-delay', '0', '--replicaof', '127.0.0.1', String(link.port)];
      replica = await startRedis({ server, args });
      redis = master.client();
      replicaClient = replica.client();
    });
    beforeEach(async () => {
      link.setLatency(0);
      await redis.flushall();
      assert.equal(await redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
      link.setLatency(SLOW_LINK_MS);
    });
    after(async () => {
      redis?.disconnect();
      replicaClient?.disconnect();
      await replica?.stop();
      await master?.stop();
      await link?.close();
    });

    test('the control: a write is not on the replica at once', async () => {
      await redis.set('proof:control', 'a');
      assert.equal(await replicaClient.get('proof:control'), null);
    });

    for (const { client } of GO) {
      for (const how of ['try', 'wait']) {
        test(`${client} helper, replica-wait: ${how === 'try' ? 'TryAcquire' : 'a waiting Acquire'} returns once the replica has the lock and its fencing token`, async () => {
          // The waiting Acquire finds the lock held, and waits in line for its lease to end.
          if (how === 'wait') await redis.set(KEY, 'other', 'PX', 300);
          const output = await run(client, master.url, 'replica-acked', how);
          const [, token, fence, ms] = /^acked (\S+) (\d+) in (\d+) ms$/m.exec(output) ?? [];
          assert.ok(token, output);
          // The replica's acknowledgement crosses the link twice: the write, then the ACK.
          assert.ok(Number(ms) >= 2 * SLOW_LINK_MS, `acquired in ${ms} ms, before the replica could have it`);
          assert.equal(await replicaClient.get(KEY), token);
          assert.equal(await replicaClient.get('proof:fence'), fence);
          assert.equal(fence, '1');
        });
      }
    }

    // go-redis resends an unanswered pipeline on a new connection (its MaxRetries): the acquire
    // again (the same token refreshes it) and the wait after it. Without retries, and with redigo,
    // the wait has no answer: a shortfall. Either way, not held unless the replica has it.
    const CUTS = [
      { client: 'go-redis', query: '', after: 'acked' },
      { client: 'go-redis', query: '?max_retries=-1', after: 'shortfall' },
      { client: 'redigo', query: '', after: 'shortfall' },
      { client: 'glide-go', query: '', after: 'shortfall' },
    ];
    for (const { client, query, after: outcome } of CUTS) {
      const how = `${client}${query && ' without retries'}`;
      test(`${how} helper, replica-wait: a connection cut during the wait is not held without the replica: ${outcome}`, async () => {
        const front = await startProxy(master.port);
        try {
          link.setLatency(300);
          const program = start(await commandOf(client), `${front.url}${query}`, {}, ['replica-cut']);
          // The acquire is answered at once; the wait takes the link's round trip (600 ms).
          await waitFor('the acquire', async () => (await redis.exists(KEY)) === 1);
          front.cut('hold');
          setTimeout(() => front.restore(), 100);
          const output = await program.done;
          if (outcome === 'acked') {
            const token = /^acked (\S+)$/m.exec(output)?.[1];
            assert.ok(token, output);
            assert.equal(await replicaClient.get(KEY), token);
          } else {
            assert.match(output, /^shortfall connection-lost, released true$/m);
            assert.match(
              output,
              /^proof:lock: the connection closed before the replicas acknowledged the acquire \(it may not have reached any\): released, not held\. The master may be failing over: try again once the client has reconnected$/m,
            );
            assert.equal(await redis.exists(KEY), 0, 'released once reconnected');
          }
        } finally {
          await front.close();
        }
      });
    }
  });
}

// The JavaScript helpers' parts (snippets/templates/{ioredis,node-redis,glide-node}/kind-*.ts) run
// as real programs on the real ioredis, node-redis and @valkey/valkey-glide 2.5.2, against a
// throwaway Redis 7.0 and Valkey 9 (the modes: test/proofs/helpers/parts.js):
// - replica-wait (docs/dev/wait-for-replicas.md): on a master with no replica, a shortfall that
//   gives the lock back (the one-shot and the waiting acquire), or keeps it for a callback; fsync
//   where the server cannot honour it is released whatever the callback; with a real replica behind
//   a lagging link the acquire returns once the replica has the lock and the fencing token, where
//   a plain acquire returns before; fsync acknowledged by Valkey with appendonly yes; bad settings are refused before any command is sent, and a
//   helper without the part refuses the option rather than take a lock no replica has;
// - multi: 3 processes x 30 transfers between 2 or 3 of 4 accounts under withMultiLock and one
//   trying without waiting, all on overlapping key sets: every waiting acquire succeeds (no
//   deadlock), a busy try holds none of its keys, no lock ever has two holders, the sum holds; bad
//   keys and ttlMs refused before anything is sent;
// - fenced-writes: a holder that stops itself (SIGSTOP) past its lease while another takes the
//   lock and writes has its guarded and its fenced write refused once continued; a newer fencing
//   token's write commits; misuse is refused before anything is written.
// - waiting (ioredis, in this process): without the wakeups part, a dead holder's plain,
//   reentrant, write and semaphore locks are taken as their lease ends, polled, not subscribed;
//   a wait cancelled by options.signal rejects with its reason;
//   with the core alone the waiter reads the lease's PTTL (a try never does), neither subscribes nor
//   queues; with the wakeups part it subscribes and queues, and leaves the line when cancelled.
// On a 3-master Cluster through each library's cluster client: multi across slots, and replica-wait's
// pipeline reaching the lock's master. And the TypeScript helpers with every part type-check
// (strict) against the real libraries.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Cluster, Redis } from 'ioredis';
import { keySlot, waitersKey } from '../pack/layout';
import { loadPack } from '../pack/pack';
import type { Kind } from '../snippets/compose';
import { helperKinds, renderHelper } from '../snippets/helper';
import { check, strictTsconfig, writeFiles } from './golden-support';
import { startProxy, type TcpProxy } from '../harness/proxy';
import {
  SERVER_KINDS,
  startCluster,
  startRedis,
  type RedisCluster,
  type RedisServer,
  type ServerKind,
} from '../harness/redis';
import { npmPackages } from '../harness/toolchains';
import { HELPER_PROOFS, prepareOnce, type HelperProof } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';
import { commandCalls, sleep, waitFor } from './helpers';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-js-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

const JS_PROOFS = HELPER_PROOFS.filter((proof) => ['ioredis', 'node-redis', 'glide-node'].includes(proof.client));
/** Whether the proof's helper has the part. */
const has = (proof: HelperProof, part: Kind) => helperKinds(proof.client).includes(part);
/** A test of a part: skipped, saying why, for a helper that has no such part. */
const ofPart = (proof: HelperProof, part: Kind) => ({
  skip: !has(proof, part) && `${proof.client}'s helper has no ${part} part`,
});
/** Long enough that a write is certainly not on the replica when a plain acquire returns. */
const SLOW_LINK_MS = 200;

/** Calls of the commands a setting refused before anything is sent must not have made. */
async function scriptAndWaitCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval|wait|waitaof):calls=(\d+)/gm)].reduce(
    (sum, [, n]) => sum + Number(n),
    0,
  );
}

for (const server of SERVER_KINDS) describe(server, () => proofs(server));
for (const server of SERVER_KINDS) describe(`${server} Cluster`, () => onCluster(server));

describe('valkey with appendonly yes and a replica', () => {
  let master: RedisServer;
  let replicaServer: RedisServer;
  let replicaClient: Redis;
  before(async () => {
    const common = ['--repl-diskless-sync-delay', '0', '--appendonly', 'yes', '--appendfsync', 'always'];
    master = await startRedis({ server: 'valkey', args: common });
    replicaServer = await startRedis({
      server: 'valkey',
      args: [...common, '--replicaof', '127.0.0.1', String(master.port)],
    });
    replicaClient = replicaServer.client();
    const redis = master.client();
    assert.equal(await redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
    redis.disconnect();
  });
  after(async () => {
    replicaClient?.disconnect();
    await replicaServer?.stop();
    await master?.stop();
  });

  for (const proof of JS_PROOFS.filter((each) => has(each, 'replica-wait'))) {
    test(`${proof.client}: fsync: held once the master and the replica have it on disk (WAITAOF)`, async () => {
      const command = await prepareOnce(proof, work, pack, 'all');
      const output = await start(command, master.url, proof.env ?? {}, ['replica', 'fsync-acked']).done;
      const { token } = JSON.parse(output.trim()) as { token: string };
      assert.equal(await replicaClient.get('proof:lock'), token);
    });
  }
});

describe('the JavaScript helpers with every part', () => {
  test('type-check (tsc strict) against the real ioredis and node-redis, on a client and a cluster', async () => {
    for (const client of ['ioredis', 'node-redis']) {
      const dir = join(work, 'ts', client);
      const library =
        client === 'ioredis'
          ? "import { Cluster, Redis } from 'ioredis';\nconst redis = new Redis();\nconst cluster = new Cluster([]);"
          : "import { createClient, createCluster } from 'redis';\nconst redis = createClient();\nconst cluster = createCluster({ rootNodes: [] });";
      writeFiles(dir, {
        'locksmith.ts': renderHelper(client, pack, { flavor: 'ts', kinds: helperKinds(client).join(',') }).text,
        'use.ts': `${library}
import { acquire, acquireMulti, ReplicaShortfallError, setFenced, setIfHeld, withMultiLock, type ReplicaShortfall } from './locksmith.js';

export async function use(log: (shortfall: ReplicaShortfall) => void): Promise<void> {
  const options = { ttlMs: 1000, fenceKey: 'fence:{lock:a}', waitForReplicas: { replicas: 1, onShortfall: log } };
  const lease = await acquire(redis, 'lock:{lock:a}', options);
  const written: boolean[] = [await lease.setIfHeld('{lock:a}:data', 'v'), await lease.setFenced('data', 'v')];
  written.push(await setIfHeld(redis, lease.key, '{lock:a}:data', lease.token, 'v'), await setFenced(cluster, 'data', 2, 'v'));
  await acquire(cluster, 'lock:a', { ttlMs: 1000, waitForReplicas: { fsync: true } }).catch((error: unknown) => {
    if (error instanceof ReplicaShortfallError) log(error.shortfall);
  });
  await lease.release();
  const both = await acquireMulti(cluster, ['lock:{a}', 'lock:{b}'], { ttlMs: 1000, renew: true });
  written.push(await both.extend(), await both.release());
  await withMultiLock(redis, both.keys, { ttlMs: 1000, waitMs: 0 }, async (held) => held.keys.length);
}
`,
        'tsconfig.json': strictTsconfig(['locksmith.ts', 'use.ts']),
      });
      await check(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir]);
    }
  });

  test('GLIDE: type-checks (tsc strict) against the real @valkey/valkey-glide, on a GlideClient and a GlideClusterClient', async () => {
    const dir = join(work, 'ts', 'glide-node');
    writeFiles(dir, {
      'locksmith.ts': renderHelper('glide-node', pack, { flavor: 'ts', kinds: helperKinds('glide-node').join(',') })
        .text,
      'use.ts': `import { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { acquire, acquireMulti, ReplicaShortfallError, setFenced, setIfHeld, withMultiLock, type ReplicaShortfall } from './locksmith.js';

export async function use(log: (shortfall: ReplicaShortfall) => void): Promise<boolean[]> {
  const client = await GlideClient.createClient({ addresses: [{ host: 'localhost' }] });
  const cluster = await GlideClusterClient.createClient({ addresses: [{ host: 'localhost' }] });
  const options = { ttlMs: 1000, fenceKey: 'fence:{lock:a}', waitForReplicas: { replicas: 1, onShortfall: log } };
  const lease = await acquire(client, 'lock:{lock:a}', options);
  const written: boolean[] = [await lease.setIfHeld('{lock:a}:data', 'v'), await lease.setFenced('data', 'v')];
  written.push(await setIfHeld(client, lease.key, '{lock:a}:data', lease.token, 'v'), await setFenced(cluster, 'data', 2, 'v'));
  await acquire(cluster, 'lock:a', { ttlMs: 1000, waitForReplicas: { fsync: true } }).catch((error: unknown) => {
    if (error instanceof ReplicaShortfallError) log(error.shortfall);
  });
  written.push(await lease.release());
  const both = await acquireMulti(cluster, ['lock:{a}', 'lock:{b}'], { ttlMs: 1000, renew: true });
  written.push(await both.extend(), await both.release());
  await withMultiLock(client, both.keys, { ttlMs: 1000, waitMs: 0 }, async (held) => held.keys.length);
  return written;
}
`,
      'tsconfig.json': strictTsconfig(['locksmith.ts', 'use.ts']),
    });
    symlinkSync(await npmPackages('glide'), join(dir, 'node_modules'));
    await check(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir]);
  });

  test('without replica-wait: waitForReplicas is refused, not taken as a plain lock no replica has', async () => {
    const dir = join(work, 'core');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'locksmith.cjs'), renderHelper('ioredis', pack, { flavor: 'cjs' }).text);
    const helper = (await import(pathToFileURL(join(dir, 'locksmith.cjs')).href)) as {
      default: { acquire: (redis: unknown, key: string, options: object) => Promise<unknown> };
    };
    const { acquire } = helper.default;
    // The check comes before anything is sent: no server is needed to see it.
    await assert.rejects(
      acquire(undefined, 'lock:a', { ttlMs: 1000, waitForReplicas: { replicas: 1 } }),
      new TypeError('this helper has no waitForReplicas: add the replica-wait part to it'),
    );
  });

  test('multi: an empty key list, a key given twice, an empty key or a bad ttlMs refused before anything is sent', async () => {
    for (const client of ['ioredis', 'node-redis', 'glide-node']) {
      const dir = join(work, 'multi-refusals', client);
      mkdirSync(dir, { recursive: true });
      if (client === 'glide-node') symlinkSync(await npmPackages('glide'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'locksmith.cjs'), renderHelper(client, pack, { flavor: 'cjs', kinds: 'multi' }).text);
      const helper = (await import(pathToFileURL(join(dir, 'locksmith.cjs')).href)) as {
        default: { acquireMulti: (redis: unknown, keys: unknown, options: object) => Promise<unknown> };
      };
      const refusal = (keys: unknown, options: object = { ttlMs: 1000 }) =>
        helper.default.acquireMulti(undefined, keys, options).then(
          () => 'taken',
          (error: Error) => `${error.name}: ${error.message}`,
        );
      // No client is given: a refusal is the check's own message, not a failed command's.
      assert.deepEqual(
        [
          await refusal([]),
          await refusal(['lock:{a}', 'lock:{b}', 'lock:{a}']),
          await refusal(['lock:{a}', '']),
          await refusal(['lock:{a}'], { ttlMs: 0 }),
        ],
        [
          'TypeError: a multi-key lock needs an array of one or more non-empty keys',
          "TypeError: keys names 'lock:{a}' more than once: give each lock key once",
          'TypeError: a multi-key lock needs an array of one or more non-empty keys',
          'RangeError: ttlMs must be a positive integer of milliseconds, got 0',
        ],
        client,
      );
    }
  });
});

function proofs(server: ServerKind): void {
  let master: RedisServer;
  let redis: Redis;
  before(async () => {
    master = await startRedis({ server });
    redis = master.client();
  });
  after(async () => {
    redis?.disconnect();
    await master?.stop();
  });
  beforeEach(async () => {
    await redis.flushall();
  });

  describe(`waiting, with the core alone and with the wakeups part (ioredis, in this process) against a real ${server}`, () => {
    type Take = (redis: Redis, key: string, options: object) => Promise<unknown>;
    type Helper = Record<'acquire' | 'tryAcquire' | 'acquireWrite' | 'acquireRead' | 'acquireSemaphore', Take>;
    const KEY = 'proof:cancel';
    const helperWith = async (parts: 'core' | 'wakeups' | 'reentrant,read-write,semaphore'): Promise<Helper> => {
      const dir = join(work, 'waiting', parts.replace(/,/g, '+'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'locksmith.cjs'),
        renderHelper('ioredis', pack, { flavor: 'cjs', ...(parts !== 'core' && { kinds: parts }) }).text,
      );
      return ((await import(pathToFileURL(join(dir, 'locksmith.cjs')).href)) as { default: Helper }).default;
    };

    // The waiter's retry bound is 2 s: one that slept it past the lease's end would be seconds late.
    test("without the wakeups part, a dead holder's plain, reentrant, write and semaphore locks are taken as their 1 s lease ends, polled", async (t) => {
      const h = await helperWith('reentrant,read-write,semaphore');
      const wait = { ttlMs: 1000, waitMs: 10_000, retryMs: 2000 };
      const subscribed = await commandCalls(redis, 'ssubscribe');
      const kinds: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
        ['plain', () => h.acquire(redis, 'k:plain', { ttlMs: 1000 }), () => h.acquire(redis, 'k:plain', wait)],
        [
          'reentrant',
          () => h.acquire(redis, 'k:re', { ttlMs: 1000, reentrant: true }),
          () => h.acquire(redis, 'k:re', { ...wait, reentrant: true }),
        ],
        [
          'write, then read',
          () => h.acquireWrite(redis, 'k:rw', { ttlMs: 1000 }),
          () => h.acquireRead(redis, 'k:rw', wait),
        ],
        [
          'semaphore of 1',
          () => h.acquireSemaphore(redis, 'k:sem', { ttlMs: 1000, permits: 1 }),
          () => h.acquireSemaphore(redis, 'k:sem', { ...wait, permits: 1 }),
        ],
      ];
      for (const [kind, hold, take] of kinds) {
        const from = Date.now();
        await hold(); // and never released: the holder is gone
        await take();
        const tookMs = Date.now() - from;
        t.diagnostic(`${kind}: taken ${tookMs} ms after the holder's take began`);
        assert.ok(tookMs >= 950 && tookMs < 1300, `${kind}: taken after ${tookMs} ms; the lease was 1000 ms`);
      }
      assert.equal(await commandCalls(redis, 'ssubscribe'), subscribed, 'no subscription');
    });
    const subscribers = async () => ((await redis.call('PUBSUB', 'SHARDNUMSUB', KEY)) as [string, number])[1];

    for (const parts of ['core', 'wakeups'] as const) {
      test(`${parts}: a wait cancelled by options.signal rejects with its reason and leaves nothing behind`, async () => {
        const { acquire, tryAcquire } = await helperWith(parts);
        await redis.set(KEY, 'other-owner', 'PX', 60_000);
        const pttlBefore = await commandCalls(redis, 'pttl');
        assert.equal(await tryAcquire(redis, KEY, { ttlMs: 1000 }), null);
        assert.equal(await commandCalls(redis, 'pttl'), pttlBefore, 'a try never reads the lease');
        const cancel = new AbortController();
        const waiting = acquire(redis, KEY, { ttlMs: 1000, waitMs: 60_000, retryMs: 100, signal: cancel.signal });
        const rejected = assert.rejects(waiting, (error) => error === cancel.signal.reason);
        if (parts === 'core') {
          // It polls: the lease's PTTL after each busy try, no subscription, no place in line.
          await waitFor('the waiter read the lease', async () => (await commandCalls(redis, 'pttl')) > pttlBefore);
          await sleep(300);
          assert.equal(await subscribers(), 0, 'no subscription');
          assert.equal(await redis.exists(waitersKey(KEY)!), 0, 'no place in line');
        } else {
          await waitFor('the waiter subscribed', async () => (await subscribers()) === 1);
          await waitFor('the waiter in line', async () => (await redis.zcard(waitersKey(KEY)!)) === 1);
        }
        cancel.abort(new Error('the caller stopped waiting'));
        await rejected;
        assert.equal(await redis.get(KEY), 'other-owner');
        assert.equal(await redis.zcard(waitersKey(KEY)!), 0, 'left the line');
        await waitFor('no subscription left', async () => (await subscribers()) === 0);
      });
    }
  });

  for (const proof of JS_PROOFS) {
    describe(`${proof.client} helper: its parts against a real ${server}`, () => {
      let command: string[];
      const replica = async (name: string, url = master.url, env: Record<string, string> = {}) =>
        JSON.parse(
          (await start(command, url, { ...proof.env, ...env }, ['replica', name]).done).trim().split('\n').at(-1)!,
        ) as Record<string, unknown>;
      const fencedRun = async (name: string) =>
        JSON.parse((await start(command, master.url, proof.env ?? {}, ['fenced', name]).done).trim()) as unknown;
      before(async () => {
        command = await prepareOnce(proof, work, pack, 'all');
      });

      test(
        'no replica: a shortfall, the lock given back, and the error says so (one-shot and waiting)',
        ofPart(proof, 'replica-wait'),
        async () => {
          for (const name of ['shortfall', 'shortfall-waiting']) {
            const error = await replica(name);
            assert.equal(error.isShortfall, true, name);
            assert.equal(error.name, 'ReplicaShortfallError');
            assert.deepEqual(error.shortfall, {
              lock: 'proof:lock',
              required: 1,
              timeoutMs: 50,
              reason: 'timeout',
              acknowledged: 0,
            });
            assert.equal(error.released, true);
            assert.match(
              String(error.message),
              /^proof:lock was acknowledged by 0 of 1 replica within 50 ms \(WAIT\): released, not held\. Check the replicas/,
            );
            assert.equal(await redis.exists('proof:lock'), 0, `${name}: the lock is gone`);
            assert.equal(await redis.zcard('{proof:lock}:waiters'), 0, `${name}: out of the line`);
          }
        },
      );

      test(
        'no replica, onShortfall a callback: called with the shortfall, the lock kept with its fencing token',
        ofPart(proof, 'replica-wait'),
        async () => {
          const kept = await replica('kept');
          assert.deepEqual(kept.seen, [
            { lock: 'proof:lock', required: 1, timeoutMs: 50, reason: 'timeout', acknowledged: 0 },
          ]);
          assert.equal(await redis.get('proof:lock'), kept.token);
          assert.equal(kept.fence, 1);
        },
      );

      test(
        'fsync the server cannot honour: given back whatever onShortfall says, named as a setting',
        ofPart(proof, 'replica-wait'),
        async () => {
          const error = await replica('fsync');
          const shortfall = error.shortfall as Record<string, unknown>;
          assert.equal(shortfall.reason, server === 'redis' ? 'no-waitaof' : 'aof-off');
          assert.equal(error.released, true);
          assert.match(String(error.message), /Turn fsync off \(WAIT alone covers a failover\) or enable the AOF/);
          assert.equal(await redis.exists('proof:lock'), 0);
        },
      );

      test('bad settings: each refused by name before anything is sent', ofPart(proof, 'replica-wait'), async () => {
        const calls = await scriptAndWaitCalls(redis);
        const { messages } = await replica('bad');
        assert.deepEqual(messages, [
          'RangeError: waitForReplicas must be an object of settings, got true',
          'RangeError: waitForReplicas.replicas must be a positive integer, got 0',
          'RangeError: waitForReplicas.replicas must be a positive integer, got 1.5',
          'RangeError: waitForReplicas.timeoutMs must be a positive integer of milliseconds, got 0',
          'RangeError: waitForReplicas.timeoutMs (1000) must be shorter than the lease (1000 ms): the wait spends it',
          'RangeError: waitForReplicas.fsync must be true or false, got yes',
          "RangeError: waitForReplicas.onShortfall must be 'release' or a function, got keep",
        ]);
        assert.equal(await scriptAndWaitCalls(redis), calls, 'no script and no WAIT ran');
        assert.equal(await redis.dbsize(), 0);
      });

      test(
        "fenced-writes: a holder paused past its lease writes nothing; a newer fencing token's write commits",
        ofPart(proof, 'fenced-writes'),
        async () => {
          const paused = start(command, master.url, proof.env ?? {}, ['fenced', 'paused']);
          await waitFor('the holder stopped itself', async () => (await redis.get('proof:pid')) !== null);
          const pid = Number(await redis.get('proof:pid'));
          await sleep(400); // its 300 ms lease ends while it is stopped
          try {
            assert.deepEqual(await fencedRun('write'), { fence: 2, guarded: true, fenced: true });
          } finally {
            process.kill(pid, 'SIGCONT');
          }
          const late = JSON.parse((await paused.done).trim()) as unknown;
          assert.deepEqual(late, { fence: 1, guarded: false, fenced: false });
          assert.equal(await redis.get('proof:data'), 'fence 2');
          assert.deepEqual(await redis.hgetall('proof:fenced'), { value: 'fence 2', fence: '2' });
          assert.deepEqual(await fencedRun('write'), { fence: 3, guarded: true, fenced: true });
          assert.deepEqual(await redis.hgetall('proof:fenced'), { value: 'fence 3', fence: '3' });
        },
      );

      test(
        'fenced-writes: misuse refused by name before anything is written; a released lease writes nothing',
        ofPart(proof, 'fenced-writes'),
        async () => {
          const { messages, released } = (await fencedRun('misuse')) as { messages: string[]; released: boolean };
          assert.deepEqual(messages, [
            'TypeError: setFenced needs a fencing token: acquire with fenceKey',
            'TypeError: value must be a non-empty string, got ""',
            'RangeError: fence must be a positive integer, got 0',
            'TypeError: setIfHeld works with a plain lock, not a reentrant, read-write or semaphore one',
          ]);
          assert.equal(released, false);
          assert.deepEqual([await redis.exists('proof:data'), await redis.exists('proof:fenced')], [0, 0]);
        },
      );

      test(
        'multi: overlapping key sets under contention: no deadlock, no partial hold, never two holders, the money adds up',
        ofPart(proof, 'multi'),
        async (t) => {
          const accounts = ['a', 'b', 'c', 'd'].map((account) => `proof:acct:${account}`);
          for (const account of accounts) await redis.set(account, '100');
          const multi = (mode: string) => start(command, master.url, proof.env ?? {}, [mode, '30']).done;
          const [, , , trying] = await Promise.all([
            multi('multi'),
            multi('multi'),
            multi('multi'),
            multi('multi-try'),
          ]);
          const { busy, tries } = JSON.parse(trying.trim()) as { busy: number; tries: number };
          t.diagnostic(`${busy} of ${tries} tries found a key busy`);
          assert.ok(busy > 0, 'the tries met contention');
          const balances = await Promise.all(accounts.map(async (account) => Number(await redis.get(account))));
          assert.equal(
            balances.reduce((sum, balance) => sum + balance, 0),
            400,
            `balances ${balances.join(', ')}`,
          );
          assert.equal(await redis.exists(...accounts.map((account) => `lock:${account}`)), 0, 'every lock released');
        },
      );

      describe('with a real replica behind a lagging link', ofPart(proof, 'replica-wait'), () => {
        let link: TcpProxy;
        let replicaServer: RedisServer;
        before(async () => {
          link = await startProxy(master.port);
          const args = ['--repl-diskless-sync-delay', '0', '--replicaof', '127.0.0.1', String(link.port)];
          replicaServer = await startRedis({ server, args });
          assert.equal(await redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
        });
        beforeEach(async () => {
          link.setLatency(0);
          assert.equal(await redis.wait(1, 10_000), 1, 'the replica is in sync again');
        });
        after(async () => {
          await replicaServer?.stop();
          await link?.close();
        });

        test('acknowledged: held once the replica has the lock and its fencing token; a plain acquire returns before', async () => {
          link.setLatency(SLOW_LINK_MS);
          try {
            const acked = await replica('acked', master.url, { PROOF_REPLICA_URL: replicaServer.url });
            const plain = acked.plain as Record<string, unknown>;
            assert.equal(plain.onReplica, null, 'the control: not on the replica yet');
            assert.equal(acked.onReplica, acked.token);
            assert.equal(acked.fence, 1);
            assert.equal(acked.fenceOnReplica, '1');
          } finally {
            link.setLatency(0);
          }
        });

        test('a connection lost during the wait: a shortfall, given back once reconnected', async () => {
          const front = await startProxy(master.port);
          link.setLatency(300); // the acquire is answered at once; the wait takes the link's round trip (600 ms)
          try {
            const program = start(command, `redis://127.0.0.1:${front.port}`, proof.env ?? {}, ['replica', 'cut']);
            await program.printed('acquiring');
            await sleep(100);
            front.cut('hold'); // the reconnection waits for restore(), then the give-back runs on it
            setTimeout(() => front.restore(), 100);
            const error = JSON.parse((await program.done).trim().split('\n').at(-1)!) as Record<string, unknown>;
            const shortfall = error.shortfall as Record<string, unknown>;
            assert.equal(shortfall.reason, 'connection-lost', JSON.stringify(error));
            assert.equal(shortfall.acknowledged, undefined);
            assert.equal(error.released, true, JSON.stringify(error));
            assert.match(String(error.message), /the connection closed before the replicas acknowledged the acquire/);
            assert.equal(await redis.exists('proof:lock'), 0);
          } finally {
            link.setLatency(0);
            await front.close();
          }
        });

        test('more replicas than the master has: a shortfall counting the one that did acknowledge', async () => {
          const error = await replica('more');
          const shortfall = error.shortfall as Record<string, unknown>;
          assert.deepEqual([shortfall.acknowledged, shortfall.required, error.released], [1, 2, true]);
          assert.match(String(error.message), /acknowledged by 1 of 2 replicas within 100 ms/);
          assert.equal(await redis.exists('proof:lock'), 0);
        });
      });
    });
  }
}

/**
 * On a real 3-master Cluster through each library's cluster client: the multi-key lock across
 * slots (the accounts' locks hash to different slots), and replica-wait's pipeline reaching the
 * lock's node (masters without replicas: the shortfall, the lock given back).
 */
function onCluster(server: ServerKind): void {
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

  for (const proof of JS_PROOFS) {
    describe(`${proof.client} helper's parts on a ${server} Cluster`, () => {
      let command: string[];
      const run = (...args: string[]) => start(command, url, proof.env ?? {}, args).done;
      before(async () => {
        command = await prepareOnce(proof, work, pack, 'all');
      });

      test(
        'multi across slots: no deadlock, no partial hold, never two holders, the money adds up',
        ofPart(proof, 'multi'),
        async (t) => {
          const accounts = ['a', 'b', 'c', 'd'].map((account) => `proof:acct:${account}`);
          const slots = new Set(accounts.map((account) => keySlot(`lock:${account}`)));
          assert.ok(slots.size > 1, 'the locks live in more than one slot');
          for (const account of accounts) await redis.set(account, '100');
          for (const counter of ['proof:multi:started', 'proof:multi:done']) await redis.del(counter);
          const [, , , trying] = await Promise.all([
            run('multi', '20'),
            run('multi', '20'),
            run('multi', '20'),
            run('multi-try', '20'),
          ]);
          const { busy, tries } = JSON.parse(trying.trim()) as { busy: number; tries: number };
          t.diagnostic(`${slots.size} slots; ${busy} of ${tries} tries busy`);
          const balances = await Promise.all(accounts.map(async (account) => Number(await redis.get(account))));
          assert.equal(
            balances.reduce((sum, balance) => sum + balance, 0),
            400,
            `balances ${balances.join(', ')}`,
          );
          for (const account of accounts)
            assert.equal(await redis.exists(`lock:${account}`), 0, `lock:${account} released`);
        },
      );

      test('a wait given up while its shard subscription opens: busy, and the process exits by itself', async () => {
        // node-redis 5 leaves a shard connection open when it is closed while it opens: the
        // helper's subscriber once did so, and a proof process then never exited.
        await redis.set('proof:lock', 'holder', 'PX', 60_000);
        const giving = start(command, url, proof.env ?? {}, ['give-up']);
        await giving.printed('{"busy":true}');
        const exited = await Promise.race([giving.done.then(() => true), sleep(20_000).then(() => false)]);
        if (!exited) giving.kill();
        assert.ok(exited, 'still running 20 s after it gave up: its subscriber left a connection open');
        assert.equal(await redis.get('proof:lock'), 'holder');
        await redis.del('proof:lock');
      });

      test(
        "replica-wait: the acquire and WAIT reach the lock's master; with no replica, the shortfall",
        ofPart(proof, 'replica-wait'),
        async () => {
          const output = await run('replica', 'shortfall'); // GLIDE logs its warnings on stdout: the JSON is last
          const error = JSON.parse(output.trim().split('\n').at(-1)!) as Record<string, unknown>;
          assert.equal(error.isShortfall, true, JSON.stringify(error));
          assert.equal((error.shortfall as Record<string, unknown>).acknowledged, 0);
          assert.equal(error.released, true);
          assert.equal(await redis.exists('proof:lock'), 0);
        },
      );
    });
  }
}

// waitForReplicas (docs/dev/wait-for-replicas.md) on Redis 7.0 and Valkey 9, with a real replica: an acquire
// counts only once the replica has the lock; a shortfall releases it and says why, or keeps it
// with the callback; a connection lost during the wait is a shortfall; bad settings change nothing.
// The replica replicates through a TcpProxy whose latency makes "not yet on the replica" last.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import Redis from 'ioredis';
import { LockScripts, ReplicaShortfallError, type ReplicaShortfall } from '../pack/runtime';
import { startProxy, type TcpProxy } from '../harness/proxy';
import { SERVER_KINDS, startRedis, type RedisServer, type ServerKind } from '../harness/redis';
import { digest, pack, sleep } from './helpers';

const TTL = 60_000;
/** Long enough that a write is certainly not on the replica when the acquire returns without waiting. */
const SLOW_LINK_MS = 200;
/** Far longer than the shortfall tests' timeoutMs (100) for a round trip, and short enough to drain before the next test. */
const LAGGING_LINK_MS = 1000;

interface Pair {
  master: RedisServer;
  replica: RedisServer;
  /** The replica's link to the master goes through it. */
  link: TcpProxy;
  redis: Redis;
  /** Reads the replica directly. */
  replicaClient: Redis;
  locks: LockScripts;
}

/** A master and one replica replicating through a proxy, for the enclosing describe block. */
function usePair(server: ServerKind, args: string[] = []): Pair {
  const pair = {} as Pair;
  before(async () => {
    const common = ['--repl-diskless-sync-delay', '0', ...args];
    pair.master = await startRedis({ server, args: ['--enable-debug-command', 'local', ...common] });
    pair.link = await startProxy(pair.master.port);
    pair.replica = await startRedis({ server, args: [...common, '--replicaof', '127.0.0.1', String(pair.link.port)] });
    pair.redis = pair.master.client();
    pair.replicaClient = pair.replica.client();
    pair.locks = new LockScripts(pair.redis, pack);
    await pair.locks.load();
  });
  beforeEach(async () => {
    pair.link.setLatency(0);
    await pair.redis.flushall();
    assert.equal(await pair.redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
  });
  after(async () => {
    pair.locks?.close();
    pair.redis?.disconnect();
    pair.replicaClient?.disconnect();
    await pair.replica?.stop();
    await pair.master?.stop();
    await pair.link?.close();
  });
  return pair;
}

for (const server of SERVER_KINDS) {
  describe(server, () => {
    const fx = usePair(server);

    test('held means on the replica: the acquire returns once the replica acknowledged, the fencing token with it', async () => {
      fx.link.setLatency(SLOW_LINK_MS);
      // Without the option the acquire returns while the write is still on its way.
      assert.equal(await fx.locks.acquire('lock:plain', 'a', TTL), 1);
      assert.equal(await fx.replicaClient.get('lock:plain'), null, 'the control: not on the replica yet');

      const options = { fence: 'fence:{lock:durable}', waitForReplicas: { timeoutMs: 5000 } };
      const token = await fx.locks.acquire('lock:{lock:durable}', 'a', TTL, options);
      assert.equal(token, 1);
      assert.equal(await fx.replicaClient.get('lock:{lock:durable}'), 'a');
      assert.equal(await fx.replicaClient.get('fence:{lock:durable}'), String(token));
    });

    test('busy: 0, as without the option, and the holder untouched', async () => {
      await fx.redis.set('lock:busy', 'other', 'PX', TTL);
      assert.equal(await fx.locks.acquire('lock:busy', 'a', TTL, { waitForReplicas: {} }), 0);
      assert.equal(await fx.redis.get('lock:busy'), 'other');
    });

    test('no acknowledgement in time: released, and a ReplicaShortfallError that says what happened', async () => {
      fx.link.setLatency(LAGGING_LINK_MS);
      const error = await fx.locks.acquire('lock:short', 'a', TTL, { waitForReplicas: { timeoutMs: 100 } }).then(
        () => assert.fail('acquired without the replica'),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof ReplicaShortfallError);
      assert.deepEqual(error.shortfall, {
        lock: 'lock:short',
        required: 1,
        timeoutMs: 100,
        reason: 'timeout',
        acknowledged: 0,
      });
      assert.equal(error.released, true);
      assert.match(
        error.message,
        /^lock:short was acknowledged by 0 of 1 replica within 100 ms \(WAIT\): released, not held\. Check the replicas/,
      );
      assert.equal(await fx.redis.get('lock:short'), null);
    });

    test('onShortfall as a callback keeps the lock and hands it the shortfall', async () => {
      fx.link.setLatency(LAGGING_LINK_MS);
      const seen: ReplicaShortfall[] = [];
      const onShortfall = (shortfall: ReplicaShortfall) => void seen.push(shortfall);
      const result = await fx.locks.acquire('lock:kept', 'a', TTL, {
        waitForReplicas: { timeoutMs: 100, onShortfall },
      });
      assert.equal(result, 1);
      assert.deepEqual(seen, [{ lock: 'lock:kept', required: 1, timeoutMs: 100, reason: 'timeout', acknowledged: 0 }]);
      assert.equal(await fx.redis.get('lock:kept'), 'a');
    });

    test('more replicas than the master has: a shortfall counting the one that did acknowledge', async () => {
      const waitForReplicas = { replicas: 2, timeoutMs: 100 };
      await assert.rejects(fx.locks.acquire('lock:two', 'a', TTL, { waitForReplicas }), (error: unknown) => {
        assert.ok(error instanceof ReplicaShortfallError);
        assert.equal(error.shortfall.acknowledged, 1);
        assert.equal(error.shortfall.required, 2);
        assert.match(error.message, /acknowledged by 1 of 2 replicas within 100 ms/);
        return true;
      });
      assert.equal(await fx.redis.get('lock:two'), null);
    });

    test('a waiting acquire: the attempt that takes the lock waits for the replica', async () => {
      await fx.redis.set('lock:{wait}', 'other', 'PX', 300);
      fx.link.setLatency(SLOW_LINK_MS);
      const options = { waitMs: 10_000, waitForReplicas: { timeoutMs: 5000 } };
      assert.equal(await fx.locks.acquire('lock:{wait}', 'a', TTL, options), 1);
      assert.equal(await fx.replicaClient.get('lock:{wait}'), 'a');
    });

    test('a lock handed over in the queue counts once the replica has the waiter on it', async () => {
      assert.equal(await fx.locks.acquire('lock:{handed}', 'holder', TTL, { waitMs: 1000 }), 1);
      fx.link.setLatency(SLOW_LINK_MS);
      const options = { waitMs: 10_000, handoff: 'wake' as const, waitForReplicas: { timeoutMs: 5000 } };
      const waiting = fx.locks.acquire('lock:{handed}', 'waiter', TTL, options);
      await sleep(100);
      assert.equal(await fx.locks.release('lock:{handed}', 'holder'), true);
      assert.equal(await waiting, 1);
      assert.equal(await fx.replicaClient.get('lock:{handed}'), 'waiter');
    });

    test('a waiting acquire whose take is not acknowledged: released, and the wait ends with the error', async () => {
      await fx.redis.set('lock:{late}', 'other', 'PX', 200);
      fx.link.setLatency(LAGGING_LINK_MS);
      const options = { waitMs: 10_000, waitForReplicas: { timeoutMs: 100 } };
      await assert.rejects(fx.locks.acquire('lock:{late}', 'a', TTL, options), ReplicaShortfallError);
      assert.notEqual(await fx.redis.get('lock:{late}'), 'a');
    });

    test('an ACL that denies WAIT: the lock given back and the NOPERM error as it is', async () => {
      await fx.redis.acl('SETUSER', 'no-wait', 'on', '>no-wait-password', '~*', '&*', '+@all', '-wait');
      const client = fx.master.client({ username: 'no-wait', password: 'no-wait-password' });
      const locks = new LockScripts(client, pack);
      try {
        await assert.rejects(locks.acquire('lock:acl', 'a', TTL, { waitForReplicas: {} }), /NOPERM .*'wait' command/);
        assert.equal(await fx.redis.get('lock:acl'), null);
      } finally {
        locks.close();
        client.disconnect();
        await fx.redis.acl('DELUSER', 'no-wait');
      }
    });

    test('bad settings are refused before anything is sent', async () => {
      const cases: [object, RegExp][] = [
        [{ replicas: 0 }, /waitForReplicas\.replicas must be a positive integer, got 0/],
        [{ replicas: 1.5 }, /waitForReplicas\.replicas must be a positive integer, got 1\.5/],
        [{ timeoutMs: 0 }, /waitForReplicas\.timeoutMs must be a positive integer of milliseconds, got 0/],
        [
          { timeoutMs: 1000 },
          /waitForReplicas\.timeoutMs \(1000\) must be shorter than the lease \(1000 ms\): the wait spends it/,
        ],
        [{ fsync: 'yes' }, /waitForReplicas\.fsync must be true or false, got yes/],
        [{ onShortfall: 'keep' }, /waitForReplicas\.onShortfall must be 'release' or a function, got keep/],
      ];
      const before = await digest(fx.redis);
      for (const [waitForReplicas, message] of cases) {
        await assert.rejects(fx.locks.acquire('lock:bad', 'a', 1000, { waitForReplicas }), message);
      }
      assert.equal(await digest(fx.redis), before);
    });

    test('fsync where the server cannot: released whatever onShortfall says, named as a setting to change', async () => {
      const onShortfall = () => assert.fail('a setting the server cannot honour is no shortfall to keep');
      const reason = server === 'redis' ? 'no-waitaof' : 'aof-off';
      const message =
        server === 'redis'
          ? /waitForReplicas\.fsync needs WAITAOF, which this server does not have/
          : /waitForReplicas\.fsync needs appendonly yes on the master, which has it off/;
      await assert.rejects(
        fx.locks.acquire('lock:fsync', 'a', TTL, { waitForReplicas: { fsync: true, onShortfall } }),
        (error: unknown) => {
          assert.ok(error instanceof ReplicaShortfallError);
          assert.equal(error.shortfall.reason, reason);
          assert.equal(error.released, true);
          assert.match(error.message, message);
          assert.match(error.message, /Turn fsync off \(WAIT alone covers a failover\) or enable the AOF/);
          return true;
        },
      );
      assert.equal(await fx.redis.get('lock:fsync'), null);
    });
  });
}

describe('a connection lost during the wait', () => {
  const fx = usePair('redis');
  let front: TcpProxy;
  let redis: Redis;
  let locks: LockScripts;
  before(async () => {
    front = await startProxy(fx.master.port);
    redis = new Redis({ host: front.host, port: front.port, retryStrategy: () => 50 });
    redis.on('error', () => {});
    locks = new LockScripts(redis, pack);
  });
  after(async () => {
    locks?.close();
    redis?.disconnect();
    await front?.close();
  });

  test('is a shortfall: the acquire had an answer, the wait none; released once reconnected', async () => {
    fx.link.setLatency(300);
    const acquiring = locks.acquire('lock:cut', 'a', TTL, { waitForReplicas: { timeoutMs: 5000 } });
    // The acquire is answered at once; the wait takes the link's round trip (600 ms).
    await sleep(50);
    front.cut();
    setTimeout(() => front.restore(), 100);
    await assert.rejects(acquiring, (error: unknown) => {
      assert.ok(error instanceof ReplicaShortfallError);
      assert.equal(error.shortfall.reason, 'connection-lost');
      assert.equal(error.shortfall.acknowledged, undefined);
      assert.equal(error.released, true);
      assert.match(error.message, /the connection closed before the replicas acknowledged the acquire/);
      return true;
    });
    assert.equal(await fx.redis.get('lock:cut'), null);
  });
});

describe('valkey with appendonly yes', () => {
  const fx = usePair('valkey', ['--appendonly', 'yes', '--appendfsync', 'always']);

  test('fsync: held once the master and the replica have it on disk (WAITAOF)', async () => {
    const token = await fx.locks.acquire('lock:disk', 'a', TTL, { waitForReplicas: { fsync: true, timeoutMs: 5000 } });
    assert.equal(token, 1);
    assert.equal(await fx.replicaClient.get('lock:disk'), 'a');
  });
});

// The redis-rs helper's parts (fenced-writes, replica-wait) run as a real program built against the
// pinned redis-rs crate (test/proofs/rust), on a throwaway Redis 7.0 and Valkey 9; the program and
// its modes: test/proofs/helpers/redis-rs-kinds.rs.
// - replica-wait (docs/dev/wait-for-replicas.md): on a master with no replica the acquire is a
//   shortfall and the lock is gone (or kept, with the callback); with a real replica behind a slow
//   link the acquire returns once the replica has the lock and its fencing token; a connection
//   killed during the wait is a shortfall too; busy is busy; fsync where the server cannot, and an
//   ACL that denies WAIT, give the lock back; bad settings are refused before anything is sent.
// - fenced-writes: a holder paused (SIGSTOP) past its lease while the next holder takes the lock and writes
//   has its guarded write refused (the lock holds another token) and its fenced write refused
//   (an older fencing token); the next holder's newer token commits, and the data keys hold what
//   it wrote; a lease that ran out writes nothing.
// - multi: 3 processes x 30 transfers between 2 or 3 of 4 accounts under acquire_multi (waiting,
//   woken) and one trying 30 times without waiting, the key sets overlapping: no deadlock, no
//   partial hold after a busy try, never two holders, the balances add up; a lease renewed past its
//   TTL keeps every key; a waiter with wake_with and a 30 s retry bound takes its keys soon after the
//   holder's release; extend and release
//   answer true only while the token holds every key; bad keys and settings are refused before
//   anything is sent. On a real 3-master Cluster through redis-rs's ClusterConnection: keys of one
//   {hash tag} are taken in one call; keys across slots are refused with a message saying so, nothing
//   taken (the helper takes a Cluster's keys in one slot only).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { startProxy, type TcpProxy } from '../harness/proxy';
import { SERVER_KINDS, startCluster, startRedis, type RedisServer, type ServerKind } from '../harness/redis';
import { commandCalls, digest, useRedis, waitFor } from './helpers';
import { HELPER_PROOFS, prepareOnce } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-redis-rs-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

const proof = HELPER_PROOFS.find((candidate) => candidate.client === 'redis-rs')!;
/** Long enough that a write is certainly not on the replica when an acquire returns without waiting. */
const SLOW_LINK_MS = 200;

let command: string[];
before(async () => {
  command = await prepareOnce(proof, work, pack, 'all');
});
const run = (url: string, ...args: string[]) => start(command, url, {}, args);

for (const server of SERVER_KINDS) describe(`redis-rs helper parts against a real ${server}`, () => parts(server));

function parts(server: ServerKind): void {
  describe('replica-wait, on a master with no replica', () => {
    const fx = useRedis({ server });
    beforeEach(async () => {
      await fx.redis.flushall();
    });

    test('a shortfall: released and named, with no retry in the wait; on_shortfall Keep keeps it and is called', async () => {
      const out = await run(fx.server.url, 'replica-short').done;
      const shortfall = /^shortfall (\d+) ms: (.*)$/m.exec(out);
      assert.ok(shortfall, out);
      assert.equal(
        shortfall[2],
        'proof:lock was acknowledged by 0 of 1 replica within 50 ms (WAIT): released, not held. ' +
          'Check the replicas (INFO replication: connected_slaves, their lag), or pass on_shortfall to keep such locks',
      );
      assert.ok(Number(shortfall[1]) < 5000, `the shortfall came after ${shortfall[1]} ms: retried in the wait`);
      assert.match(out, /^kept fence 1: proof:lock was acknowledged by 0 of 1 replica within 50 ms \(WAIT\)$/m);
      assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
    });

    test('busy: as without the option, the holder untouched', async () => {
      await fx.redis.set('proof:lock', 'other', 'PX', 60_000);
      assert.match(await run(fx.server.url, 'replica-busy').done, /^busy$/m);
      assert.equal(await fx.redis.get('proof:lock'), 'other');
    });

    test('fsync where the server cannot: released whatever on_shortfall says, named as a setting to change', async () => {
      const cause =
        server === 'redis'
          ? 'wait_for_replicas.fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)'
          : 'wait_for_replicas.fsync needs appendonly yes on the master, which has it off';
      assert.equal(
        (await run(fx.server.url, 'replica-fsync').done).trim(),
        `refused: proof:lock: ${cause}: released, not held. Turn fsync off (WAIT alone covers a failover) or enable the AOF`,
      );
      assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
    });

    test('an ACL that denies WAIT: the lock given back and the NOPERM error as it is', async () => {
      await fx.redis.acl('SETUSER', 'no-wait', 'on', '>no-wait-password', '~*', '&*', '+@all', '-wait');
      try {
        const url = fx.server.url.replace('redis://', 'redis://no-wait:no-wait-password@');
        // The server's NOPERM, as redis-rs prints it.
        assert.match(
          await run(url, 'replica-acl').done,
          /^refused: NoPerm: .* has no permissions to run the 'wait' command$/m,
        );
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'given back');
      } finally {
        await fx.redis.acl('DELUSER', 'no-wait');
      }
    });

    test('a connection killed during the wait: a connection-lost shortfall, not held', async () => {
      const waiter = run(fx.server.url, 'replica-lost');
      let id = '';
      await waitFor('the program in WAIT', async () => {
        const clients = String(await fx.redis.call('CLIENT', 'LIST'));
        id = /^id=(\d+) .*cmd=wait/m.exec(clients)?.[1] ?? '';
        return id !== '';
      });
      await fx.redis.call('CLIENT', 'KILL', 'ID', id);
      assert.match(
        await waiter.done,
        /^lost: proof:lock: the connection closed before the replicas acknowledged the acquire \(it may not have reached any\): could not be released \(it ends with its lease\), not held\. The master may be failing over/m,
      );
    });

    test('bad settings are refused, each named, before anything is sent', async () => {
      const sent = async () =>
        Promise.all(['evalsha', 'eval', 'wait', 'waitaof'].map((name) => commandCalls(fx.redis, name)));
      const [before, callsBefore] = [await digest(fx.redis), await sent()];
      const out = await run(fx.server.url, 'replica-bad').done;
      assert.deepEqual(out.trim().split('\n'), [
        'refused: wait_for_replicas.replicas must be at least 1, got 0',
        'refused: wait_for_replicas.timeout must be a whole number of milliseconds, at least 1, got 0ns',
        'refused: wait_for_replicas.timeout must be a whole number of milliseconds, at least 1, got 1.5ms',
        'refused: wait_for_replicas.timeout (1000 ms) must be shorter than the lease (1000 ms): the wait spends it',
        'refused: wait_for_replicas works with the plain lock, not yet with the lock kinds',
      ]);
      assert.equal(await digest(fx.redis), before);
      assert.deepEqual(await sent(), callsBefore, 'no script and no WAIT reached the server');
    });
  });

  describe('fenced-writes', () => {
    const fx = useRedis({ server });
    beforeEach(async () => {
      await fx.redis.flushall();
    });

    test("a holder SIGSTOPped past its lease: the next holder's writes commit, then the paused holder's are refused", async () => {
      const holder = run(fx.server.url, 'fenced-holder');
      await holder.printed('held 1');
      const pid = Number(await fx.redis.get('proof:pid'));
      assert.ok(Number.isInteger(pid) && pid > 0, 'the holder wrote its pid');
      process.kill(pid, 'SIGSTOP');
      await waitFor('its 300 ms lease ended', async () => (await fx.redis.exists('proof:lock')) === 0);
      try {
        assert.match(await run(fx.server.url, 'fenced-taker').done, /^wrote 2$/m);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      assert.match(await holder.done, /^refused$/m);
      assert.equal(await fx.redis.get('proof:guarded'), 'taker');
      assert.deepEqual(await fx.redis.hgetall('proof:fenced'), { value: 'taker', fence: '2' });
    });

    test('a lease that ran out writes nothing; set_fenced without a fencing token is refused', async () => {
      assert.match(
        await run(fx.server.url, 'fenced-expired').done,
        /^refused: set_fenced on proof:lock: acquire with LockOptions::fence_key for a fencing token$/m,
      );
      assert.equal(await fx.redis.exists('proof:guarded', 'proof:fenced'), 0);
    });
  });

  describe('multi', () => {
    const fx = useRedis({ server });
    beforeEach(async () => {
      await fx.redis.flushall();
    });

    test('overlapping key sets under contention: no deadlock, no partial hold, never two holders, the money adds up', async (t) => {
      const accounts = ['a', 'b', 'c', 'd'].map((account) => `proof:acct:${account}`);
      for (const account of accounts) await fx.redis.set(account, '100');
      const [, , , trying] = await Promise.all([
        run(fx.server.url, 'multi', '30').done,
        run(fx.server.url, 'multi', '30').done,
        run(fx.server.url, 'multi', '30').done,
        run(fx.server.url, 'multi-try', '30').done,
      ]);
      const [, busy, tries] = /^busy (\d+) of (\d+)$/m.exec(trying) ?? [];
      assert.ok(busy, trying);
      t.diagnostic(`${busy} of ${tries} tries found a key busy`);
      assert.ok(Number(tries) >= 30, `${tries} tries, fewer than 30`);
      assert.ok(Number(busy) > 0, 'the tries met contention');
      const balances = await Promise.all(accounts.map(async (account) => Number(await fx.redis.get(account))));
      assert.equal(
        balances.reduce((sum, balance) => sum + balance, 0),
        400,
        `balances ${balances.join(', ')}`,
      );
      assert.equal(await fx.redis.exists(...accounts.map((account) => `lock:${account}`)), 0, 'every lock released');
    });

    test('extend and release answer for every key: false and LeaseLost once one was taken, the other released', async () => {
      assert.deepEqual((await run(fx.server.url, 'multi-lost').done).trim().split('\n'), [
        'keys proof:a proof:b',
        'extended true',
        'extended false',
        'released: lease on proof:a, proof:b lost: it expired or was taken',
      ]);
      assert.equal(await fx.redis.exists('proof:a'), 0, 'the key it still held is released');
      assert.equal(await fx.redis.get('proof:b'), 'another owner', "the other owner's key is untouched");
    });

    test("woken: a waiter with a 30 s retry bound takes its keys soon after the holder's release", async (t) => {
      const out = await run(fx.server.url, 'multi-woken').done;
      const woken = /^woken (\d+) ms$/m.exec(out);
      assert.ok(woken, out);
      t.diagnostic(`took the keys ${woken[1]} ms after the release`);
      // Without the wake-up it sleeps until the holder's 5 s lease ends (its retry bound is 30 s).
      assert.ok(Number(woken[1]) < 2000, `took the keys ${woken[1]} ms after the release`);
    });

    test('renewal: 3 keys on a 900 ms lease are still held after 3 s, then released', async () => {
      assert.match(await run(fx.server.url, 'multi-renew').done, /^renewed$/m);
      assert.equal(await fx.redis.exists('proof:a', 'proof:b', 'proof:c'), 0, 'released');
    });

    test('bad keys and settings are refused, each named, before anything is sent', async () => {
      const [before, callsBefore] = [await digest(fx.redis), await commandCalls(fx.redis, 'evalsha')];
      assert.deepEqual((await run(fx.server.url, 'multi-bad').done).trim().split('\n'), [
        'refused: acquire_multi needs one or more lock keys, got none',
        'refused: acquire_multi got an empty lock key',
        'refused: acquire_multi got the lock key "proof:a" twice: give each key once',
        'refused: ttl must be a whole number of milliseconds, at least 1, got 0ns',
        'refused: ttl must be a whole number of milliseconds, at least 1, got 1.5ms',
        'refused: fence_key works with a plain lock, not a multi-key lock',
      ]);
      assert.equal(await digest(fx.redis), before);
      assert.equal(await commandCalls(fx.redis, 'evalsha'), callsBefore, 'no script reached the server');
    });
  });

  test('multi on a real Cluster: keys of one {hash tag} in one call; keys across slots refused, nothing taken', async () => {
    const cluster = await startCluster({ server });
    try {
      assert.deepEqual((await run(cluster.masters[0].url, 'multi-cluster').done).trim().split('\n'), [
        'held lock:{acct}:a lock:{acct}:b',
        'refused: acquire_multi takes keys of one hash slot on a Cluster (give them one {hash tag}), ' +
          'got lock:{a}, lock:{b}: nothing taken',
      ]);
      for (const master of cluster.masters) {
        const client = master.client();
        try {
          assert.equal(await client.dbsize(), 0, `nothing left on ${master.url}`);
        } finally {
          client.disconnect();
        }
      }
    } finally {
      await cluster.stop();
    }
  });

  describe('replica-wait, with a real replica behind a slow link', () => {
    let master: RedisServer;
    let replica: RedisServer;
    let link: TcpProxy;
    let redis: Redis;
    let replicaClient: Redis;
    before(async () => {
      const common = ['--repl-diskless-sync-delay', '0'];
      master = await startRedis({ server, args: common });
      link = await startProxy(master.port);
      replica = await startRedis({ server, args: [...common, '--replicaof', '127.0.0.1', String(link.port)] });
      [redis, replicaClient] = [master.client(), replica.client()];
      assert.equal(await redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
    });
    after(async () => {
      redis?.disconnect();
      replicaClient?.disconnect();
      await replica?.stop();
      await master?.stop();
      await link?.close();
    });

    test('held means on the replica: the acquire returns once the replica has the lock and its fencing token', async () => {
      link.setLatency(SLOW_LINK_MS);
      await redis.set('proof:control', 'x');
      assert.equal(await replicaClient.get('proof:control'), null, 'the control: a write is not on the replica yet');
      const [, token, fence] = /^acknowledged (\S+) (\d+)$/m.exec(await run(master.url, 'replica-acked').done) ?? [];
      assert.ok(token, 'acknowledged');
      assert.equal(await replicaClient.get('proof:lock'), token);
      assert.equal(await replicaClient.get('proof:fence'), fence);
    });
  });
}

// The parts of the phpredis, Predis and redis-rb helpers (fenced-writes, replica-wait), run as real
// programs on Debian's client libraries against a throwaway Redis 7.0 and Valkey 9 (the programs'
// modes: test/proofs/helpers/phpredis.php, predis.php, redis-rb.rb):
// - fenced-writes: a holder whose lease expired, and one whose lock another owner took, has its
//   guarded write refused; a fenced write with an older token than the data key's is refused, a
//   newer one commits; the data keys hold the live holder's values;
// - replica-wait (docs/dev/wait-for-replicas.md): on a master with no replica an acquire waiting
//   for one is a shortfall, the lock released (the key gone), or kept with the callback; a busy
//   lock is busy; with a real replica the acquire is acknowledged and the replica has the lock and
//   the fence; bad values are refused before any command reaches the server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { SERVER_KINDS, startRedis, type RedisServer, type ServerKind } from '../harness/redis';
import { commandCalls, useRedis } from './helpers';
import { HELPER_PROOFS, prepareOnce, proofName } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

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
  /** A master with one replica, for the acknowledged acquire. */
  const pair = {} as { master: RedisServer; replica: RedisServer; redis: Redis; replicaClient: Redis };
  before(async () => {
    const args = ['--repl-diskless-sync-delay', '0'];
    pair.master = await startRedis({ server, args });
    pair.replica = await startRedis({ server, args: [...args, '--replicaof', '127.0.0.1', String(pair.master.port)] });
    pair.redis = pair.master.client();
    pair.replicaClient = pair.replica.client();
  });
  after(async () => {
    pair.redis?.disconnect();
    pair.replicaClient?.disconnect();
    await pair.replica?.stop();
    await pair.master?.stop();
  });

  for (const proof of PROOFS) {
    describe(`${proofName(proof)} helper's parts against a real ${server}`, () => {
      let command: string[];
      const spelling = SPELLING[proof.client];
      const run = (url: string, mode: string) => start(command, url, proof.env ?? {}, [mode]).done;

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

      test('replica-wait, no replica: a shortfall releases (the key gone) and says why; the callback keeps it; busy stays busy', async () => {
        await fx.redis.set('proof:busy', 'other', 'PX', 60_000);
        const before = await commandCalls(fx.redis, 'wait');
        const output = await run(fx.server.url, 'replica-shortfall');
        assert.match(output, /^shortfall timeout 0\/1 released$/m);
        const message = /^message (.*)$/m.exec(output)?.[1];
        assert.equal(
          message,
          `proof:lock was acknowledged by 0 of 1 replica within 50 ms (WAIT): released, not held. Check the replicas (INFO replication: connected_slaves, their lag), or pass ${spelling.onShortfall} to keep such locks`,
        );
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
        const [, reasons, fence, token] = /^kept (\S+) (\d+) (\S+)$/m.exec(output) ?? [];
        assert.equal(reasons, 'timeout', 'the callback got the shortfall once');
        assert.equal(fence, '1');
        assert.equal(await fx.redis.get('proof:kept'), token, 'kept');
        assert.match(output, /^busy timeout$/m, 'busy, the callback not called again');
        assert.equal(await fx.redis.get('proof:busy'), 'other');
        assert.equal((await commandCalls(fx.redis, 'wait')) - before, 3, 'one WAIT per acquire');
      });

      test('replica-wait, a real replica: the acquire is acknowledged, the replica has the lock and the fencing token', async () => {
        await pair.redis.flushall();
        assert.equal(await pair.redis.wait(1, 10_000), 1, 'the replica is connected and in sync');
        const output = await run(pair.master.url, 'replica-acked');
        const [, fence, token] = /^acked (\d+) (\S+)$/m.exec(output) ?? [];
        assert.equal(fence, '1');
        assert.equal(await pair.replicaClient.get('proof:lock'), token);
        assert.equal(await pair.replicaClient.get('proof:fence'), fence);
        assert.match(output, /^with-lock \S+$/m);
        assert.equal(await pair.redis.exists('proof:with'), 0, 'withLock released it');
      });

      test('replica-wait: bad values are refused, naming the value, before anything is sent', async () => {
        await fx.redis.config('RESETSTAT');
        const output = await run(fx.server.url, 'replica-bad');
        const { option, timeout } = spelling;
        const refused = output.trim().split('\n');
        assert.equal(refused.length, 7, output);
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
        const stats = await fx.redis.info('commandstats');
        assert.doesNotMatch(stats, /cmdstat_(evalsha|eval|wait|waitaof):/, 'nothing sent');
      });
    });
  }
}

// The helpers of the clients whose users run clusters (Valkey GLIDE for Node and Python, go-redis, Jedis,
// Lettuce, Spring Data Redis: HELPER_PROOFS' `cluster`), run as real programs against a real
// 3-master Redis 7.0 Cluster and Valkey 9 Cluster through each library's cluster client, with the
// lock and fence keys sharing a {hash tag}: 20 contending processes keep a non-atomic counter exact with never two holders,
// fencing tokens strictly increase, and where the helper waits for wake-ups (in a Cluster at least),
// a waiter is woken by the release (SSUBSCRIBE on the lock key's shard).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Cluster } from 'ioredis';
import { waitersKey } from '../pack/layout';
import { loadPack } from '../pack/pack';
import { PROGRAM_START_MS, sleep, waitFor } from './helpers';
import { SERVER_KINDS, startCluster, type RedisCluster, type ServerKind } from '../harness/redis';
import { HELPER_PROOFS, prepareOnce, proofName } from './proofs/helpers/proofs';
import { allDone, start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-cluster-'));
after(() => rmSync(work, { recursive: true, force: true }));

const LOCK = '{proof}:lock';
const KEYS = { PROOF_LOCK: LOCK, PROOF_FENCE: '{proof}:fence' };
const CONTENDERS = 20;

for (const server of SERVER_KINDS) describe(`${server} Cluster`, () => proofs(server));

function proofs(server: ServerKind): void {
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
  beforeEach(async () => {
    for (const node of cluster.masters) {
      const client = node.client();
      await client.flushall();
      client.disconnect();
    }
  });

  /** Clients subscribed to the lock key's wake-ups, on the node of its shard. */
  async function subscribers(): Promise<number> {
    let total = 0;
    for (const node of cluster.masters) {
      const client = node.client();
      const [, count] = (await client.call('PUBSUB', 'SHARDNUMSUB', LOCK)) as [string, number];
      client.disconnect();
      total += count;
    }
    return total;
  }

  for (const proof of HELPER_PROOFS.filter((candidate) => candidate.cluster)) {
    describe(`${proofName(proof)} helper on a ${server} Cluster`, () => {
      let command: string[];
      const run = (...args: string[]) => start(command, url, { ...proof.env, ...KEYS }, args);

      before(async () => {
        command = await prepareOnce(proof, work, pack);
      });

      // Fencing first: for a Java client, its first run writes the class-data archive the 20 then map.
      test('fencing tokens strictly increase across two contending processes', async () => {
        await allDone([run('fence', '30'), run('fence', '30')]);
        const tokens = (await redis.lrange('proof:tokens', 0, -1)).map(Number);
        assert.equal(tokens.length, 60);
        for (let i = 1; i < tokens.length; i++)
          assert.ok(tokens[i] > tokens[i - 1], `${tokens[i]} after ${tokens[i - 1]}`);
      });

      test(`${CONTENDERS} processes x 5 rounds around a non-atomic counter end exact, never two holders`, async () => {
        await allDone(Array.from({ length: CONTENDERS }, () => run('counter', '5')));
        assert.equal(await redis.get('proof:counter'), String(CONTENDERS * 5));
        assert.equal(await redis.exists(LOCK), 0, 'released');
      });

      // A helper that polls (no SSUBSCRIBE in its library) has no wake-up to prove.
      if (!proof.wakes && !proof.wakesInCluster) return;
      test("a waiter is woken by the release on the lock key's shard, long before its 30 s retry bound", async (t) => {
        // The helper with its wakeups part: its core alone polls.
        const woken = await prepareOnce(proof, work, pack, 'wakeups');
        await redis.set(LOCK, 'holder', 'PX', 60_000);
        const waiter = start(woken, url, { ...proof.env, ...KEYS }, ['woken', 'lock']);
        await waitFor('the waiter subscribed', async () => (await subscribers()) >= 1, PROGRAM_START_MS);
        if (proof.queues) {
          await waitFor(
            'the waiter in line',
            async () => (await redis.zcard(waitersKey(LOCK)!)) === 1,
            PROGRAM_START_MS,
          );
        }
        await sleep(500); // its try after subscribing is done: it sleeps until woken or 15-30 s
        const releasedAt = Date.now();
        const released = await redis.eval(pack.release.source, 2, LOCK, waitersKey(LOCK)!, 'holder');
        assert.equal(released, 1);
        const heldAt = Number(/^held (\d+)$/m.exec(await waiter.done)?.[1]);
        t.diagnostic(`held ${heldAt - releasedAt} ms after the release`);
        assert.ok(
          heldAt - releasedAt >= 0 && heldAt - releasedAt < 5000,
          `held ${heldAt - releasedAt} ms after the release`,
        );
      });
    });
  }
}

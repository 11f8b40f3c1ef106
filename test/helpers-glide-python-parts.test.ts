// The Valkey GLIDE for Python helper's parts, run as real programs (test/proofs/helpers/glide-python.py)
// on the pinned valkey-glide (test/proofs/glide/requirements.txt) against Redis 7.0 and Valkey 9:
// - fenced-writes: set_if_held writes only while the lease holds the lock, set_fenced refuses an
//   older fencing token than the data key's; a holder SIGSTOPped past its lease while another
//   takes the lock and writes has both its writes refused after SIGCONT (Kleppmann's pause).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, startRedis, type RedisServer } from '../harness/redis';
import { HELPER_PROOFS, prepareOnce } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';
import { waitFor } from './helpers';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-glide-python-parts-'));
after(() => rmSync(work, { recursive: true, force: true }));

const proof = HELPER_PROOFS.find((candidate) => candidate.client === 'glide-python')!;
const prepared = () => prepareOnce(proof, work, pack, 'all');

for (const server of SERVER_KINDS) {
  describe(server, () => {
    let master: RedisServer;
    let redis: Redis;
    let locks: LockScripts;

    before(async () => {
      master = await startRedis({ server, args: ['--repl-diskless-sync-delay', '0'] });
      redis = master.client();
      locks = new LockScripts(redis, pack);
    });
    beforeEach(async () => {
      await redis.flushall();
    });
    after(async () => {
      locks?.close();
      redis?.disconnect();
      await master?.stop();
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
  });
}

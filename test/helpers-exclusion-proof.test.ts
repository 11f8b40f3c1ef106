// The generated lock helper of every client this machine runs, as real programs (test/proofs/helpers/)
// against a throwaway Redis 7.0 and Valkey 9: mutual exclusion and fencing under contention. No
// assertion here bounds a delay, so the 20 processes per client (20 JVMs for the Java clients) run
// beside other files; test/helpers-proof.test.ts has the proofs that do (takeover, renewal, loss,
// the busy error), which run one timed file at a time.
//   counter  rounds around a non-atomic counter and an occupancy counter, SCRIPT FLUSH in each (NOSCRIPT path),
//            under a 30 s lease: no round waits for it to run out, and a holder that waits for a core
//            while 19 JVMs start must not lose it;
//   fence    fencing tokens pushed in lock order.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { useRedis } from './helpers';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { HELPER_PROOFS, prepareOnce, proofName } from './proofs/helpers/proofs';
import { allDone, start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-exclusion-'));
after(() => rmSync(work, { recursive: true, force: true }));

const CONTENDERS = 20;

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });

  for (const proof of HELPER_PROOFS) {
    describe(`${proofName(proof)} helper against a real ${server}`, () => {
      let command: string[];
      const run = (...args: string[]) => start(command, fx.server.url, proof.env ?? {}, args);

      before(async () => {
        command = await prepareOnce(proof, work, pack);
      });
      beforeEach(async () => {
        await fx.redis.flushall();
      });

      // Fencing first: for a Java client, its first run writes the class-data archive the 20 then map.
      test('fencing tokens strictly increase across two contending processes', async () => {
        await allDone([run('fence', '50'), run('fence', '50')]);
        const tokens = (await fx.redis.lrange('proof:tokens', 0, -1)).map(Number);
        assert.equal(tokens.length, 100);
        for (let i = 1; i < tokens.length; i++)
          assert.ok(tokens[i] > tokens[i - 1], `${tokens[i]} after ${tokens[i - 1]}`);
      });

      test(`${CONTENDERS} processes x 10 rounds around a non-atomic counter end exact, never two holders, SCRIPT FLUSH in every round`, async () => {
        await allDone(Array.from({ length: CONTENDERS }, () => run('counter', '10')));
        assert.equal(await fx.redis.get('proof:counter'), String(CONTENDERS * 10));
        assert.equal(await fx.redis.get('proof:occupancy'), '0');
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
      });
    });
  }
}

// Valkey GLIDE for Java's NOSCRIPT path, on a real Redis 7.0 and Valkey 9.1: GLIDE's invokeScript
// sends EVALSHA and, on NOSCRIPT, loads the script and sends EVALSHA again; a SCRIPT FLUSH between
// the two still gives NoScript, and the helper then sends the source once with EVAL. Another client
// flushing the script cache without pause makes that race happen within a few rounds.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { commandCalls, useRedis } from './helpers';
import { SERVER_KINDS } from '../harness/redis';
import { HELPER_PROOFS, prepareOnce } from './proofs/helpers/proofs';
import { allDone, start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-glide-java-'));
after(() => rmSync(work, { recursive: true, force: true }));
const proof = HELPER_PROOFS.find(({ client }) => client === 'glide-java')!;
const PROCESSES = 3;
const ROUNDS = 10;

for (const server of SERVER_KINDS) {
  describe(`glide-java helper against a real ${server}, its script cache flushed without pause`, () => {
    const fx = useRedis({ server });
    let command: string[];
    before(async () => {
      command = await prepareOnce(proof, work, pack);
    });

    test(`${PROCESSES} processes x ${ROUNDS} rounds stay exact: GLIDE reloads on NOSCRIPT, and EVAL runs when a flush beat the reload`, async (t) => {
      const flusher = fx.server.client();
      let flushing = true;
      const flushes = (async () => {
        while (flushing) await flusher.script('FLUSH');
      })();
      try {
        await allDone(
          Array.from({ length: PROCESSES }, () => start(command, fx.server.url, {}, ['counter', String(ROUNDS)])),
        );
      } finally {
        flushing = false;
        await flushes;
        flusher.disconnect();
      }
      assert.equal(await fx.redis.get('proof:counter'), String(PROCESSES * ROUNDS));
      assert.equal(await fx.redis.get('proof:occupancy'), '0');
      const [loads, evals] = [await commandCalls(fx.redis, 'script\\|load'), await commandCalls(fx.redis, 'eval')];
      t.diagnostic(`GLIDE reloaded ${loads} times; the helper sent EVAL ${evals} times`);
      assert.ok(loads > 0, "GLIDE's own reload ran");
      assert.ok(evals > 0, "the helper's EVAL ran after a NOSCRIPT that beat the reload");
    });
  });
}

// Runs the generated guarded-section and fenced snippets of every client that runs here as real
// programs against a throwaway Redis 7.0 and Valkey 9: two processes contend through the guarded
// section around a non-atomic counter, and the fenced snippet's tokens strictly increase. No
// assertion here bounds a delay (test/snippets-proof.test.ts has the renewal, which does).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { useRedis } from './helpers';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { loadPack } from '../pack/pack';
import { SNIPPET_PROOFS, snippetPrograms } from './proofs/snippets';

const work = mkdtempSync(join(tmpdir(), 'locksmith-snippet-exclusion-'));
after(() => rmSync(work, { recursive: true, force: true }));
const { program, runProgram } = snippetPrograms(work, loadPack());

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });

  beforeEach(async () => {
    await fx.redis.flushall();
  });

  for (const proof of SNIPPET_PROOFS) {
    describe(`${proof.client} snippets against a real ${server}`, () => {
      test('guard: two processes x 200 rounds around a non-atomic counter end exact', async () => {
        const path = program(proof, 'guard', 5000);
        await Promise.all([runProgram(proof, path, fx.server.url, 200), runProgram(proof, path, fx.server.url, 200)]);
        assert.equal(await fx.redis.get('proof:counter'), '400');
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
      });

      test('fenced: tokens strictly increase across two contending processes', async () => {
        const path = program(proof, 'fenced', 5000);
        await Promise.all([runProgram(proof, path, fx.server.url, 50), runProgram(proof, path, fx.server.url, 50)]);
        const tokens = (await fx.redis.lrange('proof:tokens', 0, -1)).map(Number);
        assert.equal(tokens.length, 100);
        for (let i = 1; i < tokens.length; i++)
          assert.ok(tokens[i] > tokens[i - 1], `token ${tokens[i]} after ${tokens[i - 1]}`);
      });
    });
  }
}

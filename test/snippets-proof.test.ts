// Runs the generated auto-extend snippet of every client that runs here as a real program against
// a throwaway Redis 7.0 and Valkey 9: it keeps its lock past 3x the TTL and stops renewing after
// release. Renewing a 1.5 s lease every 500 ms through 5 s is a bound on delays (1 s: a 900 ms
// lease was lost in two programs at once in a CI run, a stall of the machine), so this file is
// timed (one at a time);
// test/snippets-exclusion-proof.test.ts runs the guarded-section and fenced snippets under contention.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { serversSideBySide, useRedis } from './helpers';
import type { ServerKind } from '../harness/redis';
import { loadPack } from '../pack/pack';
import { SNIPPET_PROOFS, snippetPrograms } from './proofs/snippets';

const work = mkdtempSync(join(tmpdir(), 'locksmith-proof-'));
after(() => rmSync(work, { recursive: true, force: true }));
const { program, runProgram } = snippetPrograms(work, loadPack());

// The two servers side by side: one program per server at a time.
serversSideBySide(proofs);

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });

  beforeEach(async () => {
    await fx.redis.flushall();
  });

  for (const proof of SNIPPET_PROOFS) {
    describe(`${proof.client} snippets against a real ${server}`, () => {
      test('renew: the lock outlives 3x its TTL while the body runs, and renewal stops on release', async () => {
        await runProgram(proof, program(proof, 'renew', 1500), fx.server.url, 1);
        assert.equal(await fx.redis.get('proof:renewed'), '1');
        assert.equal(await fx.redis.exists('proof:lock'), 0);
      });
    });
  }
}

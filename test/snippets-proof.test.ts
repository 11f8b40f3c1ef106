// Runs the generated snippets as real programs against a throwaway Redis 7.0 and Valkey 9: two processes
// contend through the guarded-section snippet around a non-atomic counter; the auto-extend
// snippet keeps its lock past 3x the TTL and stops renewing after release; the fenced
// snippet's tokens strictly increase.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { findClient, renderCode } from '../snippets/render';
import type { PatternId } from '../snippets/patterns';
import { proof as glideGo } from './proofs/glide-go';
import { proof as glideJava } from './proofs/glide-java';
import { proof as glideNode } from './proofs/glide-node';
import { proof as glidePython } from './proofs/glide-python';
import { proof as goRedis } from './proofs/go-redis';
import { proof as ioredis } from './proofs/ioredis';
import { proof as jedis } from './proofs/jedis';
import { proof as lettuce } from './proofs/lettuce';
import { proof as nodeRedis } from './proofs/node-redis';
import { proof as phpredis } from './proofs/phpredis';
import type { Proof } from './proofs/proof';
import { proof as redigo } from './proofs/redigo';
import { proof as redisPy } from './proofs/redis-py';
import { proof as redisRs } from './proofs/redis-rs';
import { proof as redisRb } from './proofs/redis-rb';
import { proof as springDataRedis } from './proofs/spring-data-redis';
import { useRedis } from './helpers';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { loadPack } from '../pack/pack';

const pack = loadPack();

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'locksmith-proof-'));
after(() => rmSync(work, { recursive: true, force: true }));

const PROOFS: Proof[] = [
  glideGo,
  glideJava,
  glideNode,
  glidePython,
  goRedis,
  ioredis,
  jedis,
  lettuce,
  nodeRedis,
  phpredis,
  redigo,
  redisPy,
  redisRb,
  redisRs,
  springDataRedis,
];
for (const proof of PROOFS) proof.setup?.(work);

function program(proof: Proof, pattern: PatternId, ttl: number): string {
  const path = join(work, `${proof.client}-${pattern}-${proof.file}`);
  const { quote } = findClient(proof.client);
  const snippet = renderCode(proof.client, pattern, pack, {
    key: quote('proof:lock'),
    fence: quote('proof:fence'),
    ttl: String(ttl),
    body: proof.bodies[pattern],
  });
  writeFileSync(path, proof.program(snippet, pattern === 'renew' ? proof.afterRenew : ''));
  return path;
}

const built = new Map<string, Promise<string[]>>();

/** The command that runs the program at `path`: built once where the language needs a build. */
function runnable(proof: Proof, path: string): Promise<string[]> {
  let command = built.get(path);
  if (!command) {
    command = proof.build ? proof.build(path) : Promise.resolve([...(proof.command ?? []), path]);
    built.set(path, command);
  }
  return command;
}

async function runProgram(proof: Proof, path: string, url: string, rounds: number): Promise<void> {
  const [command, ...args] = await runnable(proof, path);
  try {
    await run(command, [...args, url, String(rounds)], {
      timeout: 60_000,
      env: { ...process.env, ...proof.env },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${proof.client} ${path} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });

  beforeEach(async () => {
    await fx.redis.flushall();
  });

  for (const proof of PROOFS) {
    describe(`${proof.client} snippets against a real ${server}`, () => {
      test('guard: two processes x 200 rounds around a non-atomic counter end exact', async () => {
        const path = program(proof, 'guard', 5000);
        await Promise.all([runProgram(proof, path, fx.server.url, 200), runProgram(proof, path, fx.server.url, 200)]);
        assert.equal(await fx.redis.get('proof:counter'), '400');
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
      });

      test('renew: the lock outlives 3x its TTL while the body runs, and renewal stops on release', async () => {
        await runProgram(proof, program(proof, 'renew', 300), fx.server.url, 1);
        assert.equal(await fx.redis.get('proof:renewed'), '1');
        assert.equal(await fx.redis.exists('proof:lock'), 0);
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

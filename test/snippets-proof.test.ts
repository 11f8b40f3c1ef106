// Runs the generated snippets as real programs against a throwaway Redis: two processes
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
import { findClient, renderCode } from '../shared/snippets/render';
import type { PatternId } from '../shared/snippets/patterns';
import { useRedis } from './helpers';

const run = promisify(execFile);
const fx = useRedis();
const work = mkdtempSync(join(tmpdir(), 'locksmith-proof-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** How to turn a snippet into a runnable program in one client's language. */
interface Proof {
  client: string;
  file: string;
  command: string[];
  /** The program: `snippet` runs `rounds` times (argv: url, rounds); `after` runs after each. */
  program(snippet: string, after: string): string;
  bodies: Record<PatternId, string>;
  /** Runs after the renew snippet released: re-plants the token without TTL and checks no renewal touches it. */
  afterRenew: string;
}

const indent = (text: string, prefix: string) => text.replace(/^(?=.)/gm, prefix);

const PROOFS: Proof[] = [
  {
    client: 'ioredis',
    file: 'proof.js',
    command: [process.execPath],
    program: (snippet, after) => `const Redis = require(${JSON.stringify(require.resolve('ioredis'))});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function main() {
  const [url, rounds] = process.argv.slice(2);
  const redis = new Redis(url);
  for (let round = 0; round < Number(rounds); round++) {
${indent(snippet, '    ')}
${indent(after, '    ')}
  }
  redis.disconnect();
}
main().catch((error) => { console.error(error); process.exit(1); });
`,
    bodies: {
      guard: `if ((await redis.incr('proof:occupancy')) !== 1) throw new Error('two holders at once');
const value = Number(await redis.get('proof:counter'));
await redis.set('proof:counter', value + 1);
await redis.decr('proof:occupancy');`,
      renew: `for (let i = 0; i < 10; i++) {
  await sleep(100);
  if ((await redis.get(lockKey)) !== lockToken) throw new Error('lease lost while renewing');
}
if (lockLost.aborted) throw new Error('renewal reported a loss');
await redis.incr('proof:renewed');`,
      fenced: `await redis.rpush('proof:tokens', String(fencingToken));`,
    },
    afterRenew: `await redis.set(lockKey, lockToken);
await sleep(3 * lockTtlMs);
if ((await redis.pttl(lockKey)) !== -1) throw new Error('still renewing after release');
await redis.del(lockKey);`,
  },
  {
    client: 'redis-py',
    file: 'proof.py',
    // Debian's python3-redis lives in the system interpreter, not in a pyenv or venv one.
    command: ['/usr/bin/python3'],
    program: (snippet, after) => `import sys, time
import redis

url, rounds = sys.argv[1], int(sys.argv[2])
redis_client = redis.Redis.from_url(url)
for _ in range(rounds):
${indent(snippet, '    ')}
${indent(after, '    ')}
`,
    bodies: {
      guard: `if redis_client.incr("proof:occupancy") != 1:
    raise RuntimeError("two holders at once")
value = int(redis_client.get("proof:counter") or 0)
redis_client.set("proof:counter", value + 1)
redis_client.decr("proof:occupancy")`,
      renew: `for _ in range(10):
    time.sleep(0.1)
    if redis_client.get(lock_key) != lock_token.encode():
        raise RuntimeError("lease lost while renewing")
if lock_lost.is_set():
    raise RuntimeError("renewal reported a loss")
redis_client.incr("proof:renewed")`,
      fenced: `redis_client.rpush("proof:tokens", fencing_token)`,
    },
    afterRenew: `redis_client.set(lock_key, lock_token)
time.sleep(3 * lock_ttl_ms / 1000)
if redis_client.pttl(lock_key) != -1:
    raise RuntimeError("still renewing after release")
redis_client.delete(lock_key)`,
  },
];

function program(proof: Proof, pattern: PatternId, ttl: number): string {
  const path = join(work, `${proof.client}-${pattern}-${proof.file}`);
  const { quote } = findClient(proof.client);
  const snippet = renderCode(proof.client, pattern, {
    key: quote('proof:lock'),
    fence: quote('proof:fence'),
    ttl: String(ttl),
    body: proof.bodies[pattern],
  });
  writeFileSync(path, proof.program(snippet, pattern === 'renew' ? proof.afterRenew : ''));
  return path;
}

async function runProgram(proof: Proof, path: string, rounds: number): Promise<void> {
  const [command, ...args] = proof.command;
  try {
    await run(command, [...args, path, fx.server.url, String(rounds)], { timeout: 60_000 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${proof.client} ${path} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

beforeEach(async () => {
  await fx.redis.flushall();
});

for (const proof of PROOFS) {
  describe(`${proof.client} snippets against a real Redis`, () => {
    test('guard: two processes x 200 rounds around a non-atomic counter end exact', async () => {
      const path = program(proof, 'guard', 5000);
      await Promise.all([runProgram(proof, path, 200), runProgram(proof, path, 200)]);
      assert.equal(await fx.redis.get('proof:counter'), '400');
      assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
    });

    test('renew: the lock outlives 3x its TTL while the body runs, and renewal stops on release', async () => {
      await runProgram(proof, program(proof, 'renew', 300), 1);
      assert.equal(await fx.redis.get('proof:renewed'), '1');
      assert.equal(await fx.redis.exists('proof:lock'), 0);
    });

    test('fenced: tokens strictly increase across two contending processes', async () => {
      const path = program(proof, 'fenced', 5000);
      await Promise.all([runProgram(proof, path, 50), runProgram(proof, path, 50)]);
      const tokens = (await fx.redis.lrange('proof:tokens', 0, -1)).map(Number);
      assert.equal(tokens.length, 100);
      for (let i = 1; i < tokens.length; i++) assert.ok(tokens[i] > tokens[i - 1], `token ${tokens[i]} after ${tokens[i - 1]}`);
    });
  });
}

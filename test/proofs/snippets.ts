// The snippet proofs' programs, shared by test/snippets-proof.test.ts (renewal, timed) and
// test/snippets-exclusion-proof.test.ts (the guarded section and fencing under contention).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findClient, renderCode } from '../../snippets/render';
import type { PatternId } from '../../snippets/patterns';
import { proof as glideGo } from './glide-go';
import { proof as glideJava } from './glide-java';
import { proof as glideNode } from './glide-node';
import { proof as glidePython } from './glide-python';
import { proof as goRedis } from './go-redis';
import { proof as ioredis } from './ioredis';
import { proof as jedis } from './jedis';
import { proof as lettuce } from './lettuce';
import { proof as nodeRedis } from './node-redis';
import { proof as phpredis } from './phpredis';
import type { Proof } from './proof';
import { proof as redigo } from './redigo';
import { proof as redisPy } from './redis-py';
import { proof as redisRs } from './redis-rs';
import { proof as redisRb } from './redis-rb';
import { proof as springDataRedis } from './spring-data-redis';
import type { Pack } from '../../pack/pack';

const run = promisify(execFile);
/** Every client whose snippets run here (StackExchange.Redis's are golden: no NuGet). */
export const SNIPPET_PROOFS: Proof[] = [
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

/**
 * The snippet programs of one test file, written into `work`: `program` renders a client's snippet
 * of a pattern into a program of its language (test/proofs/<client>.ts); `runProgram` runs it,
 * built once where the language needs a build, and fails with its output.
 */
export function snippetPrograms(work: string, pack: Pack) {
  for (const proof of SNIPPET_PROOFS) proof.setup?.(work);

  /** What each program file holds: the servers' tests run side by side, and a build may be reading it. */
  const written = new Map<string, string>();

  function program(proof: Proof, pattern: PatternId, ttl: number): string {
    const path = join(work, `${proof.client}-${pattern}-${proof.file}`);
    const { quote } = findClient(proof.client);
    const snippet = renderCode(proof.client, pattern, pack, {
      key: quote('proof:lock'),
      fence: quote('proof:fence'),
      ttl: String(ttl),
      body: proof.bodies[pattern],
    });
    const text = proof.program(snippet, pattern === 'renew' ? proof.afterRenew : '');
    if (written.get(path) === text) return path;
    if (written.has(path)) throw new Error(`${path} was written with other text: give the program another name`);
    writeFileSync(path, text);
    written.set(path, text);
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

  return { program, runProgram };
}

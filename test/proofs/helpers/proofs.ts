// How each runnable client's helper proof is set up: the helper written where its program
// imports it from, the program next to it, built where the language needs a build.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pack } from '../../../pack/pack';
import { renderHelper, type HelperOptions } from '../../../snippets/helper';

export interface HelperProof {
  client: string;
  /** Writes the helper and the program into `dir`; returns the command that runs the program (URL and mode follow). */
  prepare(dir: string, pack: Pack): Promise<string[]>;
  env?: Record<string, string>;
}

/** Writes the client's helper into `dir` under its conventional name and copies the proof program beside it. */
export function writeProof(
  dir: string,
  client: string,
  program: string,
  pack: Pack,
  options: HelperOptions = {},
): string {
  mkdirSync(dir, { recursive: true });
  const helper = renderHelper(client, pack, options);
  writeFileSync(join(dir, helper.fileName), helper.text);
  const target = join(dir, program.replace(/^[^.]*/, 'proof'));
  copyFileSync(join(__dirname, program), target);
  return target;
}

const node = (client: string, program: string, options: HelperOptions): HelperProof => ({
  client,
  prepare: (dir, pack) => Promise.resolve([process.execPath, writeProof(dir, client, program, pack, options)]),
  env: { IOREDIS_PATH: require.resolve('ioredis'), NODE_REDIS_PATH: require.resolve('redis') },
});

/** A program run by the system interpreter (Debian's client packages belong to it, not to pyenv or rbenv). */
const interpreted = (client: string, program: string, interpreter: string): HelperProof => ({
  client,
  prepare: (dir, pack) => Promise.resolve([interpreter, writeProof(dir, client, program, pack)]),
});

export const HELPER_PROOFS: HelperProof[] = [
  node('ioredis', 'ioredis.js', { flavor: 'cjs' }),
  node('node-redis', 'node-redis.js', { flavor: 'cjs' }),
  interpreted('redis-py', 'redis-py.py', '/usr/bin/python3'),
  interpreted('phpredis', 'phpredis.php', '/usr/bin/php'),
  interpreted('redis-rb', 'redis-rb.rb', '/usr/bin/ruby'),
];

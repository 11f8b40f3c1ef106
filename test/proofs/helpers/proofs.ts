// How each runnable client's helper proof is set up: the helper written where its program
// imports it from (its core alone, or with every lock kind it can carry), the program next to it,
// built where the language needs a build.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Pack } from '../../../pack/pack';
import { helperKinds, renderHelper, type HelperOptions } from '../../../snippets/helper';
import { onPath } from '../../golden-support';

export interface HelperProof {
  client: string;
  /**
   * Writes the helper (with `kinds`: every lock kind it can carry; else its core alone) and the
   * program into `dir`; returns the command that runs the program (URL and mode follow).
   */
  prepare(dir: string, pack: Pack, kinds?: 'all'): Promise<string[]>;
  env?: Record<string, string>;
  /** Its helper waits for wake-ups (SSUBSCRIBE) rather than polling with back-off. */
  wakes: boolean;
  /** Its helper can carry the reentrant, read-write and semaphore locks (the program has their modes). */
  kinds: boolean;
}

/** Writes the client's helper into `dir` under its conventional name and copies the proof program beside it. */
export function writeProof(
  dir: string,
  client: string,
  program: string,
  pack: Pack,
  options: HelperOptions = {},
  kinds?: 'all',
): string {
  mkdirSync(dir, { recursive: true });
  const all = kinds === 'all' ? helperKinds(client).join(',') : '';
  const helper = renderHelper(client, pack, { ...options, ...(all && { kinds: all }) });
  writeFileSync(join(dir, helper.fileName), helper.text);
  const target = join(dir, program.replace(/^[^.]*/, 'proof'));
  copyFileSync(join(__dirname, program), target);
  return target;
}

const node = (client: string, program: string, options: HelperOptions): HelperProof => ({
  client,
  prepare(dir, pack, kinds) {
    const target = writeProof(dir, client, program, pack, options, kinds);
    copyFileSync(join(__dirname, 'kinds.js'), join(dir, 'kinds.js'));
    return Promise.resolve([process.execPath, target]);
  },
  env: { IOREDIS_PATH: require.resolve('ioredis'), NODE_REDIS_PATH: require.resolve('redis') },
  wakes: true,
  kinds: true,
});

/** A program run by the system interpreter (Debian's client packages belong to it, not to pyenv or rbenv). */
const interpreted = (
  client: string,
  program: string,
  interpreter: string,
  capabilities: Pick<HelperProof, 'wakes' | 'kinds'>,
): HelperProof => ({
  client,
  prepare: (dir, pack, kinds) => Promise.resolve([interpreter, writeProof(dir, client, program, pack, {}, kinds)]),
  ...capabilities,
});

/**
 * Builds package `pkg` of GOPATH `gopath` into `output`, offline against Debian's
 * golang-github-gomodule-redigo-dev in GOPATH mode: `gopath` holds the program and the helper
 * package, /usr/share/gocode the library; the build cache is throwaway (GOPATH is read-only; HOME's
 * cache may be too, or missing).
 */
export async function buildGoOffline(gopath: string, pkg: string, output: string): Promise<void> {
  const goCache = mkdtempSync(join(tmpdir(), 'locksmith-gocache-'));
  try {
    await promisify(execFile)(onPath('go') ?? 'go', ['build', '-o', output, pkg], {
      env: {
        ...process.env,
        GOPATH: `${gopath}:/usr/share/gocode`,
        GO111MODULE: 'off',
        GOPROXY: 'off',
        GOFLAGS: '',
        GOCACHE: goCache,
      },
      timeout: 300_000,
    });
  } finally {
    rmSync(goCache, { recursive: true, force: true });
  }
}

const redigo: HelperProof = {
  client: 'redigo',
  async prepare(dir, pack, kinds) {
    const source = join(dir, 'src', 'locksmithproof');
    writeProof(join(source, 'locksmith'), 'redigo', 'redigo.go', pack, {}, kinds);
    copyFileSync(join(__dirname, 'redigo.go'), join(source, 'main.go'));
    if (kinds === 'all') copyFileSync(join(__dirname, 'redigo-kinds.go'), join(source, 'kinds.go'));
    rmSync(join(source, 'locksmith', 'proof.go'));
    await buildGoOffline(dir, 'locksmithproof', join(dir, 'proof'));
    return [join(dir, 'proof')];
  },
  wakes: true,
  kinds: true,
};

export const HELPER_PROOFS: HelperProof[] = [
  node('ioredis', 'ioredis.js', { flavor: 'cjs' }),
  node('node-redis', 'node-redis.js', { flavor: 'cjs' }),
  interpreted('redis-py', 'redis-py.py', '/usr/bin/python3', { wakes: true, kinds: true }),
  // Debian's phpredis 5.3.7, Predis 1.1.10 and redis-rb 4.8.0 have no SSUBSCRIBE: their helpers poll.
  interpreted('phpredis', 'phpredis.php', '/usr/bin/php', { wakes: false, kinds: true }),
  // Predis is packaged too (php-predis): its helper runs as well, beyond the six.
  interpreted('predis', 'predis.php', '/usr/bin/php', { wakes: false, kinds: false }),
  interpreted('redis-rb', 'redis-rb.rb', '/usr/bin/ruby', { wakes: false, kinds: true }),
  redigo,
];

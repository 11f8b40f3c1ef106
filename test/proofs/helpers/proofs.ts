// How each runnable client's helper proof is set up: the helper written where its program
// imports it from, the program next to it, built where the language needs a build.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Pack } from '../../../pack/pack';
import { renderHelper, type HelperOptions } from '../../../snippets/helper';
import { onPath } from '../../golden-support';
import { go, javac, JVM_FLAGS, writeGoModule } from '../../harness/toolchains';

export interface HelperProof {
  client: string;
  /** Writes the helper and the program into `dir`; returns the command that runs the program (URL and mode follow). */
  prepare(dir: string, pack: Pack): Promise<string[]>;
  env?: Record<string, string>;
  /** Its helper waits for wake-ups (SSUBSCRIBE) rather than polling with back-off. */
  wakes: boolean;
  /** Its helper has the reentrant, read-write and semaphore locks (the program has their modes). */
  kinds: boolean;
  /** Its program takes a cluster://host:port,... URL and the keys from PROOF_LOCK and PROOF_FENCE. */
  cluster?: boolean;
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
  prepare(dir, pack) {
    const target = writeProof(dir, client, program, pack, options);
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
  prepare: (dir, pack) => Promise.resolve([interpreter, writeProof(dir, client, program, pack)]),
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

/**
 * A Go client's helper proof: the helper as package locksmithproof/locksmith of the proofs' Go
 * module (test/proofs/go: go.mod and go.sum pin the libraries), the program as its main package,
 * built once with the module cache under ~/.cache/redis-locksmith/.
 */
const goModule = (client: string, capabilities: Pick<HelperProof, 'wakes' | 'kinds' | 'cluster'>): HelperProof => ({
  client,
  async prepare(dir, pack) {
    writeGoModule(dir);
    writeProof(join(dir, 'locksmith'), client, `${client}.go`, pack);
    renameSync(join(dir, 'locksmith', 'proof.go'), join(dir, 'main.go'));
    await go(['build', '-o', join(dir, 'proof'), '.'], dir);
    return [join(dir, 'proof')];
  },
  ...capabilities,
});

/** A Java client's helper proof: Locksmith.java and Proof.java compiled against the pinned jars (test/proofs/java/pom.xml). */
const jvm = (client: string, capabilities: Pick<HelperProof, 'wakes' | 'kinds' | 'cluster'>): HelperProof => ({
  client,
  async prepare(dir, pack) {
    mkdirSync(dir, { recursive: true });
    const helper = renderHelper(client, pack);
    writeFileSync(join(dir, helper.fileName), helper.text);
    copyFileSync(join(__dirname, `${client}.java`), join(dir, 'Proof.java'));
    const classpath = await javac(dir, [helper.fileName, 'Proof.java']);
    return ['java', ...JVM_FLAGS, '-cp', classpath, 'Proof'];
  },
  ...capabilities,
});

export const HELPER_PROOFS: HelperProof[] = [
  node('ioredis', 'ioredis.js', { flavor: 'cjs' }),
  node('node-redis', 'node-redis.js', { flavor: 'cjs' }),
  interpreted('redis-py', 'redis-py.py', '/usr/bin/python3', { wakes: true, kinds: true }),
  // Debian's phpredis 5.3.7, Predis 1.1.10 and redis-rb 4.8.0 have no SSUBSCRIBE: their helpers poll.
  interpreted('phpredis', 'phpredis.php', '/usr/bin/php', { wakes: false, kinds: true }),
  // Predis is packaged too (php-predis): its helper runs as well, beyond the six.
  interpreted('predis', 'predis.php', '/usr/bin/php', { wakes: false, kinds: false }),
  interpreted('redis-rb', 'redis-rb.rb', '/usr/bin/ruby', { wakes: false, kinds: true }),
  goModule('redigo', { wakes: true, kinds: true }),
  goModule('go-redis', { wakes: true, kinds: false, cluster: true }),
  jvm('jedis', { wakes: true, kinds: false, cluster: true }),
];

const prepared = new Map<string, Promise<string[]>>();

/** The client's program, prepared (written and built) once per test file under `work`, however many servers it runs on. */
export function prepareOnce(proof: HelperProof, work: string, pack: Pack): Promise<string[]> {
  let command = prepared.get(proof.client);
  if (!command) {
    command = proof.prepare(join(work, proof.client), pack);
    prepared.set(proof.client, command);
  }
  return command;
}

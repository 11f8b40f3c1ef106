// How each runnable client's helper proof is set up: the helper written where its program
// imports it from (its core alone, or with every lock kind it can carry), the program next to it,
// built where the language needs a build.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pack } from '../../../pack/pack';
import { helperKinds, renderHelper, type HelperOptions } from '../../../snippets/helper';
import {
  cargo,
  glideJavaClasspath,
  go,
  javac,
  javaCommand,
  npmPackages,
  pypiPython,
  writeCargoPackage,
  writeGoModule,
} from '../../../harness/toolchains';

/** The parts a proof's helper carries beyond its core: every one it can, or its wakeups part. */
export type ProofParts = 'all' | 'wakeups';

/** The helper's `kinds` option for `parts` (none for its core alone, or when it has no wakeups part). */
export function partsOption(client: string, parts: ProofParts | undefined): HelperOptions {
  const carried = helperKinds(client).filter((kind) => parts === 'all' || (parts === 'wakeups' && kind === 'wakeups'));
  return carried.length ? { kinds: carried.join(',') } : {};
}

export interface HelperProof {
  client: string;
  /** What the tests call it when the client runs with another library build than Debian's (default: the client). */
  label?: string;
  /**
   * Writes the helper (with `kinds` 'all': every part it can carry; 'wakeups': its wakeups part
   * where it has one; else its core alone) and the program into `dir`; returns the command that
   * runs the program (URL and mode follow).
   */
  prepare(dir: string, pack: Pack, kinds?: ProofParts): Promise<string[]>;
  env?: Record<string, string>;
  /** Its helper with its wakeups part waits for wake-ups (SSUBSCRIBE) rather than polling. */
  wakes: boolean;
  /**
   * Its waiters, with its wakeups part, queue (acquire_queued): first come, first served, and a
   * waiter sleeps no longer than the holder's lease has left, so it takes a dead holder's lock as the lease ends.
   */
  queues: boolean;
  /** Its helper can carry the reentrant, read-write and semaphore locks (the program has their modes). */
  kinds: boolean;
  /** Its program takes a cluster://host:port,... URL and the keys from PROOF_LOCK and PROOF_FENCE. */
  cluster?: boolean;
  /** Its helper waits for wake-ups in a Cluster only (its library has sharded pub/sub in cluster mode alone). */
  wakesInCluster?: boolean;
}

/** Writes the client's helper into `dir` under its conventional name and copies the proof program beside it. */
export function writeProof(
  dir: string,
  client: string,
  program: string,
  pack: Pack,
  options: HelperOptions = {},
  kinds?: ProofParts,
): string {
  mkdirSync(dir, { recursive: true });
  const helper = renderHelper(client, pack, { ...options, ...partsOption(client, kinds) });
  writeFileSync(join(dir, helper.fileName), helper.text);
  const target = join(dir, program.replace(/^[^.]*/, 'proof'));
  copyFileSync(join(__dirname, program), target);
  return target;
}

const node = (client: string, program: string, options: HelperOptions): HelperProof => ({
  client,
  prepare(dir, pack, kinds) {
    const target = writeProof(dir, client, program, pack, options, kinds);
    for (const shared of ['kinds.js', 'parts.js']) copyFileSync(join(__dirname, shared), join(dir, shared));
    return Promise.resolve([process.execPath, target]);
  },
  env: { IOREDIS_PATH: require.resolve('ioredis'), NODE_REDIS_PATH: require.resolve('redis') },
  wakes: true,
  queues: true,
  kinds: true,
});

/**
 * Valkey GLIDE for Node's helper proof: GLIDE pinned in test/proofs/glide (installed under the
 * cache), linked as the program's node_modules, where a user's project has it. With the wakeups
 * part its waiters wake (SSUBSCRIBE) on a GlideClusterClient given to enableWakeups; on a
 * GlideClient, which has no sharded pub/sub, they poll in line (acquire_queued); the core's poll.
 */
const glideNode: HelperProof = {
  client: 'glide-node',
  label: 'glide-node (@valkey/valkey-glide 2.5.2)',
  async prepare(dir, pack, kinds) {
    const target = writeProof(dir, 'glide-node', 'glide-node.js', pack, { flavor: 'cjs' }, kinds);
    for (const shared of ['kinds.js', 'parts.js']) copyFileSync(join(__dirname, shared), join(dir, shared));
    symlinkSync(await npmPackages('glide'), join(dir, 'node_modules'));
    return [process.execPath, target];
  },
  wakes: false,
  queues: true,
  kinds: true,
  cluster: true,
  wakesInCluster: true,
};

/**
 * Valkey GLIDE for Java's helper proof: Locksmith.java and Proof.java compiled against the pinned
 * GLIDE jar (test/proofs/glide/pom.xml), one JVM per process. Its waiters poll on a GlideClient
 * (GLIDE has sharded pub/sub in cluster mode only) and, with the wakeups part, wake by SSUBSCRIBE
 * on a GlideClusterClient given Options.wakeups (a subscriber client per wait: 2.1 fixes
 * subscriptions at creation).
 */
const glideJava: HelperProof = {
  client: 'glide-java',
  label: 'glide-java (io.valkey:valkey-glide 2.1.0)',
  async prepare(dir, pack, kinds) {
    mkdirSync(dir, { recursive: true });
    const helper = renderHelper('glide-java', pack, partsOption('glide-java', kinds));
    writeFileSync(join(dir, helper.fileName), helper.text);
    copyFileSync(join(__dirname, 'glide-java.java'), join(dir, 'Proof.java'));
    // With every part, the JVM family's parts' modes (jvm-parts.java, and multi's jvm-multi.java) as the jvm proofs.
    const modes = { 'Parts.java': 'jvm-parts.java', 'Multi.java': 'jvm-multi.java' };
    const parts = kinds === 'all' ? Object.keys(modes) : [];
    for (const [as, file] of Object.entries(modes))
      if (kinds === 'all') copyFileSync(join(__dirname, file), join(dir, as));
    const classpath = await javac(dir, [helper.fileName, 'Proof.java', ...parts], [], await glideJavaClasspath());
    return javaCommand(classpath, 'Proof');
  },
  wakes: false,
  queues: false,
  kinds: false,
  cluster: true,
  wakesInCluster: true,
};

/**
 * A program run by the system interpreter (Debian's client packages belong to it, not to pyenv or
 * rbenv); `shared`: files of this folder it requires, copied next to it.
 */
const interpreted = (
  client: string,
  program: string,
  interpreter: string,
  capabilities: Pick<HelperProof, 'wakes' | 'queues' | 'kinds'>,
  shared: string[] = [],
): HelperProof => ({
  client,
  prepare(dir, pack, kinds) {
    const target = writeProof(dir, client, program, pack, {}, kinds);
    for (const file of shared) copyFileSync(join(__dirname, file), join(dir, file));
    return Promise.resolve([interpreter, target]);
  },
  ...capabilities,
});

/**
 * Builds the main package in `dir` (its imports of module path `module` are folders of `dir`) into
 * `output`, as a module that requires the pinned Go libraries (test/proofs/go).
 */
export async function buildGoProgram(dir: string, module: string, output: string): Promise<void> {
  writeGoModule(dir, module);
  await go(['build', '-o', output, '.'], dir);
}

/**
 * A Go client's helper proof: the helper as package locksmithproof/locksmith of the proofs' Go
 * module (test/proofs/go: go.mod and go.sum pin the libraries), the program as its main package,
 * built once with the module cache under ~/.cache/redis-locksmith/.
 */
const goModule = (
  client: string,
  capabilities: Pick<HelperProof, 'wakes' | 'queues' | 'kinds' | 'cluster'>,
): HelperProof => ({
  client,
  async prepare(dir, pack, kinds) {
    writeProof(join(dir, 'locksmith'), client, `${client}.go`, pack, {}, kinds);
    renameSync(join(dir, 'locksmith', 'proof.go'), join(dir, 'main.go'));
    // With every part: the modes of the lock kinds and features, the family's and the client's own,
    // and the multi-key lock's where the helper has it.
    const modes = {
      'go-parts.go': 'parts.go',
      [`${client}-parts.go`]: 'client-parts.go',
      ...(capabilities.kinds && { 'go-kinds.go': 'kinds.go' }),
      ...(helperKinds(client).includes('multi') && { 'go-multi.go': 'multi.go' }),
    };
    for (const [file, as] of Object.entries(modes)) {
      if (kinds === 'all' && existsSync(join(__dirname, file))) copyFileSync(join(__dirname, file), join(dir, as));
    }
    // With its wakeups part, what only that part has (GLIDE for Go's EnableWakeups) is set up by the client's file.
    const wakeups = join(__dirname, `${client}-wakeups.go`);
    if (partsOption(client, kinds).kinds?.includes('wakeups') && existsSync(wakeups))
      copyFileSync(wakeups, join(dir, 'wakeups.go'));
    await buildGoProgram(dir, 'locksmithproof', join(dir, 'proof'));
    return [join(dir, 'proof')];
  },
  ...capabilities,
});

/**
 * A Java client's helper proof: Locksmith.java and Proof.java compiled against the pinned jars
 * (test/proofs/java/pom.xml); with every part, Parts.java (the parts' modes) and, for a helper with
 * the lock kinds, Kinds.java (theirs), and with multi, Multi.java (its modes) beside them.
 */
const jvm = (
  client: string,
  capabilities: Pick<HelperProof, 'wakes' | 'queues' | 'kinds' | 'cluster'>,
): HelperProof => ({
  client,
  async prepare(dir, pack, kinds) {
    mkdirSync(dir, { recursive: true });
    const helper = renderHelper(client, pack, partsOption(client, kinds));
    writeFileSync(join(dir, helper.fileName), helper.text);
    copyFileSync(join(__dirname, `${client}.java`), join(dir, 'Proof.java'));
    // With every part: the parts' modes, and the lock kinds' where the helper has them.
    const modes = {
      'Parts.java': 'jvm-parts.java',
      ...(capabilities.kinds && { 'Kinds.java': 'jvm-kinds.java' }),
      ...(helperKinds(client).includes('multi') && { 'Multi.java': 'jvm-multi.java' }),
    };
    const parts = kinds === 'all' ? Object.keys(modes) : [];
    for (const [as, file] of Object.entries(modes))
      if (kinds === 'all') copyFileSync(join(__dirname, file), join(dir, as));
    const classpath = await javac(dir, [helper.fileName, 'Proof.java', ...parts]);
    return javaCommand(classpath, 'Proof');
  },
  ...capabilities,
});

/**
 * redis-rs's helper proof: src/locksmith.rs and src/main.rs of a package with the pinned Cargo.toml
 * and Cargo.lock; with every part, the program of their modes (redis-rs-kinds.rs).
 */
const redisRs: HelperProof = {
  client: 'redis-rs',
  async prepare(dir, pack, kinds) {
    const helper = renderHelper('redis-rs', pack, partsOption('redis-rs', kinds));
    const program = kinds === 'all' ? 'redis-rs-kinds.rs' : 'redis-rs.rs';
    writeCargoPackage(dir, {
      [helper.fileName]: helper.text,
      'main.rs': readFileSync(join(__dirname, program), 'utf8'),
      // With every part the helper is the package's library, so an unused item in it is a warning, denied.
      ...(kinds === 'all' && { 'lib.rs': '#![deny(warnings)]\npub mod locksmith;\n' }),
    });
    return [await cargo(dir, 'build')];
  },
  // redis-rs 1.8's synchronous PubSub has no SSUBSCRIBE (only its async connections do): the
  // helper sends it raw on a RESP3 connection of its own (LockOptions::wake_with) and reads the pushes.
  wakes: true,
  queues: true,
  kinds: true,
};

/** The redis-py helper on the newest redis-py from PyPI (test/proofs/python/requirements.txt), beside Debian's. */
const redisPyFromPypi: HelperProof = {
  client: 'redis-py',
  label: 'redis-py 8.1.0 (PyPI)',
  prepare: async (dir, pack, kinds) => [
    await pypiPython(),
    writeProof(dir, 'redis-py', 'redis-py.py', pack, {}, kinds),
  ],
  wakes: true,
  queues: true,
  kinds: true,
};

/**
 * Valkey GLIDE for Python's helper proof: GLIDE pinned in test/proofs/glide/requirements.txt, in a
 * virtual environment under the cache. Its waiters wake (SSUBSCRIBE) on a GlideClusterClient given
 * to enable_wakeups; on a GlideClient, which has no sharded pub/sub, they poll, in line
 * (acquire_queued) and no later than the holder's lease ends.
 */
const glidePython: HelperProof = {
  client: 'glide-python',
  label: 'glide-python (valkey-glide 2.5.3)',
  prepare: async (dir, pack, kinds) => [
    await pypiPython('glide/requirements.txt'),
    writeProof(dir, 'glide-python', 'glide-python.py', pack, {}, kinds),
  ],
  wakes: false,
  queues: true,
  kinds: true,
  cluster: true,
  wakesInCluster: true,
};

export const HELPER_PROOFS: HelperProof[] = [
  node('ioredis', 'ioredis.js', { flavor: 'cjs' }),
  node('node-redis', 'node-redis.js', { flavor: 'cjs' }),
  glideNode,
  glideJava,
  interpreted('redis-py', 'redis-py.py', '/usr/bin/python3', { wakes: true, queues: true, kinds: true }),
  redisPyFromPypi,
  glidePython,
  // Debian's phpredis 5.3.7, Predis 1.1.10 and redis-rb 4.8.0 have no SSUBSCRIBE: their helpers poll, lease-aware.
  interpreted('phpredis', 'phpredis.php', '/usr/bin/php', { wakes: false, queues: false, kinds: true }, [
    'php-parts.php',
  ]),
  // Predis is packaged too (php-predis): its helper runs as well, beyond the six.
  interpreted('predis', 'predis.php', '/usr/bin/php', { wakes: false, queues: false, kinds: false }, ['php-parts.php']),
  interpreted('redis-rb', 'redis-rb.rb', '/usr/bin/ruby', { wakes: false, queues: false, kinds: true }),
  goModule('redigo', { wakes: true, queues: true, kinds: true }),
  goModule('go-redis', { wakes: true, queues: true, kinds: true, cluster: true }),
  // GLIDE for Go 2.5.3 (test/proofs/go): sharded pub/sub in cluster mode only, so waiters poll in
  // line on a *glide.Client and wake by SSUBSCRIBE on a *glide.ClusterClient given to EnableWakeups.
  {
    ...goModule('glide-go', { wakes: false, queues: true, kinds: false, cluster: true }),
    label: 'glide-go (valkey-glide/go/v2 2.5.3)',
    wakesInCluster: true,
  },
  jvm('jedis', { wakes: true, queues: false, kinds: true, cluster: true }),
  jvm('lettuce', { wakes: true, queues: false, kinds: true, cluster: true }),
  // Spring Data Redis 4.1 has no sharded pub/sub (SSUBSCRIBE): its helper polls.
  jvm('spring-data-redis', { wakes: false, queues: false, kinds: false, cluster: true }),
  redisRs,
];

const prepared = new Map<string, Promise<string[]>>();

/** The client's program, prepared (written and built) once per test file under `work`, however many servers it runs on. */
export function prepareOnce(proof: HelperProof, work: string, pack: Pack, kinds?: ProofParts): Promise<string[]> {
  const name = `${proofName(proof)}${kinds ? ` ${kinds}` : ''}`;
  let command = prepared.get(name);
  if (!command) {
    command = proof.prepare(join(work, name.replace(/\W+/g, '-')), pack, kinds);
    prepared.set(name, command);
  }
  return command;
}

/** The proof's name in test titles: its label, or its client. */
export const proofName = (proof: HelperProof) => proof.label ?? proof.client;

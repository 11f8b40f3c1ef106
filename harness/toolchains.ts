// The real client libraries that the proofs and compile checks run against, pinned by the project
// files in test/proofs/ (go/go.mod + go.sum, java/pom.xml, rust/Cargo.toml + Cargo.lock,
// python/requirements.txt; glide/ for Valkey GLIDE's npm, PyPI and Maven packages) and fetched
// once per machine by each language's own tool into ~/.cache/redis-locksmith/ (the registries are
// the machine's own configuration). Test files run in parallel: a lock folder per download keeps
// it to one writer (see cacheLock.ts).
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { readFileSafely, takeCacheLock, withCacheLock } from './cacheLock';
import { valkeyCacheRoot } from './valkey';

const run = promisify(execFile);

/** test/proofs: where the pinned project files live. */
export const PINNED = join(__dirname, '..', 'test', 'proofs');
const FETCH_STALE_MS = 15 * 60_000;

function progress(tool: string, message: string): void {
  process.stderr.write(`[${tool}] ${message}\n`);
}

/** Runs a tool; fails with its output and what to check. */
export async function tool(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
      ...options,
    });
    return stdout;
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (code === 'ENOENT' && options.cwd && !existsSync(options.cwd)) throw new Error(`${options.cwd} does not exist`);
    if (code === 'ENOENT') throw new Error(`${command} is not on PATH: run \`bash .ci/run\` once (it installs it)`);
    throw new Error(
      `${command} ${args.join(' ')} failed in ${options.cwd ?? process.cwd()}:\n${stdout ?? ''}${stderr ?? ''}`,
    );
  }
}

/** A digest of the pinned files: a cache entry is for exactly these versions. */
function digestOf(...files: string[]): string {
  return digestOfText(...files.map((file) => readFileSync(file, 'utf8')));
}

function digestOfText(...texts: string[]): string {
  const hash = createHash('sha256');
  for (const text of texts) hash.update(text);
  return hash.digest('hex').slice(0, 12);
}

// ---------------------------------------------------------------------------------------------
// Go: modules (go-redis v9, redigo) in a module cache of our own. Go's module and build caches
// are safe for concurrent use, so no lock: `go build` downloads what go.sum names when missing.

/** What `go` runs with: module mode, our caches, the Go on PATH (no toolchain download). */
export function goEnv(): Record<string, string> {
  const root = join(valkeyCacheRoot(), 'go');
  return {
    GO111MODULE: 'on',
    GOMODCACHE: join(root, 'mod'),
    GOCACHE: join(root, 'build'),
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=readonly',
  };
}

/** Makes `dir` the root of a Go module (path `module`) that requires the pinned libraries: its go.mod and go.sum. */
export function writeGoModule(dir: string, module = 'locksmithproof'): void {
  mkdirSync(dir, { recursive: true });
  const goMod = readFileSync(join(PINNED, 'go', 'go.mod'), 'utf8');
  writeFileSync(join(dir, 'go.mod'), goMod.replace(/^module .*$/m, `module ${module}`));
  copyFileSync(join(PINNED, 'go', 'go.sum'), join(dir, 'go.sum'));
}

/** `go <args>` in `dir` (a module written by writeGoModule). */
export function go(args: string[], dir: string): Promise<string> {
  return tool('go', args, { cwd: dir, env: { ...process.env, ...goEnv() } });
}

// ---------------------------------------------------------------------------------------------
// Java: Jedis, Lettuce and Spring Data Redis resolved by Maven into a local repository of our own;
// the resolved classpath is written next to it, once per pom.xml.

const classpaths = new Map<string, Promise<string>>();

/**
 * The classpath (jars joined by ':') of a pinned pom's dependencies (`pom` relative to
 * test/proofs, `properties` as -D flags), resolved on first use.
 */
export function javaClasspath(pom = 'java/pom.xml', properties: string[] = []): Promise<string> {
  const key = [pom, ...properties].join(' ');
  let classpath = classpaths.get(key);
  if (!classpath) {
    classpath = resolveClasspath(join(PINNED, pom), properties).catch((error: unknown) => {
      classpaths.delete(key);
      throw error;
    });
    classpaths.set(key, classpath);
  }
  return classpath;
}

async function resolveClasspath(pom: string, properties: string[]): Promise<string> {
  const root = join(valkeyCacheRoot(), 'maven');
  const listing = join(
    root,
    `classpath-${digestOf(pom)}${properties.length ? `-${digestOfText(properties.join(' '))}` : ''}.txt`,
  );
  const complete = () => {
    const jars = readFileSafely(listing);
    return jars !== '' && jars.split(':').every((jar) => existsSync(jar));
  };
  if (!complete()) {
    const release = await takeCacheLock(root, 'resolve', complete, FETCH_STALE_MS);
    try {
      if (!complete()) {
        const started = Date.now();
        progress('maven', `resolving ${pom} into ${root} (first run only)`);
        const partial = `${listing}.partial-${process.pid}`;
        await tool('mvn', [
          '-q',
          '-B',
          '-f',
          pom,
          `-Dmaven.repo.local=${join(root, 'repository')}`,
          ...properties.map((property) => `-D${property}`),
          'dependency:build-classpath',
          `-Dmdep.outputFile=${partial}`,
        ]);
        writeFileSync(listing, readFileSync(partial, 'utf8').trim());
        rmSync(partial, { force: true });
        progress('maven', `resolved in ${Math.round((Date.now() - started) / 1000)} s`);
      }
    } finally {
      release();
    }
  }
  return readFileSafely(listing);
}

/**
 * Flags that start each proof JVM fast and small: 20 of them contend at once on 2 cores. The JVM's
 * own warnings (class-data sharing's among them) go to stderr, not into the output proofs read.
 */
export const JVM_FLAGS = [
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Xss512k',
  '-Xmx128m',
  '-Xlog:disable',
  '-Xlog:all=warning:stderr',
];

const SHARED_ARCHIVE = '-XX:SharedArchiveFile=';

/**
 * The command that runs `main` from the classes javac wrote (`classpath` as javac returned it),
 * mapping a class-data archive: a proof JVM spends most of its start loading and verifying the
 * client library's classes (Lettuce's, Netty's, Spring's), a third to a half of it saved by the archive.
 * Class-data sharing takes jars only, so the classes are packed into one. The archive is written
 * by the command's first run (`withClassArchive`); until then the JVM starts without it.
 */
export async function javaCommand(classpath: string, main: string): Promise<string[]> {
  const [classes, ...jars] = classpath.split(':');
  const [jar, archive] = [`${classes}.jar`, `${classes}.jsa`];
  // An archive names the jars it was written from: one from an earlier build would not map.
  rmSync(archive, { force: true });
  await tool('jar', ['--create', '--file', jar, '-C', classes, '.']);
  return ['java', ...JVM_FLAGS, `${SHARED_ARCHIVE}${archive}`, '-cp', [jar, ...jars].join(':'), main];
}

const archivesBeingWritten = new Set<string>();

/**
 * `command` as one run should start it. A JVM command from `javaCommand` whose archive does not
 * exist yet has its first run write it at exit (beside the final name, moved there once that run
 * ended well, so no run maps half an archive); the runs beside it start without one.
 */
export function withClassArchive(command: string[]): { command: string[]; exited(ok: boolean): void } {
  const flag = command.find((arg) => arg.startsWith(SHARED_ARCHIVE));
  const archive = flag?.slice(SHARED_ARCHIVE.length);
  if (!flag || !archive || existsSync(archive) || archivesBeingWritten.has(archive))
    return { command, exited: () => undefined };
  archivesBeingWritten.add(archive);
  const partial = `${archive}.${process.pid}.part`;
  return {
    command: command.map((arg) => (arg === flag ? `-XX:ArchiveClassesAtExit=${partial}` : arg)),
    exited(ok) {
      if (ok && existsSync(partial)) renameSync(partial, archive);
      else rmSync(partial, { force: true });
      archivesBeingWritten.delete(archive);
    },
  };
}

/**
 * Compiles `sources` (paths relative to `dir`) into `dir/classes` against the pinned libraries
 * (java/pom.xml's, or the `jars` given); returns the run classpath.
 */
export async function javac(dir: string, sources: string[], flags: string[] = [], jars?: string): Promise<string> {
  jars ??= await javaClasspath();
  const classes = join(dir, 'classes');
  mkdirSync(dir, { recursive: true });
  await tool('javac', [...flags, '-d', classes, '-cp', jars, ...sources], { cwd: dir });
  return `${classes}:${jars}`;
}

/** Valkey GLIDE for Java (glide/pom.xml): its jar carries the native core, one per platform. */
export function glideJavaClasspath(): Promise<string> {
  return javaClasspath('glide/pom.xml', [`glide.classifier=linux-${process.arch === 'arm64' ? 'aarch_64' : 'x86_64'}`]);
}

/** The jar of one of the pinned libraries on the classpath (its version is in the path), or undefined. */
export function jarOf(jars: string, artifact: string): string | undefined {
  return jars.split(':').find((jar) => jar.includes(`/${artifact}-`));
}

// ---------------------------------------------------------------------------------------------
// Rust: redis-rs (and rand, for the snippets) through Cargo with CARGO_HOME and a shared target
// folder under the cache, so dependencies compile once per machine. Builds take a lock of their
// own: each writes the same package's binary into the shared target folder and copies it out.

const rustRoot = () => join(valkeyCacheRoot(), 'cargo');

function cargoEnv(): NodeJS.ProcessEnv {
  return { ...process.env, CARGO_HOME: join(rustRoot(), 'home'), CARGO_TARGET_DIR: join(rustRoot(), 'target') };
}

/** The user's own Cargo configuration (a registry mirror, say), which another CARGO_HOME would hide. */
function userCargoConfig(): string[] {
  const home = process.env.CARGO_HOME || join(homedir(), '.cargo');
  const config = ['config.toml', 'config'].map((name) => join(home, name)).find((path) => existsSync(path));
  return config ? ['--config', config] : [];
}

/** Writes the pinned Cargo.toml and Cargo.lock into `dir` with `main` as src/main.rs (and any other src files). */
export function writeCargoPackage(dir: string, sources: Record<string, string>): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (const file of ['Cargo.toml', 'Cargo.lock']) copyFileSync(join(PINNED, 'rust', file), join(dir, file));
  for (const [name, text] of Object.entries(sources)) writeFileSync(join(dir, 'src', name), text);
}

/**
 * Every program is the same package (`locksmith-proof`), and Cargo hashes a path package by its
 * path relative to the workspace, so all share one fingerprint. A source written before the last
 * build finished (while waiting for the lock) looks older than that fingerprint: Cargo calls it
 * fresh and keeps the other program's binary, or skips the check. Forgetting the package's
 * fingerprints makes every build compile its own source; the dependencies stay compiled.
 */
function forgetProofPackage(): void {
  const fingerprints = join(rustRoot(), 'target', 'debug', '.fingerprint');
  if (!existsSync(fingerprints)) return;
  for (const entry of readdirSync(fingerprints)) {
    if (entry.startsWith('locksmith-proof-')) rmSync(join(fingerprints, entry), { recursive: true, force: true });
  }
}

/**
 * `cargo build` (returns the binary, copied to `dir/proof`) or `cargo check` of the package in
 * `dir` with the locked dependencies; warnings fail it when `denyWarnings`.
 */
export async function cargo(dir: string, mode: 'build' | 'check', denyWarnings = false): Promise<string> {
  const env = { ...cargoEnv(), ...(denyWarnings ? { RUSTFLAGS: '-D warnings' } : {}) };
  return withCacheLock(rustRoot(), 'build', FETCH_STALE_MS, async () => {
    forgetProofPackage();
    await tool('cargo', [...userCargoConfig(), mode, '--locked', '--quiet'], { cwd: dir, env });
    if (mode === 'check') return '';
    const binary = join(dir, 'proof');
    copyFileSync(join(rustRoot(), 'target', 'debug', 'locksmith-proof'), binary);
    return binary;
  });
}

// ---------------------------------------------------------------------------------------------
// Python: the newest redis-py from PyPI (python/requirements.txt) in a virtual environment under
// the cache, beside Debian's python3-redis that /usr/bin/python3 imports.

const venvs = new Map<string, Promise<string>>();

/** The python of a virtual environment with a pinned requirements file (relative to test/proofs) installed, made on first use. */
export function pypiPython(requirements = 'python/requirements.txt'): Promise<string> {
  let venv = venvs.get(requirements);
  if (!venv) {
    venv = makeVenv(join(PINNED, requirements)).catch((error: unknown) => {
      venvs.delete(requirements);
      throw error;
    });
    venvs.set(requirements, venv);
  }
  return venv;
}

async function makeVenv(requirements: string): Promise<string> {
  const root = join(valkeyCacheRoot(), 'python');
  const dir = join(root, `venv-${digestOf(requirements)}`);
  const python = join(dir, 'bin', 'python');
  const marker = join(dir, '.complete');
  if (existsSync(marker)) return python;
  const release = await takeCacheLock(root, 'venv', () => existsSync(marker), FETCH_STALE_MS);
  try {
    if (!existsSync(marker)) {
      const started = Date.now();
      progress('pip', `installing ${requirements} into ${dir} (first run only)`);
      rmSync(dir, { recursive: true, force: true });
      // Debian's python: the same interpreter the Debian-packaged redis-py proofs run on.
      await tool('/usr/bin/python3', ['-m', 'venv', dir]);
      await tool(python, ['-m', 'pip', 'install', '--quiet', '--no-input', '-r', requirements]);
      writeFileSync(marker, '');
      progress('pip', `installed in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  } finally {
    release();
  }
  return python;
}

// ---------------------------------------------------------------------------------------------
// npm packages the project does not depend on (Valkey GLIDE for Node): a pinned package.json and
// package-lock.json installed with `npm ci` into a folder of the cache, renamed into place when
// complete.

const npmInstalls = new Map<string, Promise<string>>();

/** The node_modules folder of a pinned package folder (relative to test/proofs), installed on first use. */
export function npmPackages(folder: string): Promise<string> {
  let install = npmInstalls.get(folder);
  if (!install) {
    install = installNpm(join(PINNED, folder)).catch((error: unknown) => {
      npmInstalls.delete(folder);
      throw error;
    });
    npmInstalls.set(folder, install);
  }
  return install;
}

async function installNpm(source: string): Promise<string> {
  const root = join(valkeyCacheRoot(), 'npm');
  const files = ['package.json', 'package-lock.json'].map((name) => join(source, name));
  const dir = join(root, `packages-${digestOf(...files)}`);
  const modules = join(dir, 'node_modules');
  if (existsSync(modules)) return modules;
  const release = await takeCacheLock(root, 'install', () => existsSync(modules), FETCH_STALE_MS);
  try {
    if (!existsSync(modules)) {
      const started = Date.now();
      progress('npm', `installing ${source} into ${dir} (first run only)`);
      const partial = `${dir}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      for (const file of files) copyFileSync(file, join(partial, file.slice(source.length + 1)));
      await tool('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: partial });
      rmSync(dir, { recursive: true, force: true });
      renameSync(partial, dir);
      progress('npm', `installed in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  } finally {
    release();
  }
  return modules;
}

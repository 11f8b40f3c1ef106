// Valkey 9 for the tests: Debian has no binary package of it, so the harness builds Debian
// unstable's source package once per machine and caches the binaries next to code-server
// (~/.cache/redis-locksmith/valkey-<version>/bin). Test files run in parallel: a lock folder
// makes one of them build while the others wait for it.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { join } from 'node:path';
import { atExit } from './atExit';
import { readFileSafely, takeCacheLock } from './cacheLock';

/** DELIFEQ, the reason Valkey is in the harness, arrived in 9.0. */
const MIN_MAJOR = 9;
const SOURCES_FILE = '/etc/apt/sources.list.d/locksmith-sid-src.sources';
const SETUP_HINT = `run \`bash .ci/run\` once as root, or by hand:
  .ci/sid-sources | sudo tee ${SOURCES_FILE}   # your Debian mirror, from your own apt sources
  sudo apt-get update && sudo apt-get install -y dpkg-dev build-essential`;
const LOCK_STALE_MS = 20 * 60_000;

export function valkeyCacheRoot(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'redis-locksmith');
}

const binIn = (dir: string) => join(dir, 'bin');

/** Cached builds, newest first: `valkey-<x.y.z>` folders with both binaries in bin/. */
function cachedBuilds(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((name) => /^valkey-(\d+)\.(\d+)\.(\d+)$/.exec(name))
    .filter((match): match is RegExpExecArray => match !== null && Number(match[1]) >= MIN_MAJOR)
    .filter((match) => ['valkey-server', 'valkey-cli'].every((bin) => existsSync(join(root, match[0], 'bin', bin))))
    .sort((a, b) => compareVersions(b.slice(1), a.slice(1)))
    .map((match) => join(root, match[0]));
}

function compareVersions(a: string[], b: string[]): number {
  for (let i = 0; i < 3; i++) if (Number(a[i]) !== Number(b[i])) return Number(a[i]) - Number(b[i]);
  return 0;
}

let resolved: Promise<string> | undefined;

/** The folder holding valkey-server and valkey-cli, built on first use. */
export function ensureValkey(): Promise<string> {
  resolved ??= findOrBuild().catch((error: unknown) => {
    resolved = undefined;
    throw error;
  });
  return resolved;
}

async function findOrBuild(): Promise<string> {
  const root = valkeyCacheRoot();
  const cached = cachedBuilds(root)[0];
  if (cached) return binIn(cached);
  mkdirSync(root, { recursive: true });
  const release = await takeCacheLock(root, 'valkey-build', () => cachedBuilds(root).length > 0, LOCK_STALE_MS);
  try {
    // Another test file may have finished the build while this one waited for the lock.
    const built = cachedBuilds(root)[0] ?? (await build(root));
    return binIn(built);
  } finally {
    release();
  }
}

function progress(message: string): void {
  process.stderr.write(`[valkey] ${message}\n`);
}

/** The newest valkey source version apt knows (Debian revision dropped), or why there is none. */
function sourceVersion(): string {
  let listing: string;
  try {
    listing = execFileSync('apt-cache', ['showsrc', 'valkey'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    listing = '';
  }
  const versions = [...listing.matchAll(/^Version: (?:\d+:)?(\d+)\.(\d+)\.(\d+)/gm)]
    .filter((match) => Number(match[1]) >= MIN_MAJOR)
    .map((match) => match.slice(1))
    .sort((a, b) => compareVersions(b, a));
  if (versions.length === 0) {
    throw new Error(
      `Valkey ${MIN_MAJOR}.x is not built yet and apt knows no valkey >= ${MIN_MAJOR} source package; ${SETUP_HINT}`,
    );
  }
  return versions[0].join('.');
}

function requireTools(): void {
  const missing = ['dpkg-source', 'make', 'cc'].filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length) throw new Error(`building Valkey needs ${missing.join(', ')}, not on PATH; ${SETUP_HINT}`);
}

/** Runs `command` in `cwd`, output to `log`; rejects with the log's tail. */
function run(command: string, args: string[], cwd: string, log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `"$0" "$@" >> '${log}' 2>&1`, command, ...args], { cwd, stdio: 'ignore' });
    const cancel = atExit(() => child.kill('SIGKILL'));
    child.once('error', reject);
    child.once('exit', (code) => {
      cancel();
      if (code === 0) return resolve();
      const tail = readFileSafely(log).split('\n').slice(-30).join('\n');
      reject(new Error(`${command} ${args.join(' ')} failed (${code}) in ${cwd}:\n${tail}\n${SETUP_HINT}`));
    });
  });
}

/** apt-get source + make into a sibling temp folder, renamed into place only when complete. */
async function build(root: string): Promise<string> {
  requireTools();
  const version = sourceVersion();
  const dir = join(root, `valkey-${version}`);
  const partial = mkdtempSync(`${dir}.partial-`);
  const cancel = atExit(() => rmSync(partial, { recursive: true, force: true }));
  const log = join(partial, 'build.log');
  const started = Date.now();
  progress(`building Valkey ${version} from Debian's source into ${dir} (first run only; takes minutes)`);
  try {
    await run('apt-get', ['source', '-qq', '--only-source', 'valkey'], partial, log);
    const source = readdirSync(partial, { withFileTypes: true }).find(
      (entry) => entry.isDirectory() && entry.name.startsWith('valkey-'),
    );
    const tree = join(partial, source?.name ?? `valkey-${version}`);
    if (!existsSync(join(tree, 'src'))) throw new Error(`apt-get source left no source tree in ${partial}`);
    const jobs = String(Math.max(1, availableParallelism()));
    // Only the two binaries the harness copies, at -O2 (-O3 adds link-time optimization): half
    // the build's CPU time (50 s against 101 s of user time on this machine's 2 cores).
    const targets = ['valkey-server', 'valkey-cli'];
    await run('make', [`-j${jobs}`, 'BUILD_TLS=no', 'MALLOC=libc', 'OPTIMIZATION=-O2', ...targets], tree, log);
    mkdirSync(binIn(partial));
    for (const bin of targets) {
      copyFileSync(join(tree, 'src', bin), join(binIn(partial), bin));
      chmodSync(join(binIn(partial), bin), 0o755);
    }
    for (const name of readdirSync(partial)) if (name !== 'bin') rmSync(join(partial, name), { recursive: true });
    renameSync(partial, dir);
    progress(`built in ${Math.round((Date.now() - started) / 1000)} s`);
    return dir;
  } finally {
    rmSync(partial, { recursive: true, force: true });
    cancel();
  }
}

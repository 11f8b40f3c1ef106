// code-server (npm) ships a real VS Code 1.100 server and web workbench: the extension-host tests
// run in it because desktop VS Code cannot be downloaded here. It is installed once into a cache
// folder the tests own (not the project's node_modules) and started per run with throwaway state.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { atExit } from './atExit';
import { findOnPath } from './onPath';

// 4.100.x is the last line that runs on Node 20; it ships VS Code 1.100.3 (engines.vscode ^1.100.0).
const CODE_SERVER_VERSION = '4.100.3';
const HOST = '127.0.0.1';
const APT_HINT = 'sudo apt-get install -y libkrb5-dev pkg-config ripgrep';

/** Where code-server is installed: $LOCKSMITH_CODE_SERVER_DIR, else under the XDG cache folder. */
export function codeServerDir(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return process.env.LOCKSMITH_CODE_SERVER_DIR || join(cache, 'redis-locksmith', `code-server-${CODE_SERVER_VERSION}`);
}

const entryIn = (dir: string) => join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

function progress(message: string): void {
  process.stderr.write(`[code-server] ${message}\n`);
}

/**
 * Installs code-server unless the cache holds a finished install; returns its entry script.
 * The install goes into a sibling temp folder renamed into place only when complete, so an
 * interrupted install is never taken for a finished one, and concurrent runs don't collide.
 */
export async function ensureCodeServer(): Promise<string> {
  const dir = codeServerDir();
  if (existsSync(entryIn(dir))) return entryIn(dir);

  const rg = findRipgrep();
  mkdirSync(dirname(dir), { recursive: true });
  removeAbandonedInstalls(dir);
  const partial = mkdtempSync(`${dir}.partial-`);
  // npm's scripts get their own TMPDIR so the ripgrep archive below is ours, not a shared file.
  const scratch = mkdtempSync(join(tmpdir(), 'locksmith-code-server-install-'));
  const removeTemporaries = () => {
    rmSync(partial, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  };
  let npm: ChildProcess | undefined;
  // Interrupted: stop npm and its build scripts first, or they go on writing into `partial`.
  const cancelExitCleanup = atExit(() => {
    if (npm?.exitCode === null) signalGroup(npm.pid!, 'SIGKILL');
    removeTemporaries();
  });
  const started = Date.now();
  progress(`installing code-server ${CODE_SERVER_VERSION} into ${dir} (first run only; takes minutes)`);
  try {
    writeRipgrepArchive(scratch, rg);
    writeFileSync(join(partial, 'package.json'), JSON.stringify({ private: true }));
    npm = spawnNpmInstall(partial, {
      ...process.env,
      TMPDIR: scratch,
      // code-server's postinstall refuses to run as root without this.
      npm_config_unsafe_perm: 'true',
      // node-pty's postinstall runs `npx node-gyp`, which would otherwise prompt.
      npm_config_yes: 'true',
    });
    await succeeded(npm);
    if (!existsSync(entryIn(partial))) throw new Error(`npm finished but ${entryIn(partial)} is missing`);
    try {
      renameSync(partial, dir);
    } catch (error) {
      // A concurrent run finished first: use its install and drop ours.
      if (!existsSync(entryIn(dir))) throw error;
    }
    progress(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
    return entryIn(dir);
  } finally {
    removeTemporaries();
    cancelExitCleanup();
  }
}

function findRipgrep(): string {
  const rg = findOnPath('rg');
  if (!rg)
    throw new Error(`ripgrep (rg) is not on PATH; code-server's install needs it and native build tools: ${APT_HINT}`);
  return rg;
}

/** Partial installs left by a killed run (older than an hour: no install takes that long). */
function removeAbandonedInstalls(dir: string): void {
  const prefix = `${basename(dir)}.partial-`;
  for (const name of readdirSync(dirname(dir))) {
    const path = join(dirname(dir), name);
    if (name.startsWith(prefix) && Date.now() - statSync(path).mtimeMs > 3_600_000) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}

/**
 * @vscode/ripgrep 1.15.11 (in code-server 4.100.3) downloads rg v13.0.0-10 from GitHub in its
 * postinstall (unreachable here) unless it finds this archive in os.tmpdir(); Debian's rg at the
 * archive root satisfies it. Target names as in its lib/postinstall.js.
 */
function writeRipgrepArchive(tmp: string, rg: string): void {
  const target = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' }[process.arch as string];
  if (!target) throw new Error(`no offline ripgrep archive name known for ${process.arch}`);
  const cache = join(tmp, 'vscode-ripgrep-cache-1.15.11');
  mkdirSync(cache);
  execFileSync('tar', ['-czf', join(cache, `ripgrep-v13.0.0-10-${target}.tar.gz`), '-C', dirname(rg), basename(rg)]);
}

function spawnNpmInstall(prefix: string, env: NodeJS.ProcessEnv): ChildProcess {
  const args = [
    'install',
    `code-server@${CODE_SERVER_VERSION}`,
    '--prefix',
    prefix,
    '--foreground-scripts',
    '--no-audit',
    '--no-fund',
  ];
  // Its own process group, so the build scripts it runs can be stopped with it. Its output is
  // the progress (one section per install script), on stderr: stdout stays for results.
  return spawn('npm', args, { env, detached: true, stdio: ['ignore', 2, 2] });
}

/** Resolves when npm exits 0. */
function succeeded(npm: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    npm.once('error', reject);
    npm.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`npm install code-server failed (${signal ?? code}); native modules need: ${APT_HINT}`)),
    );
  });
}

export interface StartOptions {
  /** The folder the workbench opens. */
  workspace: string;
  /** Extra environment for code-server and so for the extension host. */
  env?: Record<string, string>;
  /** Where code-server's stdout and stderr go. */
  logFile?: string;
  /** Merged into the user settings.json it starts with (e.g. connections to show). */
  userSettings?: Record<string, unknown>;
  /** A .vsix to install (code-server --install-extension) into the throwaway extensions folder first. */
  installVsix?: string;
}

export interface CodeServer {
  port: number;
  /** The workbench's base URL, e.g. http://127.0.0.1:43123/ */
  url: string;
  /** Stops code-server and every process it started, and removes its throwaway folders. */
  stop(): Promise<void>;
}

/** Sends a signal to a whole process group; false when the group is gone. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitForGroupExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (signalGroup(pid, 0)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Starts code-server on a free loopback port with its own user data, extensions, HOME and XDG
 * folders, no auth and no marketplace. Its environment is PATH and locale plus `env`, so
 * variables of the calling shell (a parent VS Code's, node:test's) don't reach the extension host.
 */
export async function startCodeServer({
  workspace,
  env = {},
  logFile,
  userSettings = {},
  installVsix,
}: StartOptions): Promise<CodeServer> {
  const entry = await ensureCodeServer();
  const dir = mkdtempSync(join(tmpdir(), 'locksmith-code-server-'));
  const home = join(dir, 'home');
  const userData = join(dir, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  // No welcome page: screenshots show what the suite opened.
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify({ 'workbench.startupEditor': 'none', ...userSettings }),
  );
  writeFileSync(join(dir, 'config.yaml'), '');

  const inherited = Object.fromEntries(
    ['PATH', 'LANG', 'LC_ALL', 'TZ'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
  const args = [
    entry,
    '--config',
    join(dir, 'config.yaml'),
    '--auth',
    'none',
    // Port 0: the kernel picks a free port, read back from the listening line (no probe race).
    '--bind-addr',
    `${HOST}:0`,
    '--user-data-dir',
    userData,
    '--extensions-dir',
    join(dir, 'extensions'),
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    workspace,
  ];
  const isolated = {
    ...inherited,
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    EXTENSIONS_GALLERY: '{}',
  };
  if (installVsix) {
    // The artefact users get, installed as they install it.
    execFileSync(
      process.execPath,
      [
        entry,
        '--user-data-dir',
        userData,
        '--extensions-dir',
        join(dir, 'extensions'),
        '--install-extension',
        installVsix,
      ],
      { env: isolated, stdio: 'pipe' },
    );
  }
  const child = spawn(process.execPath, args, {
    // Its own process group, so stop() reaches the server child and the extension host too.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: isolated,
  });
  const group = child.pid!;
  // A run that crashes or is interrupted before stop() must not leave code-server running.
  const cancelExitKill = atExit(() => {
    signalGroup(group, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const log = logFile ? createWriteStream(logFile) : undefined;
  // Pipes close once every process of the group holding them has exited.
  const closed = new Promise<void>((resolve) => child.once('close', () => (log ? log.end(resolve) : resolve())));

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    signalGroup(group, 'SIGTERM');
    if (!(await waitForGroupExit(group, 5000))) {
      signalGroup(group, 'SIGKILL');
      await waitForGroupExit(group, 5000);
    }
    await closed;
    rmSync(dir, { recursive: true, force: true });
    cancelExitKill();
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`code-server did not start within 60 s:\n${output.slice(-2000)}`)),
        60_000,
      );
      const streams = [child.stdout, child.stderr];
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const listening = /HTTP server listening on http:\/\/[\d.]+:(\d+)/.exec(output);
        if (listening) {
          clearTimeout(timer);
          for (const stream of streams) stream.off('data', onData);
          resolve(Number(listening[1]));
        }
      };
      for (const stream of streams) {
        // Read to the end even without a log file: a full pipe would block code-server.
        stream.on('data', (chunk: Buffer) => log?.write(chunk));
        stream.on('data', onData);
      }
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`code-server exited (${signal ?? code}) before it listened:\n${output.slice(-2000)}`));
      });
    });
    return { port, url: `http://${HOST}:${port}/`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

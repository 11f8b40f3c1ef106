// `npm run demo`: a throwaway redis-server with the pack loaded, workers contending for locks
// through it, one key of every kind the Locks view tells apart, and the extension (development
// mode) connected to it: in code-server on 127.0.0.1, printing the URL to open, or with
// --desktop in desktop VS Code. Ctrl-C or SIGTERM stops all of it and removes its temp folders.
//   node --import tsx demo/demo.ts [--desktop]     (after npm run build)
// The Redis has no password: SecretStorage, where the extension keeps passwords, cannot be
// filled from outside the editor.
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { startRedis } from '../test/harness/redis';
import { atExit } from '../test/vscode/atExit';
import { startCodeServer } from '../test/vscode/codeServer';
import {
  DOOMED_WORKER,
  KILL_AFTER_MS,
  seedKeys,
  SEEDED_KEYS,
  startRedissonWatchdog,
  WORKER_PLANS,
  type HoldingMessage,
  type WorkerName,
} from './scenario';

const ROOT = join(__dirname, '..');
const BUNDLES = ['extension/out/extension.js', 'server/out/server.js'];
const CODE_HINT =
  "install VS Code and its `code` command (Command Palette: Shell Command: Install 'code' command in PATH), or run the demo without --desktop to use code-server in a browser";

/** What the demo starts itself (the harnesses stop redis-server and code-server on their own exit hooks). */
const started = {
  workers: new Set<ChildProcess>(),
  /** The `code --wait` CLI; the VS Code instance it starts runs below it. */
  editor: undefined as ChildProcess | undefined,
  scratch: undefined as string | undefined,
};

/**
 * Every process below `pid`. Desktop VS Code's CLI starts the editor detached (its own
 * session), so only the parent links lead to it.
 */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length;) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** At exit, so synchronous: no waiting for graceful stops, hence SIGKILL (as the harnesses do). */
function stopStarted(): void {
  for (const worker of started.workers) worker.kill('SIGKILL');
  const editor = started.editor;
  // Only while the CLI runs: after it exited its pid may belong to another process.
  if (editor?.pid && editor.exitCode === null && editor.signalCode === null) {
    for (const pid of [editor.pid, ...descendants(editor.pid)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  if (started.scratch) rmSync(started.scratch, { recursive: true, force: true });
}

function findOnPath(command: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** The folder the editor opens: the sample with unsafe lock code, for the linter. */
function createWorkspace(scratch: string): string {
  const workspace = join(scratch, 'workspace');
  mkdirSync(workspace);
  const sample = join(__dirname, 'workspace');
  for (const name of readdirSync(sample)) copyFileSync(join(sample, name), join(workspace, name));
  return workspace;
}

function forkWorker(url: string, name: WorkerName): ChildProcess {
  // An IPC channel: the worker reports what it holds, and exits when the demo is gone.
  const worker = fork(join(__dirname, 'worker.ts'), [url, name], { execArgv: ['--import', 'tsx'] });
  started.workers.add(worker);
  worker.once('exit', (code, signal) => {
    started.workers.delete(worker);
    if (signal !== 'SIGKILL') console.error(`demo worker ${name} exited (${signal ?? code}); the others go on`);
  });
  return worker;
}

interface Crash {
  doomed: ChildProcess;
  /** The lock it holds when killed. */
  held: string;
}

/** Starts the worker to kill first and, once it holds its lock, the others; resolves to it and its lock. */
async function startWorkers(url: string): Promise<Crash> {
  const doomed = forkWorker(url, DOOMED_WORKER);
  const held = await new Promise<string>((resolve, reject) => {
    doomed.once('message', (message: HoldingMessage) => resolve(message.holding));
    doomed.once('exit', () => reject(new Error(`demo worker ${DOOMED_WORKER} exited before it took a lock`)));
  });
  for (const name of Object.keys(WORKER_PLANS) as WorkerName[]) if (name !== DOOMED_WORKER) forkWorker(url, name);
  return { doomed, held };
}

/** Kills the doomed worker in its critical section: no release, no more extensions. */
function scheduleCrash({ doomed, held }: Crash): void {
  setTimeout(() => {
    doomed.kill('SIGKILL');
    console.log(
      `${new Date().toLocaleTimeString()}  SIGKILLed ${DOOMED_WORKER} (pid ${doomed.pid}) while it held ${held}: watch its TTL run out, then another worker take it`,
    );
  }, KILL_AFTER_MS);
}

function workbenchUrl(base: string, port: number, workspace: string): string {
  // Development mode as in test/vscode/run.ts, without the tests.
  const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${ROOT}`]];
  return `${base}?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** Runs desktop VS Code on a throwaway user-data-dir; resolves when its window is closed. */
async function runDesktop(
  code: string,
  scratch: string,
  workspace: string,
  settings: Record<string, unknown>,
): Promise<void> {
  const userData = join(scratch, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  // --wait: the CLI stays until the window closes, which ends the demo. Its own process group:
  // Ctrl-C in the terminal must not kill the CLI before stopStarted() has followed it to the editor.
  const editor = spawn(code, ['--wait', `--extensionDevelopmentPath=${ROOT}`, '--user-data-dir', userData, workspace], {
    stdio: 'inherit',
    detached: true,
  });
  started.editor = editor;
  await new Promise<void>((resolve, reject) => {
    editor.once('error', reject);
    editor.once('exit', () => resolve());
  });
}

/** The throwaway Redis with the pack loaded, the seeded keys and the workers; what to connect to and who to kill. */
async function startScenario(): Promise<{ connectionUrl: string; crash: Crash }> {
  // Keyspace notifications on, as a newcomer's own development server would be set up: the view
  // opens live. The polling path has its own tests and bench.
  const server = await startRedis({ args: ['--notify-keyspace-events', 'K$gxh'] });
  const redis = server.client();
  await new LockScripts(redis, loadPack()).load();
  await seedKeys(redis);
  startRedissonWatchdog(redis);
  const crash = await startWorkers(server.url);
  const contended = new Set(Object.values(WORKER_PLANS).flatMap((plan) => plan.locks.map((lock) => lock.key)));
  console.log(`Redis Locksmith demo
  redis-server  127.0.0.1:${server.port}, throwaway, no password, keyspace notifications on; the lock scripts are loaded
  workers       ${Object.keys(WORKER_PLANS).join(', ')}, contending for ${[...contended].join(', ')}
${Object.entries(SEEDED_KEYS)
  .map(([key, what]) => `  seeded        ${key}: ${what}`)
  .join('\n')}
`);
  return { connectionUrl: `redis://127.0.0.1:${server.port}/0`, crash };
}

function whatToLookAt({ held }: Crash): string {
  return `Click the Redis Locksmith icon (a padlock) in the activity bar. The Locks view lists, under
"demo (throwaway)", every lock with its owner (host#pid) and TTL: TTLs count down and go back
up when a worker extends its lease. Lock Scripts, below, shows the pack loaded.
In ${KILL_AFTER_MS / 1000} s ${DOOMED_WORKER} is SIGKILLed while it holds ${held}.`;
}

async function main(): Promise<void> {
  let desktop: boolean;
  try {
    desktop = parseArgs({ options: { desktop: { type: 'boolean', default: false } } }).values.desktop;
  } catch (error) {
    throw new Error(`${(error as Error).message}; usage: npm run demo [-- --desktop]`);
  }
  const code = desktop ? findOnPath('code') : undefined;
  if (desktop && !code) throw new Error(`\`code\` is not on PATH: ${CODE_HINT}`);
  const missing = BUNDLES.filter((bundle) => !existsSync(join(ROOT, bundle)));
  if (missing.length) throw new Error(`${missing.join(' and ')} missing: run npm run build first (npm run demo does)`);

  atExit(stopStarted);
  const scratch = (started.scratch = mkdtempSync(join(tmpdir(), 'locksmith-demo-')));
  const workspace = createWorkspace(scratch);
  const { connectionUrl, crash } = await startScenario();
  const settings = {
    'redisLocksmith.connections': [{ id: 'demo', name: 'demo (throwaway)', url: connectionUrl }],
    'workbench.startupEditor': 'none',
    // The workspace is a temp folder of ours: no trust prompt over the first impression.
    'security.workspace.trust.enabled': false,
  };

  if (code) {
    console.log(
      `Starting VS Code with the extension in development mode and throwaway user data.\n${whatToLookAt(crash)}\nClose the window or press Ctrl-C to stop.\n`,
    );
    scheduleCrash(crash);
    await runDesktop(code, scratch, workspace, settings);
    console.log('VS Code closed: the demo stops.');
    return;
  }
  const editor = await startCodeServer({ workspace, userSettings: settings });
  console.log(`Open this URL (code-server on 127.0.0.1:${editor.port}; from another machine, forward that same port):

  ${workbenchUrl(editor.url, editor.port, workspace)}

${whatToLookAt(crash)}
Ctrl-C stops everything.
`);
  scheduleCrash(crash);
  // Runs until Ctrl-C or SIGTERM: the exit hooks stop everything.
  await new Promise(() => {});
}

main().then(
  // Only desktop mode ends on its own (its window was closed).
  () => process.exit(0),
  (error: unknown) => {
    console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);

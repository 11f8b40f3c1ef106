// The demo's pieces, for `npm run demo` (demo.ts) and `npm run media` (tools/media.ts): the
// throwaway Redis with the pack loaded, the seeded keys and the contending workers; the
// workspace copy; code-server with the extension in development mode.
import { fork, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { startRedis } from '../harness/redis';
import { atExit } from '../harness/atExit';
import { startCodeServer, type CodeServer } from '../harness/codeServer';
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

export const ROOT = join(__dirname, '..');
const BUNDLES = ['extension/out/extension.js', 'server/out/server.js'];

/** Throws unless `npm run build` has run. */
export function checkBuilt(runner: string): void {
  const missing = BUNDLES.filter((bundle) => !existsSync(join(ROOT, bundle)));
  if (missing.length) throw new Error(`${missing.join(' and ')} missing: run npm run build first (${runner} does)`);
}

/** The folder the editor opens: a copy of the sample with unsafe lock code, for the linter. */
export function createWorkspace(scratch: string): string {
  const workspace = join(scratch, 'workspace');
  mkdirSync(workspace);
  const sample = join(__dirname, 'workspace');
  for (const name of readdirSync(sample)) copyFileSync(join(sample, name), join(workspace, name));
  return workspace;
}

/** The demo's connection as the redisLocksmith.connections setting holds it. */
export const DEMO_CONNECTION_NAME = 'demo (throwaway)';

/** User settings for the editor: the demo's connection when given, and a first screen without prompts. */
export function editorSettings(connectionUrl: string | undefined): Record<string, unknown> {
  return {
    ...(connectionUrl && {
      'redisLocksmith.connections': [{ id: 'demo', name: DEMO_CONNECTION_NAME, url: connectionUrl }],
    }),
    'workbench.startupEditor': 'none',
    // The workspace is a temp folder of ours: no trust prompt over the first impression.
    'security.workspace.trust.enabled': false,
  };
}

export interface Crash {
  doomed: ChildProcess;
  /** The lock it holds when killed. */
  held: string;
}

export interface Scenario {
  /** redis://127.0.0.1:<port>/0 */
  connectionUrl: string;
  crash: Crash;
  /** What runs, for the console. */
  summary: string;
  /**
   * Resolves when the Locks view has first listed the locks: its first SCAN (nothing else the
   * demo runs scans), seen in INFO commandstats every 250 ms.
   */
  firstListing(): Promise<void>;
  /** Kills the workers, stops the watchdog and redis-server. */
  stop(): Promise<void>;
}

/** Kills the doomed worker in its critical section, `afterMs` from now: no release, no more extensions. */
export function scheduleCrash({ doomed, held }: Crash, afterMs = KILL_AFTER_MS): NodeJS.Timeout {
  return setTimeout(() => {
    doomed.kill('SIGKILL');
    console.log(
      `${new Date().toLocaleTimeString()}  SIGKILLed ${DOOMED_WORKER} (pid ${doomed.pid}) while it held ${held}: watch its TTL run out, then another worker take it`,
    );
  }, afterMs);
}

/**
 * The crash, `afterMs` after the Locks view first listed the locks, however long the user took
 * to open it: the expiry happens while someone watches. Returns what cancels it.
 */
export function scheduleCrashAfterListing(scenario: Scenario, afterMs = KILL_AFTER_MS): () => void {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  scenario.firstListing().then(
    () => {
      if (cancelled) return;
      console.log(
        `${new Date().toLocaleTimeString()}  The Locks view listed the locks: ${DOOMED_WORKER} is SIGKILLed in ${afterMs / 1000} s.`,
      );
      timer = scheduleCrash(scenario.crash, afterMs);
    },
    // The scenario stopped before anyone looked.
    () => undefined,
  );
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

const SCANS = /cmdstat_scan:calls=(\d+)/;
const LISTING_POLL_MS = 250;

/** The workers alive; killed at exit however the process ends (they also exit when their IPC channel closes). */
const workers = new Set<ChildProcess>();
let workersHooked = false;

function killWorkers(): void {
  for (const worker of workers) worker.kill('SIGKILL');
}

function forkWorker(url: string, name: WorkerName): ChildProcess {
  if (!workersHooked) {
    workersHooked = true;
    atExit(killWorkers);
  }
  // An IPC channel: the worker reports what it holds, and exits when the demo is gone.
  const worker = fork(join(__dirname, 'worker.ts'), [url, name], { execArgv: ['--import', 'tsx'] });
  workers.add(worker);
  worker.once('exit', (code, signal) => {
    workers.delete(worker);
    if (signal !== 'SIGKILL') console.error(`demo worker ${name} exited (${signal ?? code}); the others go on`);
  });
  return worker;
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

/** The throwaway Redis with the pack loaded, the seeded keys and the workers; what to connect to and who to kill. */
export async function startScenario(): Promise<Scenario> {
  // Keyspace notifications on, as a newcomer's own development server would be set up: the view
  // opens live. The polling path has its own tests and bench.
  const server = await startRedis({ args: ['--notify-keyspace-events', 'K$gxh'] });
  const redis = server.client();
  let watchdog: NodeJS.Timeout | undefined;
  let stopped = false;
  const firstListing = async () => {
    while (!stopped && !Number(SCANS.exec(await redis.info('commandstats'))?.[1] ?? 0)) {
      await new Promise((resolve) => setTimeout(resolve, LISTING_POLL_MS));
    }
  };
  const stop = async () => {
    stopped = true;
    clearInterval(watchdog);
    killWorkers();
    redis.disconnect();
    await server.stop();
  };
  try {
    await new LockScripts(redis, loadPack()).load();
    await seedKeys(redis);
    watchdog = startRedissonWatchdog(redis);
    const crash = await startWorkers(server.url);
    const contended = new Set(Object.values(WORKER_PLANS).flatMap((plan) => plan.locks.map((lock) => lock.key)));
    const queued = Object.entries(WORKER_PLANS)
      .filter(([, plan]) => 'waitMs' in plan)
      .map(([name]) => name);
    const summary = `Redis Locksmith demo
  redis-server  127.0.0.1:${server.port}, throwaway, no password, keyspace notifications on; the lock scripts are loaded
  workers       ${Object.keys(WORKER_PLANS).join(', ')}, contending for ${[...contended].join(', ')}; ${queued.join(' and ')} queue for theirs
${Object.entries(SEEDED_KEYS)
  .map(([key, what]) => `  seeded        ${key}: ${what}`)
  .join('\n')}
`;
    return { connectionUrl: `redis://127.0.0.1:${server.port}/0`, crash, summary, firstListing, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface DemoEditor {
  server: CodeServer;
  /** The workbench URL that opens the workspace with the extension in development mode. */
  url: string;
}

/** code-server on the workspace, with the extension loaded as under development (as test/vscode/run.ts does, without the tests). */
export async function startEditor(workspace: string, settings: Record<string, unknown>): Promise<DemoEditor> {
  const server = await startCodeServer({ workspace, userSettings: settings });
  const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${ROOT}`]];
  const url = `${server.url}?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return { server, url };
}

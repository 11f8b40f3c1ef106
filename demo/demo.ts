// `npm run demo`: a throwaway redis-server with the pack loaded, workers contending for locks
// through it, one key of every kind the Locks view tells apart, and the extension (development
// mode) connected to it: in code-server on 127.0.0.1, printing the URL to open, or with
// --desktop in desktop VS Code. Ctrl-C, SIGTERM, or the npm that started it going away stops all
// of it and removes its temp folders.
//   node --import tsx demo/demo.ts [--desktop]     (after npm run build)
// The Redis has no password: SecretStorage, where the extension keeps passwords, cannot be
// filled from outside the editor.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { atExit } from '../harness/atExit';
import { findOnPath } from '../harness/onPath';
import { watchLaunchers } from './launchers';
import { DOOMED_WORKER, KILL_AFTER_MS, WORKER_PLANS } from './scenario';
import {
  checkBuilt,
  createWorkspace,
  DEMO_CONNECTION_NAME,
  editorSettings,
  ROOT,
  scheduleCrashAfterListing,
  startEditor,
  startScenario,
  type Crash,
} from './start';

const CODE_HINT =
  "install VS Code and its `code` command (Command Palette: Shell Command: Install 'code' command in PATH), or run the demo without --desktop to use code-server in a browser";

/** What the demo starts itself besides the scenario (the harnesses stop redis-server and code-server on their own exit hooks). */
const started = {
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

function whatToLookAt({ held }: Crash): string {
  const [queued] = WORKER_PLANS['api-1'].locks;
  return `Click the Redis Locksmith icon (a padlock) in the activity bar. The Locks view lists, under
"${DEMO_CONNECTION_NAME}", every lock with its owner (host#pid) and TTL: TTLs count down and go back
up when a worker extends its lease. api-1 and api-2 queue for ${queued.key}: one holds it, the other
waits ("1 waiting"), and each release wakes the waiter, which takes it at once. Lock Scripts, below,
shows the pack loaded. ${KILL_AFTER_MS / 1000} s after the view first lists the locks, ${DOOMED_WORKER}
is SIGKILLed while it holds ${held}: watch its lease run out in the Lock Timeline.`;
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
  checkBuilt('npm run demo');

  atExit(stopStarted);
  // `npm run demo` killed (even with SIGKILL, which npm cannot pass on): everything stops with it.
  watchLaunchers(() => {
    console.log('demo: npm run demo was stopped; stopping everything it started');
    process.exit(143);
  });
  const scratch = (started.scratch = mkdtempSync(join(tmpdir(), 'locksmith-demo-')));
  const workspace = createWorkspace(scratch);
  const scenario = await startScenario();
  const { connectionUrl, crash, summary } = scenario;
  console.log(summary);
  const settings = editorSettings(connectionUrl);

  if (code) {
    console.log(
      `Starting VS Code with the extension in development mode and throwaway user data.\n${whatToLookAt(crash)}\nClose the window or press Ctrl-C to stop.\n`,
    );
    scheduleCrashAfterListing(scenario);
    await runDesktop(code, scratch, workspace, settings);
    console.log('VS Code closed: the demo stops.');
    return;
  }
  const editor = await startEditor(workspace, settings);
  console.log(`Open this URL (code-server on 127.0.0.1:${editor.server.port}; from another machine, forward that same port):

  ${editor.url}

${whatToLookAt(crash)}
Ctrl-C stops everything.
`);
  scheduleCrashAfterListing(scenario);
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

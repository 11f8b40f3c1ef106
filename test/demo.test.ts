// The demo: its SIGKILL comes a fixed time after the Locks view first lists the locks (its first
// SCAN), however late someone opens it; two workers queue on one lock, so the waiters column and
// the handoff are there to see; and killing the npm that runs it stops all it started: the demo,
// its Redis, its workers and code-server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import Redis from 'ioredis';
import { launchersOf } from '../demo/launchers';
import { WORKER_PLANS } from '../demo/scenario';
import { scheduleCrashAfterListing, startScenario } from '../demo/start';
import { DEFAULT_LOCK_PATTERNS, discoverLocks } from '../extension/src/locks/discovery';
import { waitersKey } from '../pack/layout';
import { sleep } from './helpers';

const ROOT = join(__dirname, '..');

/** Polls `done` every 250 ms (it runs ps and reads Redis: no faster); fails naming `what`. */
async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await done()); await sleep(250)) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
  }
}

test('the launchers of a process: the npm and `sh -c` processes above it, nearest first, up to the first other', () => {
  const table = [
    '  1     0 /sbin/init',
    '  50    1 -bash',
    '  60   50 npm run demo',
    '  70   60 sh -c npm run build && node --import tsx demo/demo.ts',
    '  80   70 node --import tsx demo/demo.ts',
    '  90   80 node demo/worker.ts',
  ].join('\n');
  assert.deepEqual(launchersOf(80, table), [70, 60]);
  assert.deepEqual(launchersOf(90, table), [], 'the demo itself is not a launcher');
  assert.deepEqual(launchersOf(50, table), []);
});

test('the SIGKILL waits for the first listing; two workers queue on one lock and hand it over', async (t) => {
  const scenario = await startScenario();
  t.after(() => scenario.stop());
  const redis = new Redis(scenario.connectionUrl);
  t.after(() => redis.disconnect());
  const cancel = scheduleCrashAfterListing(scenario, 300);
  t.after(cancel);
  const { doomed } = scenario.crash;
  await sleep(1_500);
  assert.equal(doomed.signalCode, null, 'nobody listed the locks yet: the holder lives');
  // What the Locks view does first when it shows the connection.
  await discoverLocks(redis, { patterns: DEFAULT_LOCK_PATTERNS });
  const exited = once(doomed, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const [, signal] = await Promise.race([exited, sleep(5_000).then(() => [null, null] as const)]);
  assert.equal(signal, 'SIGKILL', 'killed soon after the first listing');

  const [queued] = WORKER_PLANS['api-1'].locks;
  const holders = new Set<string>();
  let mostWaiting = 0;
  await until(
    'a waiter queued and both workers held the lock',
    async () => {
      const [owner, waiting] = await Promise.all([redis.get(queued.key), redis.zcard(waitersKey(queued.key)!)]);
      if (owner) holders.add(owner.split(':').slice(0, 2).join(':'));
      mostWaiting = Math.max(mostWaiting, waiting);
      return mostWaiting >= 1 && holders.size >= 2;
    },
    30_000,
  );
});

/** Whether something listens on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const workersOf = (redisPort: number) =>
  execFileSync('ps', ['-A', '-o', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('demo/worker.ts') && line.includes(`127.0.0.1:${redisPort}`));

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`${signal} to the npm running the demo stops the demo, Redis, the workers and code-server`, async (t) => {
    // Its own process group, as a terminal's job: whatever outlives a failed test is stopped with it
    // (SIGTERM: the demo's exit hooks stop code-server, which has a group of its own).
    const npm = spawn('npm', ['run', 'demo:start'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    t.after(async () => {
      for (const last of ['SIGTERM', 'SIGKILL'] as const) {
        try {
          process.kill(-npm.pid!, last);
        } catch {
          return; // the group is gone
        }
        await sleep(3_000);
      }
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until('the demo to print its URL', () => output.includes('Open this URL'), 120_000);
    const redisPort = Number(/redis-server\s+127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
    const editorPort = Number(/code-server on 127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
    assert.ok(redisPort && editorPort, output);
    assert.ok(await listening(redisPort));
    assert.ok(await listening(editorPort));
    assert.ok(workersOf(redisPort).length >= 2, 'the workers run');

    npm.kill(signal);
    await until(
      'the demo to stop everything',
      async () => !(await listening(redisPort)) && !(await listening(editorPort)) && !workersOf(redisPort).length,
      20_000,
    );
  });
}

// One demo worker: contends for its plan's locks through the pack, as an application would.
// Forked by demo.ts with an IPC channel:
//   node --import tsx demo/worker.ts <redis-url> <worker-name>
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { WORKER_PLANS, type DemoLock, type HoldingMessage, type WorkerName, type WorkerPlan } from './scenario';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = ([min, max]: [number, number]) => min + Math.random() * (max - min);

/** Holds `lock` for `holdMs`, extending it every ttl/3 so it outlives its TTL; false when the lease was lost. */
async function hold(
  locks: LockScripts,
  lock: DemoLock,
  token: string,
  plan: WorkerPlan,
  holdMs: number,
): Promise<boolean> {
  const until = Date.now() + holdMs;
  for (let left = holdMs; left > 0; left = until - Date.now()) {
    await sleep(Math.min(plan.ttlMs / 3, left));
    if (until - Date.now() > 0 && !(await locks.extend(lock.key, token, plan.ttlMs))) return false;
  }
  return true;
}

async function work(url: string, name: WorkerName): Promise<never> {
  const plan: WorkerPlan = WORKER_PLANS[name];
  const locks = new LockScripts(new Redis(url), loadPack());
  const token = `${hostname()}:${process.pid}:${randomBytes(8).toString('hex')}`;
  for (;;) {
    const lock = plan.locks[Math.floor(Math.random() * plan.locks.length)];
    if ((await locks.acquire(lock.key, token, plan.ttlMs, { fence: lock.fence, waitMs: plan.waitMs })) !== 0) {
      process.send?.({ holding: lock.key } satisfies HoldingMessage);
      const holdMs = plan.holdMs === 'until killed' ? Infinity : between(plan.holdMs);
      if (await hold(locks, lock, token, plan, holdMs)) await locks.release(lock.key, token);
      else console.error(`demo worker ${name}: lost ${lock.key} before it was done`);
    }
    await sleep(between(plan.pauseMs));
  }
}

const [url, name] = process.argv.slice(2);
if (!url || !(name in WORKER_PLANS)) {
  console.error(`usage: node --import tsx demo/worker.ts <redis-url> <${Object.keys(WORKER_PLANS).join('|')}>`);
  process.exit(2);
}
// Never outlive the demo, however it ended.
process.on('disconnect', () => process.exit(0));
work(url, name as WorkerName).catch((error: unknown) => {
  console.error(`demo worker ${name}:`, error);
  process.exit(1);
});

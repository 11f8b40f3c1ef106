// Soak: 100,000 contended acquisitions of one key by 20 clients (own connection each) through the
// waiting acquire (the one-hop handoff), on Redis 7.0 and Valkey 9, while contenders in processes
// of their own join the queue and are SIGKILLed there, mid-queue, one every `--kill-every` ms (a
// new one takes its place). Each holder checks an occupancy counter, an owner key and a
// read-modify-write counter in Redis inside its critical section; any overlap fails the run.
//   npm run bench:soak -- [--acquisitions 100000] [--clients 20] [--processes 3] [--kill-every 1000] [--handoff confirmed|wake] [--servers redis,valkey]
import { parseArgs } from 'node:util';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { spawnLockWaiter, type LockWaiterProcess } from '../harness/lock-waiter';
import { SERVER_KINDS, startRedis, type ServerKind } from '../harness/redis';

const PACK = loadPack();
const KEY = 'soak:lock';
/** lock-waiter-process.ts writes its token here while it holds the lock; so do the clients here. */
const OWNER = `${KEY}:owner`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SoakOptions {
  acquisitions: number;
  clients: number;
  processes: number;
  killEveryMs: number;
  /** How the clients here take a lock handed to them (the processes: the default, 'confirmed'). */
  handoff: 'wake' | 'confirmed';
}

/** Keeps `count` waiter processes contending, and SIGKILLs one that is waiting every `everyMs`. */
function killer(port: number, count: number, everyMs: number) {
  const stats = { spawned: 0, killedWaiting: 0, killedHolding: 0, acquisitions: 0, overlaps: 0 };
  const spawnOne = () => {
    stats.spawned++;
    return spawnLockWaiter(port, KEY, `process-${stats.spawned}`, { ttlMs: 2000, holdMs: 1, rounds: 0 });
  };
  const living: LockWaiterProcess[] = Array.from({ length: count }, spawnOne);
  let running = count > 0;
  const tally = (waiter: LockWaiterProcess) => {
    stats.acquisitions += waiter.lines.filter((line) => line.startsWith('holding ')).length;
    stats.overlaps += waiter.lines.filter((line) => line.startsWith('overlap ')).length;
  };
  const loop = (async () => {
    while (running) {
      await sleep(everyMs);
      const waiting = living.filter((waiter) => waiter.lines.at(-1)?.startsWith('waiting '));
      if (!running || waiting.length === 0) continue;
      const victim = waiting[Math.floor(Math.random() * waiting.length)];
      await victim.kill();
      // Between the choice and the kill it may have been handed the lock.
      if (victim.lines.at(-1)?.startsWith('holding ')) stats.killedHolding++;
      else stats.killedWaiting++;
      tally(victim);
      living.splice(living.indexOf(victim), 1, spawnOne());
    }
  })();
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    running = false;
    await loop;
    for (const waiter of living) {
      await waiter.kill();
      tally(waiter);
    }
  };
  return { stats, stop: () => (stopped ??= stop()) };
}

async function soak(kind: ServerKind, options: SoakOptions): Promise<boolean> {
  const server = await startRedis({ server: kind });
  const admin = server.client();
  const processes = killer(server.port, options.processes, options.killEveryMs);
  try {
    let inside = 0;
    let overlaps = 0;
    let lost = 0;
    let done = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.clients }, async (_, id) => {
        const redis = server.client();
        const locks = new LockScripts(redis, PACK);
        try {
          for (let round = 0; done < options.acquisitions; round++) {
            const token = `client-${id}:${round}`;
            const waiting = { waitMs: 60_000, handoff: options.handoff };
            if ((await locks.acquire(KEY, token, 10_000, waiting)) === 0) throw new Error('waited 60 s');
            if (++inside > 1) overlaps++;
            await redis.set(OWNER, token);
            // A read-modify-write over two round trips: only the lock keeps the count exact.
            const value = Number(await redis.get('soak:counter'));
            await redis.set('soak:counter', value + 1);
            // A holder in another process meanwhile would have written its own token.
            if ((await redis.get(OWNER)) !== token) overlaps++;
            inside--;
            done++;
            if (!(await locks.release(KEY, token))) lost++;
          }
        } finally {
          locks.close();
          redis.disconnect();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await processes.stop();
    const { stats } = processes;
    const counter = Number(await admin.get('soak:counter'));
    const ok = overlaps === 0 && stats.overlaps === 0 && lost === 0 && counter === done;
    console.log(
      `${kind} (handoff '${options.handoff}'): ${done} acquisitions by ${options.clients} clients in ${seconds.toFixed(1)} s (${(done / seconds).toFixed(0)}/s), ` +
        `and ${stats.acquisitions} by ${stats.spawned} processes, ${stats.killedWaiting} of them SIGKILLed while queued ` +
        `(${stats.killedHolding} while holding); overlaps ${overlaps + stats.overlaps}, leases lost ${lost}, ` +
        `counter ${counter} (${counter === done ? 'exact' : 'WRONG'}): ${ok ? 'ok' : 'FAILED'}`,
    );
    return ok;
  } finally {
    await processes.stop();
    admin.disconnect();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      acquisitions: { type: 'string', default: '100000' },
      clients: { type: 'string', default: '20' },
      processes: { type: 'string', default: '3' },
      'kill-every': { type: 'string', default: '1000' },
      handoff: { type: 'string', default: 'confirmed' },
      servers: { type: 'string', default: SERVER_KINDS.join(',') },
    },
  });
  const options: SoakOptions = {
    acquisitions: Number(values.acquisitions),
    clients: Number(values.clients),
    processes: Number(values.processes),
    killEveryMs: Number(values['kill-every']),
    handoff: values.handoff === 'wake' ? 'wake' : 'confirmed',
  };
  let ok = true;
  for (const kind of values.servers.split(',') as ServerKind[]) ok = (await soak(kind, options)) && ok;
  if (!ok) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

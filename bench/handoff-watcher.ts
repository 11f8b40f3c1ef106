// bench/handoff.ts's watcher of the lock key, in a worker thread: the server's keyspace
// notifications of the key (`set` when it is taken or handed over, `del` or `expired` when it is
// free), timed as they arrive. In a thread of its own so that parsing them does not take turns
// with the contenders' wake-ups and replies in their event loop, as it did when the watcher
// shared it (about 2 notifications per acquisition). Told 'stop', it posts the spans the key
// existed and exits: in ms of process.hrtime, the clock every thread of the process shares (a
// worker's performance.timeOrigin is its own), the last span open: Infinity.
import { parentPort, workerData } from 'node:worker_threads';
import Redis from 'ioredis';

/** What bench/handoff.ts gives the watcher. */
export interface WatcherSetup {
  host: string;
  port: number;
  key: string;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function watch({ host, port, key }: WatcherSetup): Promise<void> {
  const watcher = new Redis({ host, port, lazyConnect: false });
  const held: [number, number][] = [];
  watcher.on('message', (_channel: string, event: string) => {
    const open = held.at(-1)?.[1] === Infinity;
    if (event === 'set' && !open) held.push([now(), Infinity]);
    else if ((event === 'del' || event === 'expired') && open) held.at(-1)![1] = now();
  });
  await watcher.subscribe(`__keyspace@0__:${key}`);
  parentPort!.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    watcher.disconnect();
    parentPort!.postMessage(held);
    parentPort!.close();
  });
  parentPort!.postMessage('subscribed');
}

if (parentPort) void watch(workerData as WatcherSetup);

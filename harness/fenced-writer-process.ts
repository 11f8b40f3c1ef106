// A lock holder in a process of its own, for the paused-holder proof (test/scripts-fenced.test.ts):
// it takes the lock with a fence, prints `holding <fencing token>`, and `delay ms` later (a timer
// that fires late when the process was SIGSTOPped meanwhile) writes the data key both fenced ways
// and prints `wrote <guarded_set reply> <fenced_set reply>`.
//   node --import tsx harness/fenced-writer-process.ts <port> <lock> <fence> <guarded data> <fenced data> <ttl ms> <delay ms>
import Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';

const [port, lock, fence, guarded, fenced, ttl, delay] = process.argv.slice(2);

async function main(): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port: Number(port) });
  const locks = new LockScripts(redis, loadPack(), { native: 'lua' });
  const token = `paused:${process.pid}`;
  const fencing = await locks.acquire(lock, token, Number(ttl), { fence });
  if (fencing === 0) throw new Error(`${lock} is held`);
  console.log(`holding ${fencing}`);
  await new Promise((resolve) => setTimeout(resolve, Number(delay)));
  const wroteGuarded = await locks.fenced.setIfHeld(lock, guarded, token, `from ${token}`);
  const wroteFenced = await locks.fenced.set(fenced, fencing, `from ${token}`);
  console.log(`wrote ${Number(wroteGuarded)} ${Number(wroteFenced)}`);
  locks.close();
  redis.disconnect();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

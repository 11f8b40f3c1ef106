// A contender in a process of its own, so that tests and benchmarks can SIGKILL it while it waits
// in a lock's queue (start it with lock-waiter.ts). It takes the lock `rounds` times (0: until
// killed) with the waiting acquire, holding it `hold ms` with an ownership check, and prints one
// line per event:
//   waiting <token> | holding <token> | overlap <token> | released <token> | lost <token>
//   node --import tsx harness/lock-waiter-process.ts <port> <lock> <token prefix> <ttl ms> <hold ms> <rounds>
import Redis from 'ioredis';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';

const [port, lock, prefix, ttl, hold, rounds] = process.argv.slice(2);
const OWNER = `${lock}:owner`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port: Number(port) });
  const locks = new LockScripts(redis, loadPack());
  for (let round = 0; Number(rounds) === 0 || round < Number(rounds); round++) {
    const token = `${prefix}:${process.pid}:${round}`;
    console.log(`waiting ${token}`);
    if ((await locks.acquire(lock, token, Number(ttl), { waitMs: 600_000 })) === 0) throw new Error('waited 600 s');
    console.log(`holding ${token}`);
    // Whoever else holds the lock meanwhile overwrites the owner: an overlap.
    await redis.set(OWNER, token);
    await sleep(Number(hold));
    if ((await redis.get(OWNER)) !== token) console.log(`overlap ${token}`);
    console.log(`${(await locks.release(lock, token)) ? 'released' : 'lost'} ${token}`);
  }
  locks.close();
  redis.disconnect();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

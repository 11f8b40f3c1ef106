// Soak: 100,000 contended acquisitions of one key by 20 clients (own connection each) through the
// waiting acquire, on Redis 7.0 and Valkey 9. Each holder checks an occupancy counter and a
// read-modify-write counter in Redis inside its critical section; any overlap fails the run.
//   npm run bench:soak -- [--acquisitions 100000] [--clients 20] [--servers redis,valkey]
import { parseArgs } from 'node:util';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, startRedis, type ServerKind } from '../test/harness/redis';

const PACK = loadPack();
const KEY = 'soak:lock';

async function soak(kind: ServerKind, acquisitions: number, clients: number): Promise<boolean> {
  const server = await startRedis({ server: kind });
  const admin = server.client();
  try {
    let inside = 0;
    let overlaps = 0;
    let lost = 0;
    let done = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, id) => {
        const redis = server.client();
        const locks = new LockScripts(redis, PACK);
        try {
          for (let round = 0; done < acquisitions; round++) {
            const token = `client-${id}:${round}`;
            if ((await locks.acquire(KEY, token, 10_000, { waitMs: 60_000 })) === 0) throw new Error('waited 60 s');
            if (++inside > 1) overlaps++;
            // A read-modify-write over two round trips: only the lock keeps the count exact.
            const value = Number(await redis.get('soak:counter'));
            await redis.set('soak:counter', value + 1);
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
    const counter = Number(await admin.get('soak:counter'));
    const ok = overlaps === 0 && lost === 0 && counter === done;
    console.log(
      `${kind}: ${done} acquisitions by ${clients} clients in ${seconds.toFixed(1)} s (${(done / seconds).toFixed(0)}/s); overlaps ${overlaps}, leases lost ${lost}, counter ${counter} (${counter === done ? 'exact' : 'WRONG'}): ${ok ? 'ok' : 'FAILED'}`,
    );
    return ok;
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      acquisitions: { type: 'string', default: '100000' },
      clients: { type: 'string', default: '20' },
      servers: { type: 'string', default: SERVER_KINDS.join(',') },
    },
  });
  let ok = true;
  for (const kind of values.servers.split(',') as ServerKind[]) {
    ok = (await soak(kind, Number(values.acquisitions), Number(values.clients))) && ok;
  }
  if (!ok) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

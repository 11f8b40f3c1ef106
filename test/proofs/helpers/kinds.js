// Proof modes of the JavaScript helpers (ioredis and node-redis) for waiting and the lock kinds,
// shared by ioredis.js and node-redis.js, which pass their helper and a few plain commands:
//   woken <kind>      waits (retry bound 30 s) for a lock the test holds; prints `held <epoch ms>`
//   reentrant <n>     n rounds around a counter, each re-entering the lock once
//   rw-reader <n>     n read holds of 10 ms, flagging overlap with other readers and any writer
//   rw-writer <n>     n write holds around a non-atomic counter, alone
//   semaphore <n>     n holds of one of 2 permits, flagging more than 2 holders
//   hold <kind>       takes a kind with a 1 s lease ($PROOF_HOLD_MS), prints `held`, then waits to be killed
//   take <kind>       takes a kind (waiting up to 10 s), prints `took <epoch ms>`
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** commands: { incr, decr, get, set, hget } on the proof's own connection. */
function kindModes(helper, redis, commands, rounds) {
  const { acquire, acquireRead, acquireWrite, acquireSemaphore, withLock, withReadLock, withWriteLock, withSemaphore } =
    helper;
  const take = (kind, options) => {
    if (kind === 'lock') return acquire(redis, 'proof:lock', options);
    if (kind === 'reentrant') return acquire(redis, 'proof:lock', { ...options, reentrant: true });
    if (kind === 'read') return acquireRead(redis, 'proof:lock', options);
    if (kind === 'write') return acquireWrite(redis, 'proof:lock', options);
    if (kind === 'semaphore') return acquireSemaphore(redis, 'proof:lock', { ...options, permits: 1 });
    throw new Error(`no kind ${kind}`);
  };
  const count = async (key) => Number(await commands.get(key));
  return {
    async woken(kind) {
      const lease = await take(kind, { ttlMs: 5000, waitMs: 60_000, retryMs: 30_000 });
      console.log(`held ${Date.now()}`);
      await lease.release();
    },
    async reentrant() {
      for (let round = 0; round < rounds; round++) {
        await withLock(redis, 'proof:lock', { ttlMs: 5000, waitMs: 60_000, reentrant: true }, async (outer) => {
          if ((await commands.incr('proof:occupancy')) !== 1) throw new Error('two holders at once');
          await withLock(redis, 'proof:lock', { ttlMs: 5000, reentrant: true }, async (inner) => {
            if (inner.token !== outer.token) throw new Error('the nested take did not re-enter');
            if ((await commands.hget('proof:lock', outer.token)) !== '2') throw new Error('hold count is not 2');
            await commands.set('proof:counter', (await count('proof:counter')) + 1);
          });
          if ((await commands.hget('proof:lock', outer.token)) !== '1') throw new Error('hold count is not back to 1');
          await commands.decr('proof:occupancy');
        });
      }
    },
    async 'rw-reader'() {
      for (let round = 0; round < rounds; round++) {
        await withReadLock(redis, 'proof:rw', { ttlMs: 5000, waitMs: 60_000 }, async () => {
          if ((await commands.incr('proof:readers')) > 1) await commands.set('proof:overlap', '1');
          if ((await count('proof:writers')) !== 0) throw new Error('read while a writer held the lock');
          await sleep(10);
          await commands.decr('proof:readers');
        });
      }
    },
    async 'rw-writer'() {
      for (let round = 0; round < rounds; round++) {
        await withWriteLock(redis, 'proof:rw', { ttlMs: 5000, waitMs: 60_000 }, async () => {
          if ((await commands.incr('proof:writers')) !== 1) throw new Error('two writers at once');
          if ((await count('proof:readers')) !== 0) throw new Error('wrote while a reader held the lock');
          await commands.set('proof:counter', (await count('proof:counter')) + 1);
          await commands.decr('proof:writers');
        });
      }
    },
    async semaphore() {
      for (let round = 0; round < rounds; round++) {
        await withSemaphore(redis, 'proof:sem', { permits: 2, ttlMs: 5000, waitMs: 60_000 }, async () => {
          const holders = await commands.incr('proof:holders');
          if (holders > 2) throw new Error(`${holders} holders of 2 permits`);
          if (holders === 2) await commands.set('proof:full', '1');
          await sleep(5);
          await commands.decr('proof:holders');
        });
      }
    },
    async hold(kind) {
      await take(kind, { ttlMs: Number(process.env.PROOF_HOLD_MS ?? 1000), waitMs: 0 });
      console.log('held');
      await sleep(60_000);
    },
    async take(kind) {
      const lease = await take(kind, { ttlMs: 5000, waitMs: 10_000 });
      console.log(`took ${Date.now()}`);
      await lease.release();
    },
  };
}

module.exports = { kindModes };

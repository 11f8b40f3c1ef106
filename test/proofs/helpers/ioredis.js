// Proof program for the generated ioredis helper (./locksmith.js next to it). Usage:
//   node proof.js <redis-url or cluster://host:port,...> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy,
//   and those of kinds.js and parts.js.
const Redis = require(process.env.IOREDIS_PATH);
const helper = require('./locksmith');
const { kindModes } = require('./kinds');
const { partModes } = require('./parts');

const { acquire, withLock, LockBusyError, LeaseLostError } = helper;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const [url, mode, rounds = '1'] = process.argv.slice(2);
// cluster://host:port,host:port: a Cluster, through ioredis's cluster client.
const seeds = url.startsWith('cluster://') ? url.slice('cluster://'.length).split(',') : undefined;
const redis = seeds
  ? new Redis.Cluster(seeds.map((seed) => ({ host: seed.split(':')[0], port: Number(seed.split(':')[1]) })))
  : new Redis(url);

const commands = {
  incr: (key) => redis.incr(key),
  decr: (key) => redis.decr(key),
  get: (key) => redis.get(key),
  set: (key, value) => redis.set(key, value),
  hget: (key, field) => redis.hget(key, field),
};
const connect = async (url) => {
  const other = new Redis(url);
  return { get: (key) => other.get(key), close: () => other.quit() };
};
const modes = {
  ...kindModes(helper, redis, commands, Number(rounds)),
  ...partModes(helper, redis, commands, connect),
  async counter() {
    for (let round = 0; round < Number(rounds); round++) {
      await withLock(redis, 'proof:lock', { ttlMs: 30_000, waitMs: 60_000 }, async () => {
        if ((await redis.incr('proof:occupancy')) !== 1) throw new Error('two holders at once');
        const value = Number(await redis.get('proof:counter'));
        await redis.set('proof:counter', value + 1);
        await redis.script('FLUSH'); // the next script call of either process takes the NOSCRIPT path
        await redis.decr('proof:occupancy');
      });
    }
  },
  async renew() {
    const lease = await acquire(redis, 'proof:lock', { ttlMs: 1500, renew: true });
    for (let step = 0; step < 50; step++) {
      await sleep(100);
      if ((await redis.get('proof:lock')) !== lease.token) throw new Error('lease lost while renewing');
    }
    if (lease.signal.aborted) throw new Error(`renewal reported a loss: ${lease.signal.reason}`);
    if (!(await lease.release())) throw new Error('release found the lease gone');
    await redis.set('proof:lock', lease.token); // no TTL: a renewal after release would add one
    await sleep(1500);
    if ((await redis.pttl('proof:lock')) !== -1) throw new Error('still renewing after release');
    await redis.del('proof:lock');
    console.log('renewed');
  },
  async steal() {
    const lease = await acquire(redis, 'proof:lock', { ttlMs: 900, renew: true });
    console.log('held');
    const reason = await new Promise((resolve, reject) => {
      lease.signal.addEventListener('abort', () => resolve(lease.signal.reason));
      setTimeout(() => reject(new Error('no loss reported within 5 s')), 5000).unref();
    });
    const at = Date.now();
    if (!(reason instanceof LeaseLostError)) throw new Error(`lost for ${reason}`);
    if (await lease.release()) throw new Error('released a stolen lock');
    console.log(`lost ${at}`);
  },
  async fence() {
    for (let round = 0; round < Number(rounds); round++) {
      await withLock(redis, 'proof:lock', { ttlMs: 5000, waitMs: 60_000, fenceKey: 'proof:fence' }, async (lease) => {
        await sleep(5);
        await redis.rpush('proof:tokens', String(lease.fence));
      });
    }
  },
  async busy() {
    const started = Date.now();
    try {
      await acquire(redis, 'proof:lock', { ttlMs: 5000, waitMs: 500 });
    } catch (error) {
      if (!(error instanceof LockBusyError)) throw error;
      console.log(`busy ${Date.now() - started} ${error.message}`);
      return;
    }
    throw new Error('acquired a lock another owner holds');
  },
};

modes[mode](rounds)
  .then(() => redis.quit())
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });

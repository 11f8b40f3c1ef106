// Proof program for the generated Valkey GLIDE for Node helper (./locksmith.js next to it, GLIDE in
// ./node_modules as a user's project has it). Usage:
//   node proof.js <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and
//   those of kinds.js and parts.js (replica, fenced). <url> is a redis:// URL (a GlideClient), or cluster://host:port,host:port (a
//   GlideClusterClient, given to enableWakeups when the helper has its wakeups part; the lock and fence keys from PROOF_LOCK
//   and PROOF_FENCE).
const { GlideClient, GlideClusterClient } = require('@valkey/valkey-glide');
const helper = require('./locksmith');
const { kindModes } = require('./kinds');
const { partModes } = require('./parts');

const { acquire, withLock, enableWakeups, LockBusyError, LeaseLostError } = helper;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const [url, mode, rounds = '1'] = process.argv.slice(2);
const lockKey = process.env.PROOF_LOCK ?? 'proof:lock';
const fenceKey = process.env.PROOF_FENCE ?? 'proof:fence';
const seeds = url.startsWith('cluster://') ? url.slice('cluster://'.length).split(',') : undefined;

// GLIDE's default request timeout (250 ms) and connection timeout (2 s) are shorter than a shared
// 2-core machine running 20 of these processes and 3 masters can answer in: a timed-out call
// throws, as it would for a user.
const requestTimeout = 5000;
const advancedConfiguration = { connectionTimeout: 5000 };

async function connect() {
  if (seeds === undefined) {
    const { hostname, port } = new URL(url);
    return GlideClient.createClient({
      addresses: [{ host: hostname, port: Number(port) }],
      requestTimeout,
      advancedConfiguration,
    });
  }
  const configuration = {
    addresses: seeds.map((seed) => ({ host: seed.split(':')[0], port: Number(seed.split(':')[1]) })),
    requestTimeout,
    advancedConfiguration,
  };
  const client = await GlideClusterClient.createClient(configuration);
  enableWakeups?.(client, configuration); // the wakeups part's: without it, waiters poll
  return client;
}

function modes(client) {
  const commands = {
    incr: (key) => client.incr(key),
    decr: (key) => client.decr(key),
    get: (key) => client.get(key),
    set: (key, value) => client.set(key, String(value)),
    hget: (key, field) => client.hget(key, field),
  };
  // The next script call of every process takes the NOSCRIPT path (every master of a cluster).
  const flushScripts = () =>
    seeds === undefined ? client.scriptFlush() : client.scriptFlush({ route: 'allPrimaries' });
  const kinds = kindModes(helper, client, commands, Number(rounds));
  // A GlideClient needs a primary among its addresses: the replica's reads go with the master's
  // address and readFrom preferReplica (the master has this one replica).
  const connectReplica = async (replicaUrl) => {
    const addresses = [replicaUrl, url].map((each) => ({
      host: new URL(each).hostname,
      port: Number(new URL(each).port),
    }));
    const replica = await GlideClient.createClient({
      addresses,
      readFrom: 'preferReplica',
      requestTimeout,
      advancedConfiguration,
    });
    return { get: (key) => replica.get(key), close: () => replica.close() };
  };
  return {
    ...kinds,
    ...partModes(helper, client, commands, connectReplica),
    async counter() {
      for (let round = 0; round < Number(rounds); round++) {
        await withLock(client, lockKey, { ttlMs: 30_000, waitMs: 60_000 }, async () => {
          if ((await client.incr('proof:occupancy')) !== 1) throw new Error('two holders at once');
          const value = Number(await client.get('proof:counter'));
          await client.set('proof:counter', String(value + 1));
          await flushScripts();
          await client.decr('proof:occupancy');
        });
      }
    },
    async renew() {
      const lease = await acquire(client, lockKey, { ttlMs: 1500, renew: true });
      for (let step = 0; step < 50; step++) {
        await sleep(100);
        if ((await client.get(lockKey)) !== lease.token) throw new Error('lease lost while renewing');
      }
      if (lease.signal.aborted) throw new Error(`renewal reported a loss: ${lease.signal.reason}`);
      if (!(await lease.release())) throw new Error('release found the lease gone');
      await client.set(lockKey, lease.token); // no TTL: a renewal after release would add one
      await sleep(1500);
      if ((await client.pttl(lockKey)) !== -1) throw new Error('still renewing after release');
      await client.del([lockKey]);
      console.log('renewed');
    },
    async steal() {
      const lease = await acquire(client, lockKey, { ttlMs: 900, renew: true });
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
        await withLock(client, lockKey, { ttlMs: 5000, waitMs: 60_000, fenceKey }, async (lease) => {
          await sleep(5);
          await client.rpush('proof:tokens', [String(lease.fence)]);
        });
      }
    },
    async busy() {
      const started = Date.now();
      try {
        await acquire(client, lockKey, { ttlMs: 5000, waitMs: 500 });
      } catch (error) {
        if (!(error instanceof LockBusyError)) throw error;
        console.log(`busy ${Date.now() - started} ${error.message}`);
        return;
      }
      throw new Error('acquired a lock another owner holds');
    },
    // The cluster's lock key has a hash tag: kinds.js's woken takes proof:lock.
    async woken(kind) {
      if (kind !== 'lock') return kinds.woken(kind);
      const lease = await acquire(client, lockKey, { ttlMs: 5000, waitMs: 60_000, retryMs: 30_000 });
      console.log(`held ${Date.now()}`);
      await lease.release();
    },
  };
}

connect()
  .then(async (client) => {
    await modes(client)[mode](rounds);
    client.close();
  })
  .then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );

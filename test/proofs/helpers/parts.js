// Proof modes of the JavaScript helpers' parts (ioredis and node-redis), shared by ioredis.js and
// node-redis.js like kinds.js. Each prints one JSON line for the test to check against the server:
//   replica <case>   waitForReplicas on proof:lock: shortfall, shortfall-waiting, kept, more, fsync, fsync-acked,
//                    bad (every bad setting's message), cut (prints `acquiring`, for the test to
//                    cut its connection during the wait), acked (reads the replica at
//                    $PROOF_REPLICA_URL right after the acquire, with and without the option)
//   fenced <case>    fenced-writes on proof:data (guarded) and proof:fenced (fenced): paused (stops
//                    itself after the acquire, pid in proof:pid, writes once continued), write
//                    (takes the lock, writes both), misuse (the refusals' messages)
//   multi <n>        n transfers between 2 or 3 of 4 accounts under withMultiLock (waiting)
//   multi-try <n>    n such transfers that never wait; prints {busy}; a busy try holds none of its keys
//   give-up          a wait on proof:lock given up 1 ms in; prints {busy}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** commands: { get, ... } on the proof's own connection; connect(url): { get(key), close() } on another server. */
function partModes(helper, redis, commands, connect) {
  const { acquire, ReplicaShortfallError } = helper;
  const failure = async (promise) => {
    try {
      await promise;
    } catch (error) {
      const { name, message, shortfall, released } = error;
      return { name, message, shortfall, released, isShortfall: error instanceof ReplicaShortfallError };
    }
    throw new Error('acquired: no shortfall');
  };
  const cases = {
    shortfall: () =>
      failure(acquire(redis, 'proof:lock', { ttlMs: 10_000, waitMs: 0, waitForReplicas: { timeoutMs: 50 } })),
    'shortfall-waiting': () =>
      failure(
        acquire(redis, 'proof:lock', { ttlMs: 10_000, waitMs: 2000, waitForReplicas: { replicas: 1, timeoutMs: 50 } }),
      ),
    more: () =>
      failure(
        acquire(redis, 'proof:lock', { ttlMs: 10_000, waitMs: 0, waitForReplicas: { replicas: 2, timeoutMs: 100 } }),
      ),
    async 'fsync-acked'() {
      const lease = await acquire(redis, 'proof:lock', {
        ttlMs: 10_000,
        waitForReplicas: { fsync: true, timeoutMs: 5000 },
      });
      return { token: lease.token };
    },
    fsync: () =>
      failure(
        acquire(redis, 'proof:lock', {
          ttlMs: 10_000,
          waitForReplicas: { fsync: true, onShortfall: () => console.log('onShortfall called for a misconfiguration') },
        }),
      ),
    async kept() {
      const seen = [];
      const lease = await acquire(redis, 'proof:lock', {
        ttlMs: 10_000,
        waitMs: 0,
        fenceKey: 'proof:fence',
        waitForReplicas: { timeoutMs: 50, onShortfall: (shortfall) => seen.push(shortfall) },
      });
      return { seen, token: lease.token, fence: lease.fence };
    },
    async bad() {
      const settings = [
        true,
        { replicas: 0 },
        { replicas: 1.5 },
        { timeoutMs: 0 },
        { timeoutMs: 1000 },
        { fsync: 'yes' },
        { onShortfall: 'keep' },
      ];
      const messages = [];
      for (const waitForReplicas of settings) {
        const { name, message } = await failure(acquire(redis, 'proof:lock', { ttlMs: 1000, waitForReplicas }));
        messages.push(`${name}: ${message}`);
      }
      return { messages };
    },
    async cut() {
      await commands.get('proof:warm'); // connected: the acquire goes out as the line is printed
      console.log('acquiring');
      return failure(acquire(redis, 'proof:lock', { ttlMs: 60_000, waitMs: 0, waitForReplicas: { timeoutMs: 5000 } }));
    },
    async acked() {
      const replica = await connect(process.env.PROOF_REPLICA_URL);
      try {
        const plain = await acquire(redis, 'proof:plain', { ttlMs: 10_000, waitMs: 0 });
        const plainOnReplica = await replica.get('proof:plain');
        const options = { ttlMs: 10_000, waitMs: 1000, fenceKey: 'proof:fence', waitForReplicas: { timeoutMs: 5000 } };
        const lease = await acquire(redis, 'proof:lock', options);
        const onReplica = await replica.get('proof:lock');
        const fenceOnReplica = await replica.get('proof:fence');
        await plain.release();
        await lease.release();
        return {
          plain: { token: plain.token, onReplica: plainOnReplica },
          token: lease.token,
          fence: lease.fence,
          onReplica,
          fenceOnReplica,
        };
      } finally {
        await replica.close();
      }
    },
  };
  const writes = {
    // Kleppmann's paused holder: it stops itself right after the acquire; the test resumes it past its lease.
    async paused() {
      const lease = await acquire(redis, 'proof:lock', { ttlMs: 300, waitMs: 0, fenceKey: 'proof:fence' });
      await commands.set('proof:pid', String(process.pid));
      process.kill(process.pid, 'SIGSTOP');
      const guarded = await lease.setIfHeld('proof:data', 'the paused holder');
      const fenced = await lease.setFenced('proof:fenced', 'the paused holder');
      return { fence: lease.fence, guarded, fenced };
    },
    async write() {
      const lease = await acquire(redis, 'proof:lock', { ttlMs: 5000, waitMs: 5000, fenceKey: 'proof:fence' });
      const guarded = await lease.setIfHeld('proof:data', `fence ${lease.fence}`);
      const fenced = await lease.setFenced('proof:fenced', `fence ${lease.fence}`);
      await lease.release();
      return { fence: lease.fence, guarded, fenced };
    },
    async misuse() {
      const messages = [];
      const refused = async (write) => {
        try {
          await write();
          messages.push('written');
        } catch (error) {
          messages.push(`${error.name}: ${error.message}`);
        }
      };
      const plain = await acquire(redis, 'proof:lock', { ttlMs: 5000, waitMs: 0 });
      await refused(() => plain.setFenced('proof:fenced', 'v'));
      await refused(() => plain.setIfHeld('proof:data', ''));
      await refused(() => helper.setFenced(redis, 'proof:fenced', 0, 'v'));
      await plain.release();
      const permit = await helper.acquireSemaphore(redis, 'proof:sem', { permits: 2, ttlMs: 5000, waitMs: 0 });
      await refused(() => permit.setIfHeld('proof:data', 'v'));
      await permit.release();
      return { messages, released: await plain.setIfHeld('proof:data', 'after release') };
    },
  };
  const accounts = ['proof:acct:a', 'proof:acct:b', 'proof:acct:c', 'proof:acct:d'];
  /** Moves 1 from the first to the second of 2 or 3 random accounts, flagging a second holder of any of their locks. */
  const transfer = async () => {
    const picked = [...accounts].sort(() => Math.random() - 0.5).slice(0, 2 + Math.floor(Math.random() * 2));
    const locks = picked.map((account) => `lock:${account}`);
    return [
      locks,
      async () => {
        for (const lock of locks)
          if ((await commands.incr(`${lock}:holders`)) !== 1) throw new Error(`two holders of ${lock}`);
        const [from, to] = picked;
        const [a, b] = [Number(await commands.get(from)), Number(await commands.get(to))];
        await sleep(1);
        await commands.set(from, String(a - 1));
        await commands.set(to, String(b + 1));
        for (const lock of locks) await commands.decr(`${lock}:holders`);
      },
    ];
  };
  const mine = `${require('node:os').hostname()}:${process.pid}:`;
  /**
   * Counts this process in and waits until the test's 3 transfer processes and its tryer all are,
   * so that the tries meet the transfers however late a process starts.
   */
  const allStarted = async () => {
    await commands.incr('proof:multi:started');
    const deadline = Date.now() + 30_000;
    while (Number((await commands.get('proof:multi:started')) ?? 0) < 4) {
      if (Date.now() > deadline) throw new Error('the other transfer processes did not start within 30 s');
      await sleep(1);
    }
  };
  return {
    /** n transfers, each waiting for its 2 or 3 locks. */
    async multi(rounds) {
      await allStarted();
      for (let round = 0; round < Number(rounds); round++) {
        const [locks, move] = await transfer();
        await helper.withMultiLock(redis, locks, { ttlMs: 5000, waitMs: 60_000 }, move);
      }
      await commands.incr('proof:multi:done');
    },
    /**
     * Tries that never wait, 2 ms apart, from when all 4 processes have started until the 3 'multi'
     * ones are done and at least n of them; a busy one must leave none of its keys held by this process.
     */
    async 'multi-try'(rounds) {
      const count = async (key) => Number((await commands.get(key)) ?? 0);
      await allStarted();
      let busy = 0;
      let round = 0;
      for (; round < Number(rounds) || (await count('proof:multi:done')) < 3; round++) {
        await sleep(2);
        const [locks, move] = await transfer();
        const lease = await helper.acquireMulti(redis, locks, { ttlMs: 5000, waitMs: 0 }).catch((error) => {
          if (!(error instanceof helper.LockBusyError)) throw error;
          return null;
        });
        if (lease === null) {
          busy++;
          for (const lock of locks)
            if (((await commands.get(lock)) ?? '').startsWith(mine)) throw new Error(`partial hold of ${lock}`);
          continue;
        }
        await move();
        if (!(await lease.release())) throw new Error('the multi-key lease was lost');
      }
      console.log(JSON.stringify({ busy, tries: round }));
    },
    /**
     * A wait on proof:lock, held by the test, given up 1 ms in, while the waiter's subscription is
     * likely still opening; prints {busy}, and must exit by itself with nothing left open.
     */
    async 'give-up'() {
      const busy = await acquire(redis, 'proof:lock', { ttlMs: 10_000, waitMs: 1, retryMs: 1 }).then(
        () => false,
        (error) => error instanceof helper.LockBusyError,
      );
      console.log(JSON.stringify({ busy }));
    },
    async fenced(name) {
      console.log(JSON.stringify(await writes[name]()));
    },
    async replica(name) {
      console.log(JSON.stringify(await cases[name]()));
      await sleep(0);
    },
  };
}

module.exports = { partModes };

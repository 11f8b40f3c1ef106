// Mutual exclusion under real contention for every kind, and recovery from a holder that dies,
// on Redis 7.0 and Valkey 9. Occupancy counters in Redis check the invariant: at most one holder
// (plain, reentrant, writer), readers only without a writer, at most N semaphore holders.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type Redis from 'ioredis';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { pack, sleep, useRedis } from './helpers';

const CONNECTIONS = 20;

for (const server of SERVER_KINDS) describe(server, () => contention(server));

interface Worker {
  redis: Redis;
  locks: LockScripts;
  id: number;
}

function contention(server: ServerKind): void {
  const fx = useRedis({ server });

  /** Runs `body` on CONNECTIONS connections of their own, each with its own LockScripts. */
  async function onConnections(body: (worker: Worker) => Promise<void>): Promise<void> {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, id) => {
        const redis = fx.server.client();
        const locks = new LockScripts(redis, pack, { retryMs: 50 });
        try {
          await body({ redis, locks, id });
        } finally {
          locks.close();
          redis.disconnect();
        }
      }),
    );
  }

  /** Enters the critical section: INCR the occupancy, check it against `limit`, do a read-modify-write, leave. */
  async function critical(redis: Redis, counter: string, occupancy: string, limit: number, seen: number[]) {
    const inside = await redis.incr(occupancy);
    seen.push(inside);
    assert.ok(inside <= limit, `${inside} holders inside, at most ${limit} allowed`);
    const value = Number(await redis.get(counter));
    await redis.set(counter, value + 1);
    await redis.decr(occupancy);
  }

  test(`plain: ${CONNECTIONS} connections x 200 acquisitions, polling: the counter ends exact`, async (t) => {
    const ROUNDS = 200;
    await fx.redis.del('lock:counter', 'counter', 'occupancy');
    const seen: number[] = [];
    let contended = 0;
    await onConnections(async ({ redis, locks, id }) => {
      for (let round = 0; round < ROUNDS; round++) {
        const token = `worker-${id}#${randomBytes(8).toString('hex')}`;
        while ((await locks.acquire('lock:counter', token, 5000)) === 0) {
          contended++;
          await sleep(Math.random() * 2);
        }
        await critical(redis, 'counter', 'occupancy', 1, seen);
        assert.equal(await locks.release('lock:counter', token), true, 'the lease must not have been lost');
      }
    });
    assert.equal(Number(await fx.redis.get('counter')), CONNECTIONS * ROUNDS);
    assert.equal(Math.max(...seen), 1);
    assert.ok(contended > 0, 'the workers must actually have contended');
    t.diagnostic(`${CONNECTIONS * ROUNDS} acquisitions, ${contended} refused attempts, max occupancy 1`);
  });

  test(`plain, waiting: ${CONNECTIONS} connections x 100 waiting acquisitions, woken by releases`, async (t) => {
    const ROUNDS = 100;
    await fx.redis.del('lock:wait', 'counter:wait', 'occupancy:wait');
    const seen: number[] = [];
    await onConnections(async ({ redis, locks, id }) => {
      for (let round = 0; round < ROUNDS; round++) {
        const token = `worker-${id}#${round}`;
        assert.equal(await locks.acquire('lock:wait', token, 5000, { waitMs: 30_000 }), 1);
        await critical(redis, 'counter:wait', 'occupancy:wait', 1, seen);
        assert.equal(await locks.release('lock:wait', token), true);
      }
    });
    assert.equal(Number(await fx.redis.get('counter:wait')), CONNECTIONS * ROUNDS);
    t.diagnostic(`${CONNECTIONS * ROUNDS} waiting acquisitions, max occupancy ${Math.max(...seen)}`);
  });

  test(`reentrant: ${CONNECTIONS} connections, each taking the lock twice per round`, async () => {
    const ROUNDS = 50;
    await fx.redis.del('lock:re', 'counter:re', 'occupancy:re');
    const seen: number[] = [];
    await onConnections(async ({ redis, locks, id }) => {
      for (let round = 0; round < ROUNDS; round++) {
        const token = `worker-${id}:${round}`;
        assert.equal(await locks.reentrant.acquire('lock:re', token, 5000, { waitMs: 30_000 }), 1);
        assert.equal(await locks.reentrant.acquire('lock:re', token, 5000), 2);
        await critical(redis, 'counter:re', 'occupancy:re', 1, seen);
        assert.equal(await locks.reentrant.release('lock:re', token), 2);
        assert.equal(await locks.reentrant.release('lock:re', token), 1);
      }
    });
    assert.equal(Number(await fx.redis.get('counter:re')), CONNECTIONS * ROUNDS);
    assert.equal(Math.max(...seen), 1);
  });

  test(`read-write: ${CONNECTIONS} connections, readers overlap, a writer never overlaps anyone, writers not starved`, async (t) => {
    const ROUNDS = 40;
    await fx.redis.del('lock:rw', 'readers', 'writers');
    let maxReaders = 0;
    let writes = 0;
    await onConnections(async ({ redis, locks, id }) => {
      const writer = id % 4 === 0;
      for (let round = 0; round < ROUNDS; round++) {
        const token = `worker-${id}:${round}`;
        if (writer) {
          assert.equal(await locks.rw.write('lock:rw', token, 5000, { waitMs: 30_000 }), true);
          const [writers, readers] = [await redis.incr('writers'), Number(await redis.get('readers'))];
          assert.equal(writers, 1, 'one writer at a time');
          assert.equal(readers, 0, 'no reader beside a writer');
          await sleep(1);
          await redis.decr('writers');
          writes++;
        } else {
          assert.equal(await locks.rw.read('lock:rw', token, 5000, { waitMs: 30_000 }), true);
          const readers = await redis.incr('readers');
          maxReaders = Math.max(maxReaders, readers);
          assert.equal(Number(await redis.get('writers')), 0, 'no writer beside a reader');
          await sleep(1);
          await redis.decr('readers');
        }
        assert.equal(await locks.rw.release('lock:rw', token), true);
      }
    });
    assert.equal(writes, (CONNECTIONS / 4) * ROUNDS, 'every writer got through');
    assert.ok(maxReaders > 1, 'readers must have shared the lock');
    t.diagnostic(`${writes} writes, up to ${maxReaders} readers at once`);
  });

  test(`semaphore: ${CONNECTIONS} connections on 3 permits, never more than 3 inside`, async (t) => {
    const ROUNDS = 40;
    const PERMITS = 3;
    await fx.redis.del('lock:sem', 'inside');
    const seen: number[] = [];
    await onConnections(async ({ redis, locks, id }) => {
      for (let round = 0; round < ROUNDS; round++) {
        const token = `worker-${id}:${round}`;
        assert.equal(await locks.semaphore.acquire('lock:sem', token, 5000, PERMITS, { waitMs: 30_000 }), true);
        const inside = await redis.incr('inside');
        seen.push(inside);
        assert.ok(inside <= PERMITS, `${inside} holders inside`);
        await sleep(1);
        await redis.decr('inside');
        assert.equal(await locks.semaphore.release('lock:sem', token), true);
      }
    });
    assert.equal(Math.max(...seen), PERMITS, 'the permits must all have been used at once');
    t.diagnostic(`${CONNECTIONS * ROUNDS} permits taken, at most ${Math.max(...seen)} at once`);
  });

  for (const kind of ['plain', 'read', 'semaphore'] as const) {
    test(`a ${kind === 'plain' ? 'holder' : kind === 'read' ? 'reader' : 'permit holder'} SIGKILLed in its critical section: freed within its lease + 100 ms`, async (t) => {
      const TTL = 1000;
      const key = `lock:crash:${kind}`;
      const holder = spawn(
        process.execPath,
        ['--import', 'tsx', 'test/fixtures/holder.ts', fx.server.url, kind, key, 'doomed-holder', String(TTL)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        const [line] = (await once(holder.stdout, 'data')) as [Buffer];
        assert.equal(String(line).trim(), 'holding');
        holder.kill('SIGKILL');
        const killedAt = Date.now();
        await once(holder, 'exit');

        const take = async () =>
          kind === 'plain'
            ? (await fx.locks.acquire(key, 'survivor', TTL)) !== 0
            : kind === 'read'
              ? fx.locks.rw.write(key, 'survivor', TTL)
              : fx.locks.semaphore.acquire(key, 'survivor', TTL, 1);
        assert.equal(await take(), false, 'the dead holder still holds it until its lease ends');
        while (!(await take())) await sleep(5);
        const waited = Date.now() - killedAt;
        assert.ok(waited <= TTL + 100, `taken ${waited} ms after the kill`);
        t.diagnostic(`lease ${TTL} ms; taken ${waited} ms after the kill`);
      } finally {
        holder.kill('SIGKILL');
      }
    });
  }
}

// Mutual exclusion under real contention, and recovery from a holder that dies.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { LockScripts } from '../pack/runtime';
import { sleep, useRedis } from './helpers';

const fx = useRedis();

test('20 connections x 200 acquisitions: a non-atomic counter ends exact, occupancy never exceeds 1', async (t) => {
  const CONNECTIONS = 20;
  const ROUNDS = 200;
  await fx.redis.del('lock:counter', 'counter', 'occupancy');
  let maxOccupancy = 0;
  let contended = 0;

  const worker = async (id: number) => {
    const redis = fx.server.client();
    const locks = new LockScripts(redis);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const token = `worker-${id}#${randomBytes(8).toString('hex')}`;
        while ((await locks.acquire('lock:counter', token, 5000)) === 0) {
          contended++;
          await sleep(Math.random() * 2);
        }
        maxOccupancy = Math.max(maxOccupancy, await redis.incr('occupancy'));
        // Read-modify-write in two round trips: only the lock keeps it correct.
        const value = Number(await redis.get('counter'));
        await redis.set('counter', value + 1);
        await redis.decr('occupancy');
        assert.equal(await locks.release('lock:counter', token), true, 'the lease must not have been lost');
      }
    } finally {
      redis.disconnect();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, id) => worker(id)));

  assert.equal(Number(await fx.redis.get('counter')), CONNECTIONS * ROUNDS);
  assert.equal(maxOccupancy, 1);
  assert.ok(contended > 0, 'the workers must actually have contended');
  t.diagnostic(`${CONNECTIONS * ROUNDS} acquisitions, ${contended} refused attempts, max occupancy ${maxOccupancy}`);
});

test('a holder SIGKILLed in its critical section: another process takes the lock within TTL + 100 ms', async (t) => {
  const TTL = 1000;
  const holder = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/fixtures/holder.ts', fx.server.url, 'lock:crash', 'doomed-holder', String(TTL)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(holder.stdout, 'data')) as [Buffer];
    assert.equal(String(line).trim(), 'holding');
    holder.kill('SIGKILL');
    const killedAt = Date.now();
    await once(holder, 'exit');

    assert.equal(
      await fx.locks.acquire('lock:crash', 'survivor', TTL),
      0,
      'the dead holder still owns it until expiry',
    );
    while ((await fx.locks.acquire('lock:crash', 'survivor', TTL)) === 0) await sleep(5);
    const waited = Date.now() - killedAt;
    assert.ok(waited <= TTL + 100, `took the lock ${waited} ms after the kill`);
    t.diagnostic(`TTL ${TTL} ms; took the lock ${waited} ms after the kill`);
    assert.equal(await fx.redis.get('lock:crash'), 'survivor');
  } finally {
    holder.kill('SIGKILL');
  }
});

// Runs the generated lock helpers of the clients this machine can run (ioredis, node-redis from
// node_modules; redis-py, phpredis, redis-rb, redigo and Predis from Debian's packages) as real
// programs against a throwaway Redis. Each client has a proof program in
// test/proofs/helpers/ that imports the helper written next to it and runs one mode:
//   counter  rounds around a non-atomic counter, SCRIPT FLUSH in each (NOSCRIPT path);
//   renew    a 300 ms lease kept through 1 s of work; no renewal after release;
//   steal    holds a renewing 300 ms lease until the loss signal fires after this test steals it;
//   fence    fencing tokens pushed in lock order;
//   busy     waits 500 ms for a lock held elsewhere, then reports the "busy" error (and leaves the line).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { waitersKey } from '../pack/layout';
import { loadPack } from '../pack/pack';
import { useRedis } from './helpers';
import { HELPER_PROOFS } from './proofs/helpers/proofs';
import { start } from './proofs/helpers/run';

const pack = loadPack();
const fx = useRedis();
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-proof-'));
after(() => rmSync(work, { recursive: true, force: true }));

const TTL_MS = 300;

for (const proof of HELPER_PROOFS) {
  describe(`${proof.client} helper against a real Redis`, () => {
    let command: string[];
    const run = (...args: string[]) => start(command, fx.server.url, proof.env ?? {}, args);

    before(async () => {
      command = await proof.prepare(join(work, proof.client), pack);
    });
    beforeEach(async () => {
      await fx.redis.flushall();
    });

    test('two processes x 200 rounds around a non-atomic counter end exact, SCRIPT FLUSH in every round', async () => {
      await Promise.all([run('counter', '200').done, run('counter', '200').done]);
      assert.equal(await fx.redis.get('proof:counter'), '400');
      assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
    });

    test('renewal keeps a 300 ms lease through 1 s of work and stops after release', async () => {
      assert.match(await run('renew').done, /^renewed$/m);
      assert.equal(await fx.redis.exists('proof:lock'), 0);
    });

    test('a stolen lease is reported lost within ttl/3 + 100 ms', async () => {
      const holder = run('steal');
      await holder.printed('held');
      const stolenAt = Date.now();
      await fx.redis.set('proof:lock', 'thief', 'PX', 10_000);
      const lostAt = Number(/^lost (\d+)$/m.exec(await holder.done)?.[1]);
      assert.ok(lostAt >= stolenAt, `loss reported at ${lostAt}, before the theft at ${stolenAt}`);
      assert.ok(
        lostAt - stolenAt <= TTL_MS / 3 + 100,
        `loss reported ${lostAt - stolenAt} ms after the theft; the bound is ${TTL_MS / 3 + 100} ms`,
      );
      assert.equal(await fx.redis.get('proof:lock'), 'thief', "the thief's lock is left alone");
    });

    test('fencing tokens strictly increase across two contending processes', async () => {
      await Promise.all([run('fence', '50').done, run('fence', '50').done]);
      const tokens = (await fx.redis.lrange('proof:tokens', 0, -1)).map(Number);
      assert.equal(tokens.length, 100);
      for (let i = 1; i < tokens.length; i++)
        assert.ok(tokens[i] > tokens[i - 1], `${tokens[i]} after ${tokens[i - 1]}`);
    });

    test('waiting for a held lock gives up after the bound with the "busy" error', async () => {
      await fx.redis.set('proof:lock', 'other-owner', 'PX', 60_000);
      const output = await run('busy').done;
      const [, elapsed, message] = /^busy (\d+) (.*)$/m.exec(output) ?? [];
      assert.ok(elapsed, output);
      assert.ok(Number(elapsed) >= 500, `gave up after ${elapsed} ms, before the 500 ms bound`);
      assert.ok(Number(elapsed) < 1500, `gave up after ${elapsed} ms, long after the 500 ms bound`);
      assert.match(message, /proof:lock is held by another owner; gave up after waiting 500 ms/);
      assert.equal(await fx.redis.get('proof:lock'), 'other-owner');
      assert.equal(await fx.redis.exists(waitersKey('proof:lock')!), 0, 'the waiter left the line');
    });
  });
}

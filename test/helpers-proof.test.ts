// Runs the generated lock helpers of the clients this machine can run (ioredis, node-redis from
// node_modules; redis-py, phpredis, redis-rb, redigo and Predis from Debian's packages) as real
// programs against a throwaway Redis. Each client has a proof program in
// test/proofs/helpers/ that imports the helper written next to it and runs one mode:
//   counter  rounds around a non-atomic counter, SCRIPT FLUSH in each (NOSCRIPT path);
//   renew    a 300 ms lease kept through 1 s of work; no renewal after release;
//   steal    holds a renewing 300 ms lease until the loss signal fires after this test steals it;
//   fence    fencing tokens pushed in lock order;
//   busy     waits 500 ms for a lock held elsewhere, then reports the "busy" error.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { useRedis } from './helpers';
import { HELPER_PROOFS } from './proofs/helpers/proofs';

const pack = loadPack();
const fx = useRedis();
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-proof-'));
after(() => rmSync(work, { recursive: true, force: true }));

const TTL_MS = 300;

interface Running {
  /** Resolves with the program's stdout once it exits 0; rejects with its output otherwise. */
  done: Promise<string>;
  /** Resolves when the program prints `line`. */
  printed(line: string): Promise<void>;
}

function start(command: string[], env: Record<string, string>, args: string[]): Running {
  const [file, ...rest] = command;
  const child = spawn(file, [...rest, fx.server.url, ...args], {
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ line: string; resolve: () => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of waiters) if (stdout.split('\n').includes(waiter.line)) waiter.resolve();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${command.join(' ')} ${args.join(' ')} exited ${code}:\n${stdout}${stderr}`)),
    );
  });
  return {
    done,
    printed: (line) =>
      Promise.race([
        new Promise<void>((resolve) => waiters.push({ line, resolve })),
        done.then(() => {
          throw new Error(`exited without printing '${line}':\n${stdout}`);
        }),
      ]),
  };
}

for (const proof of HELPER_PROOFS) {
  describe(`${proof.client} helper against a real Redis`, () => {
    let command: string[];
    const run = (...args: string[]) => start(command, proof.env ?? {}, args);

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
    });
  });
}

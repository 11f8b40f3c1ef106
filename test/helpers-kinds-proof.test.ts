// The generated helpers' waiting and lock kinds, run as real programs against a throwaway Redis 7.0
// and Valkey 9 (the programs and their modes: test/proofs/helpers/; test/helpers-proof.test.ts has
// the plain lock's counter, takeover, renewal, loss, fencing and busy proofs):
// - where the helper waits for wake-ups, a waiter whose retry bound is 30 s takes the lock within
//   a few seconds of the release, for each kind (so it was woken, not polled); where it waits in
//   line, one line with the Node runtime's one-hop waiters, each woken by the other's release;
// - reentrant: nested takes re-enter and the counter stays exact; read-write: writers around a
//   non-atomic counter stay exact, readers never with a writer, a reader takes the lock while
//   another holds it; a semaphore of 2 never has more than 2 holders, and a process takes the
//   second permit while the test holds the first; a SIGKILLed holder's hold returns when its lease ends.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ticketsKey, waitersKey } from '../pack/layout';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { PROGRAM_START_MS, scriptCalls, serversSideBySide, sleep, useRedis, waitFor } from './helpers';
import { HELPER_PROOFS, prepareOnce, proofName } from './proofs/helpers/proofs';
import type { ServerKind } from '../harness/redis';
import { allDone, start } from './proofs/helpers/run';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-kinds-'));
after(() => rmSync(work, { recursive: true, force: true }));

const KEY = 'proof:lock';
const LONG = 60_000;
/** The waiter's retry bound in `woken` mode (jittered down to half): a wake-up must beat it by far. */
const RETRY_MS = 30_000;
/** The lease of a holder that `hold` mode takes before it is killed. */
const HOLD_TTL_MS = 1000;

// The two servers side by side: each proof waits mostly on leases and its own server, and bounds
// no delay tighter than seconds.
serversSideBySide(proofs);

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });

  /** Per kind the waiter asks for: how the test holds the key against it, and releases it (waking waiters). */
  const HOLDERS = {
    // The queue's release wakes the first waiter by its token.
    lock: {
      hold: () => fx.locks.acquire(KEY, 'holder', LONG),
      release: () => fx.locks.run('release', [KEY, waitersKey(KEY)!], ['holder']),
    },
    // The empty payload: one waiter per client.
    reentrant: {
      hold: () => fx.locks.reentrant.acquire(KEY, 'holder', LONG),
      release: () => fx.locks.reentrant.release(KEY, 'holder'),
    },
    // '*': every waiter. A reader waits for a writer, a writer for a reader.
    read: { hold: () => fx.locks.rw.write(KEY, 'holder', LONG), release: () => fx.locks.rw.release(KEY, 'holder') },
    write: { hold: () => fx.locks.rw.read(KEY, 'holder', LONG), release: () => fx.locks.rw.release(KEY, 'holder') },
    semaphore: {
      hold: () => fx.locks.semaphore.acquire(KEY, 'holder', LONG, 1),
      release: () => fx.locks.semaphore.release(KEY, 'holder'),
    },
  };

  /** Clients subscribed to the key's wake-ups. */
  async function subscribers(): Promise<number> {
    const [, count] = (await fx.redis.call('PUBSUB', 'SHARDNUMSUB', KEY)) as [string, number];
    return count;
  }

  for (const proof of HELPER_PROOFS.filter((candidate) => candidate.wakes || candidate.kinds)) {
    describe(`${proofName(proof)} helper: waiting and lock kinds against a real ${server}`, () => {
      let command: string[];
      const run = (...args: string[]) => start(command, fx.server.url, proof.env ?? {}, args);

      before(async () => {
        command = await prepareOnce(proof, work, pack, proof.kinds ? 'all' : 'wakeups');
      });
      beforeEach(async () => {
        await fx.redis.flushall();
      });

      // Helpers that poll (no SSUBSCRIBE in the client library here) are left out: see HELPER_PROOFS.
      const woken = Object.entries(HOLDERS).filter(([kind]) => proof.wakes && (proof.kinds || kind === 'lock'));
      for (const [kind, holder] of woken) {
        test(`${kind}: a waiter is woken by the release, long before its ${RETRY_MS} ms retry bound`, async (t) => {
          await holder.hold();
          const waiter = run('woken', kind);
          await waitFor('the waiter subscribed', async () => (await subscribers()) >= 1, PROGRAM_START_MS);
          if (kind === 'lock' && proof.queues)
            await waitFor(
              'the waiter in line',
              async () => (await fx.redis.zcard(waitersKey(KEY)!)) === 1,
              PROGRAM_START_MS,
            );
          await sleep(500); // its try after subscribing is done: it sleeps until woken or 15-30 s
          const releasedAt = Date.now();
          assert.notEqual(Number(await holder.release()), 0);
          const heldAt = Number(/^held (\d+)$/m.exec(await waiter.done)?.[1]);
          const tookMs = heldAt - releasedAt;
          t.diagnostic(`held ${tookMs} ms after the release`);
          assert.ok(tookMs >= 0 && tookMs < 5000, `held ${tookMs} ms after the release`);
          assert.equal(await subscribers(), 0, 'the waiter unsubscribed');
        });
      }

      // A project may wait for one lock from the Node runtime (pack v3's one-hop queue, with
      // tickets) and from a helper (pack v2's acquire_queued): one line, in arrival order, and each
      // release wakes the other's waiter by its token.
      if (proof.wakes && proof.queues)
        test(`lock: in one line with the Node runtime's waiters, each woken by the other's release, long before the ${RETRY_MS} ms retry bound`, async (t) => {
          const runtime = new LockScripts(fx.redis, pack, { retryMs: RETRY_MS });
          try {
            // Taken by waiting, so its release is queue_release, the one-hop hand-over.
            assert.equal(await runtime.acquire(KEY, 'holder', LONG, { waitMs: LONG }), 1);
            const helperWaiter = run('woken', 'lock');
            const inLine = async (count: number) => (await fx.redis.zcard(waitersKey(KEY)!)) === count;
            await waitFor("the helper's waiter in line", () => inLine(1), PROGRAM_START_MS);
            // Subscribed before the runtime's waiter subscribes too: a wake-up sent before the
            // helper's SSUBSCRIBE reached the server would be missed until its 15-30 s retry.
            await waitFor("the helper's waiter subscribed", async () => (await subscribers()) >= 1, PROGRAM_START_MS);
            await sleep(500); // its try after subscribing is done: it sleeps until woken or 15-30 s
            const runtimeWaiter = runtime
              .acquire(KEY, 'runtime-waiter', LONG, { waitMs: LONG })
              .then((result) => ({ result, tookAt: Date.now() }));
            await waitFor("the runtime's waiter in line behind it", () => inLine(2));
            // It tries again once subscribed, as the helper does: a lock free by then is whoever's
            // asks first (no fair mode), so the release waits for that try.
            await waitFor("the runtime's waiter subscribed", async () => (await subscribers()) >= 2);
            await sleep(500);
            const releasedAt = Date.now();
            assert.equal(await runtime.release(KEY, 'holder'), true);
            const heldAt = Number(/^held (\d+)$/m.exec(await helperWaiter.done)?.[1]);
            const { result, tookAt } = await runtimeWaiter;
            t.diagnostic(
              `the helper's waiter held ${heldAt - releasedAt} ms after the runtime's release, ` +
                `the runtime's waiter ${tookAt - heldAt} ms after that`,
            );
            assert.ok(heldAt >= releasedAt && heldAt - releasedAt < 5000, `held ${heldAt - releasedAt} ms after`);
            assert.equal(result, 1, "the runtime's waiter took the lock");
            assert.ok(tookAt >= heldAt && tookAt - heldAt < 5000, `taken ${tookAt - heldAt} ms after the helper held`);
            assert.equal(await runtime.release(KEY, 'runtime-waiter'), true);
            assert.equal(await fx.redis.exists(KEY, waitersKey(KEY)!, ticketsKey(KEY)!), 0, 'nothing left behind');
          } finally {
            runtime.close();
          }
        });

      if (!proof.kinds) return;

      test('reentrant: two processes x 100 rounds, each re-entering once, keep a non-atomic counter exact', async () => {
        await allDone([run('reentrant', '100'), run('reentrant', '100')]);
        assert.equal(await fx.redis.get('proof:counter'), '200');
        assert.equal(await fx.redis.exists(KEY), 0, 'released');
      });

      test('read-write: two writers keep a non-atomic counter exact; readers never read with a writer', async () => {
        await allDone([run('rw-writer', '40'), run('rw-writer', '40'), run('rw-reader', '40'), run('rw-reader', '40')]);
        assert.equal(await fx.redis.get('proof:counter'), '80');
        assert.equal(await fx.redis.exists('proof:rw'), 0, 'released');
      });

      // Held by the test, not raced between two processes: how the processes' start-ups happen to
      // line up on a loaded machine does not decide whether readers were seen to share.
      test('read-write: a reader takes the lock while another reader holds it', async () => {
        await fx.locks.rw.read(KEY, 'holder', LONG);
        assert.match(await run('take', 'read').done, /^took \d+$/m, 'a busy error here: readers do not share');
        assert.equal(await fx.locks.rw.release(KEY, 'holder'), true, 'the first reader held on throughout');
      });

      test('semaphore of 2: three processes never exceed 2 holders', async () => {
        await allDone([run('semaphore', '30'), run('semaphore', '30'), run('semaphore', '30')]);
        assert.equal(await fx.redis.exists('proof:sem'), 0, 'released');
      });

      // As for readers: the test holds a permit, so two holders at once does not hang on start-ups lining up.
      test('semaphore of 2: a process takes the second permit while the test holds the first', async () => {
        assert.equal(await fx.locks.semaphore.acquire('proof:sem', 'holder', LONG, 2), true);
        await run('semaphore', '1').done;
        assert.equal(await fx.locks.semaphore.release('proof:sem', 'holder'), true, 'the test held on throughout');
      });

      // What the SIGKILLed hold blocks: a dead reader blocks a writer, a dead writer a reader. The
      // taker starts after the kill; when its start-up outlasts the lease (a JVM's took 4 s in a
      // loaded CI run), its bound counts from its first try instead.
      const blocked = { reentrant: 'reentrant', read: 'write', write: 'read', semaphore: 'semaphore' };
      for (const [kind, taker] of Object.entries(blocked)) {
        test(`${kind}: a SIGKILLed holder's hold returns when its ${HOLD_TTL_MS} ms lease ends`, async (t) => {
          const holder = run('hold', kind);
          await holder.printed('held');
          holder.kill();
          await assert.rejects(holder.done, /exited SIGKILL/);
          // The lease ends no sooner than this, whenever the holder's 'held' reached the test: the
          // server read the PTTL after `readFrom`.
          const readFrom = Date.now();
          const leaseLeft = await fx.redis.pttl(KEY);
          assert.ok(leaseLeft > 0, `the dead holder still holds, with a lease (PTTL ${leaseLeft})`);
          const leaseEnds = readFrom + leaseLeft;
          // A killed holder makes no more calls: the next script call is the taker's.
          const before = await scriptCalls(fx.redis);
          const waiting = run('take', taker);
          await waitFor('the taker tried once', async () => (await scriptCalls(fx.redis)) > before, PROGRAM_START_MS);
          const triedBy = Date.now();
          const tookAt = Number(/^took (\d+)$/m.exec(await waiting.done)?.[1]);
          t.diagnostic(
            `${taker} taken ${tookAt - leaseEnds} ms after the dead holder's lease ended` +
              (triedBy > leaseEnds ? ` (its first try by ${triedBy - leaseEnds} ms after)` : ''),
          );
          assert.ok(tookAt >= leaseEnds - 1, `taken ${leaseEnds - tookAt} ms before the dead holder's lease ended`);
          const from = Math.max(leaseEnds, triedBy);
          assert.ok(tookAt < from + 4000, `taken ${tookAt - from} ms after the lease or the first try, long after`);
        });
      }
    });
  }
}

// LOCK010's fix as a real program: the Python fixture with its busy retry loop, fixed by the quick
// fix into a call of the project's redis-py helper, runs against a throwaway Redis while another
// holder has the lock. It sends a handful of commands while it waits (the original polls every
// 2 ms), takes the lock once the holder releases, runs the guarded code as its holder and
// releases.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { analyzeText } from '../server/src/analysis';
import { applyEdits, lockFix } from '../server/src/lockFix';
import { readIfExists } from '../server/src/quickFix';
import { findClient } from '../snippets/render';
import { commandCalls, pack, sleep, useRedis } from './helpers';
import { start } from './proofs/helpers/run';

const fx = useRedis();
const work = mkdtempSync(join(tmpdir(), 'locksmith-fix-waits-'));
after(() => rmSync(work, { recursive: true, force: true }));

const KEY = 'lock:search-index';
const FIXTURE = join(__dirname, 'fixtures', 'lint', 'python', 'LOCK010-positive-fix-wait-then-release.py');

/**
 * Runs the job module in `dir` against `url`: its client pointed at the test's server, its
 * guarded work replaced by a report of who held the lock meanwhile.
 */
const DRIVER = `import sys

import redis

import index_job

index_job.r = redis.Redis.from_url(sys.argv[1])


def reindex_everything():
    holder = index_job.r.get("${KEY}")
    print("working, lock held by " + ("this job" if holder not in (None, b"holder") else repr(holder)), flush=True)


index_job.reindex_everything = reindex_everything
index_job.rebuild_search_index()
print("released" if index_job.r.get("${KEY}") is None else "still held", flush=True)
`;

/** Writes the fixture fixed by the LOCK010 quick fix (and the helper it creates) into `dir`. */
async function writeFixedJob(dir: string): Promise<string> {
  const text = readFileSync(FIXTURE, 'utf8');
  const file = join(dir, 'index_job.py');
  const finding = (await analyzeText('python', text)).find((each) => each.code === 'LOCK010');
  assert.ok(finding?.fix?.replacesRetryLoop);
  const fix = lockFix({
    client: findClient('redis-py'),
    languageId: 'python',
    plan: finding.fix,
    pack,
    text,
    file,
    root: dir,
    manifests: [],
    readFile: readIfExists,
  });
  for (const change of fix.changes) {
    mkdirSync(dirname(change.path), { recursive: true });
    writeFileSync(change.path, 'create' in change ? change.create : applyEdits(text, change.edits));
  }
  writeFileSync(join(dir, 'driver.py'), DRIVER);
  return readFileSync(file, 'utf8');
}

/** Commands that try to take a lock: SET NX from the original, the helper's scripts. */
async function acquireCalls(): Promise<number> {
  const counts = await Promise.all(['set', 'evalsha', 'eval'].map((command) => commandCalls(fx.redis, command)));
  return counts.reduce((sum, count) => sum + count, 0);
}

test('the fixed job waits for the holder without polling, then takes the lock, works and releases', async (t) => {
  const dir = join(work, 'fixed');
  const fixed = await writeFixedJob(dir);
  assert.match(fixed, /with lock\(r, "lock:search-index", ttl_ms=60000\):/);
  assert.doesNotMatch(fixed, /while|time\.sleep\(0\.002\)/);

  await fx.redis.flushall();
  assert.equal(await fx.locks.acquire(KEY, 'holder', 60_000), 1);
  await fx.redis.config('RESETSTAT');
  const job = start(['/usr/bin/python3', join(dir, 'driver.py')], fx.server.url, {}, []);
  let working = false;
  void job.printed('working, lock held by this job').then(
    () => (working = true),
    () => undefined,
  );
  // Long enough for a 2 ms poll to send about a hundred SETs; the helper tries, subscribes and waits.
  await sleep(300);
  const whileHeld = await acquireCalls();
  assert.equal(working, false, 'the guarded code waits for the holder');
  assert.ok(whileHeld <= 5, `${whileHeld} acquire commands while the lock was held elsewhere`);

  assert.equal(await fx.locks.release(KEY, 'holder'), true);
  const output = await job.done;
  assert.deepEqual(output.trim().split('\n'), ['working, lock held by this job', 'released']);
  t.diagnostic(`fixed job: ${whileHeld} acquire commands in 300 ms of waiting`);
});

test('for comparison, the unfixed job polls while it waits (reported, not asserted: a count over time)', async (t) => {
  const dir = join(work, 'original');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index_job.py'), readFileSync(FIXTURE, 'utf8'));
  writeFileSync(join(dir, 'driver.py'), DRIVER);

  await fx.redis.flushall();
  assert.equal(await fx.locks.acquire(KEY, 'holder', 60_000), 1);
  await fx.redis.config('RESETSTAT');
  const job = start(['/usr/bin/python3', join(dir, 'driver.py')], fx.server.url, {}, []);
  // Counted from its first try: Python may take longer than the count's 300 ms to start on a busy machine.
  for (const giveUp = Date.now() + 20_000; (await acquireCalls()) === 0; await sleep(50))
    assert.ok(Date.now() < giveUp, 'the job never tried to take the lock');
  await sleep(300);
  const whileHeld = await acquireCalls();
  assert.equal(await fx.locks.release(KEY, 'holder'), true);
  assert.deepEqual((await job.done).trim().split('\n'), ['working, lock held by this job', 'released']);
  t.diagnostic(`unfixed job: ${whileHeld} SET NX commands in 300 ms of waiting`);
});

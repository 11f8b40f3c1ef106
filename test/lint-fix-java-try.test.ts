// A Jedis try-lock (test/fixtures/fix/java/JedisTryLockSkip.java) run against a real Redis as
// written and as `lint --fix --fix-type fix,suggestion` leaves it (the helper's try variant, and
// the lease joined to the SET): it runs its work when the lock is free, with a lease on the lock,
// and skips it when another owner holds the lock, before and after alike; only the race goes, a
// holder whose lease lapsed no longer deletes the next holder's lock. Driven by
// test/proofs/fixes/JedisTryLockDriver.java, compiled against the real Jedis.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { ensureCli, runCli } from '../harness/cli';
import { javac } from '../harness/toolchains';
import { FIX_FIXTURES } from './fix-fixtures';
import { useRedis } from './helpers';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'locksmith-fix-java-try-'));
after(() => rmSync(work, { recursive: true, force: true }));
const fx = useRedis();

/** What the driver prints for the fixture, fixed first when `fixed`. */
async function driven(fixed: boolean): Promise<string[]> {
  const dir = join(work, fixed ? 'fixed' : 'as-written');
  mkdirSync(dir, { recursive: true });
  await run('git', ['init', '-q'], { cwd: dir });
  copyFileSync(join(FIX_FIXTURES, 'java', 'JedisTryLockSkip.java'), join(dir, 'JedisTryLockSkip.java'));
  if (fixed) {
    const result = await runCli(['lint', '--fix', '--fix-type', 'fix,suggestion', 'JedisTryLockSkip.java'], dir);
    assert.match(result.stdout, /^Fixed JedisTryLockSkip\.java: .*created Locksmith\.java$/m, result.stderr);
  }
  copyFileSync(join(__dirname, 'proofs', 'fixes', 'JedisTryLockDriver.java'), join(dir, 'JedisTryLockDriver.java'));
  const sources = readdirSync(dir).filter((name) => name.endsWith('.java'));
  const classpath = await javac(
    join(dir, 'build'),
    sources.map((name) => join(dir, name)),
    ['-proc:none', '-nowarn'],
  );
  await fx.redis.flushall();
  const { stdout } = await run('java', ['-cp', classpath, 'JedisTryLockDriver', fx.server.url], { timeout: 60_000 });
  return stdout.trim().split('\n');
}

test('the try-lock runs when free and skips when busy, as written and fixed; fixed, a stale release keeps the next lock', async () => {
  await ensureCli();
  const asWritten = await driven(false);
  const fixed = await driven(true);
  const same = ['free run: 1 true null', 'busy run: 1 other', 'free nightly: 1 true null', 'busy nightly: 1 other'];
  assert.deepEqual(asWritten, [...same, 'stale: null']);
  assert.deepEqual(fixed, [...same, 'stale: next-holder']);
});

// The fixes run for real: each language's lock class of test/fixtures/fix/ (Python, JavaScript,
// TypeScript, PHP, Ruby, Go), as written and as `lint --fix` leaves it, driven by the same program
// (test/proofs/fixes/) against a real Redis. The same calls succeed and answer the same; the race
// the rules name is gone: a holder whose lease expired and whose lock another holder took no longer
// deletes the new holder's lock (LOCK003), and the first command that writes the lock sets its lease
// (LOCK001: a crash right after it leaves no lock without a TTL, which MONITOR shows).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ensureCli, runCli } from '../harness/cli';
import { go, writeGoModule } from '../harness/toolchains';
import { ROOT } from '../harness/vsix';
import { useRedis } from './helpers';

const run = promisify(execFile);
const DRIVERS = join(__dirname, 'proofs', 'fixes');
const FIXTURES = join(__dirname, 'fixtures', 'fix');

interface Subject {
  language: string;
  fixture: string;
  /** The file name the program loads it under (a Python module's name has no dashes). */
  target?: string;
  /** The lease the stale-holder scenario gives its first holder (the unit the class takes). */
  shortTtl: string;
  longTtl: string;
  /** Writes the program into `dir` (the fixture, fixed or not, is there already); returns its command before the URL. */
  program(dir: string): Promise<(scenario: string, ttl: string) => string[]>;
  /** Prepares `dir` before the fixture is copied in (Go's module). */
  setup?(dir: string): void;
  /** The fixture's text as the program compiles it. */
  adapt?(text: string): string;
}

const node = (fixture: string, name: string, prefix: string, typescript: boolean): Subject => ({
  language: typescript ? 'typescript' : 'javascript',
  fixture: `${typescript ? 'typescript' : 'javascript'}/${fixture}`,
  shortTtl: '300',
  longTtl: '30000',
  program: (dir) => {
    copyFileSync(join(DRIVERS, 'driver.js'), join(dir, 'driver.js'));
    return Promise.resolve((scenario, ttl) => [
      process.execPath,
      ...(typescript ? ['--import', 'tsx'] : []),
      join(dir, 'driver.js'),
      '',
      scenario,
      ttl,
      join(dir, fixture),
      name,
      prefix,
    ]);
  },
});

/** A lock class run by the system interpreter (Debian's client packages belong to it) through test/proofs/fixes/driver.<ext>. */
const interpreted = (
  fixture: string,
  interpreter: string,
  driver: string,
  loads: (dir: string) => string[],
  target?: string,
): Subject => ({
  language: fixture.split('/')[0],
  fixture,
  ...(target && { target }),
  shortTtl: '1',
  longTtl: '30',
  program: (dir) => {
    copyFileSync(join(DRIVERS, driver), join(dir, driver));
    return Promise.resolve((scenario, ttl) => [interpreter, join(dir, driver), '', scenario, ttl, ...loads(dir)]);
  },
});

const SUBJECTS: Subject[] = [
  interpreted(
    'python/lock-class-injected-client.py',
    '/usr/bin/python3',
    'driver.py',
    () => ['lock_class_injected_client', 'RedisLock'],
    'lock_class_injected_client.py',
  ),
  node('lock-class-ioredis.js', 'RedisMutex', '', false),
  node('lock-class-setnx.ts', 'SetnxLock', 'lock:', true),
  interpreted('php/PhpredisLock.php', '/usr/bin/php', 'driver.php', (dir) => [
    join(dir, 'PhpredisLock.php'),
    'PhpredisLock',
  ]),
  interpreted('ruby/instance-variable-lock.rb', '/usr/bin/ruby', 'driver.rb', (dir) => [
    join(dir, 'instance-variable-lock.rb'),
    'InstanceVariableLock',
  ]),
  {
    language: 'go',
    fixture: 'go/struct-mutex-goredis.go',
    shortTtl: '300',
    longTtl: '30000',
    setup: writeGoModule,
    adapt: (text) => text.replace(/^package \w+$/m, 'package main'),
    program: async (dir) => {
      copyFileSync(join(DRIVERS, 'driver.go'), join(dir, 'driver.go'));
      await go(['build', '-o', join(dir, 'driver'), '.'], dir);
      return (scenario, ttl) => [join(dir, 'driver'), '', scenario, ttl];
    },
  },
];

const fx = useRedis();
// Inside the repository (ignored by git) so the JavaScript finds node_modules.
mkdirSync(join(ROOT, '.test-artifacts'), { recursive: true });
const work = mkdtempSync(join(ROOT, '.test-artifacts', 'fix-behaviour-'));
before(ensureCli);
after(() => rmSync(work, { recursive: true, force: true }));
beforeEach(async () => {
  await fx.redis.flushall();
});

/** The fixture in a project folder of its own, fixed by `lint --fix` when `fixed`; the command that drives it. */
async function prepare(subject: Subject, fixed: boolean) {
  const dir = join(work, `${subject.language}-${fixed ? 'fixed' : 'unfixed'}`);
  mkdirSync(dir, { recursive: true });
  await run('git', ['init', '-q'], { cwd: dir });
  subject.setup?.(dir);
  const name = subject.target ?? subject.fixture.split('/')[1];
  const text = readFileSync(join(FIXTURES, subject.fixture), 'utf8');
  writeFileSync(join(dir, name), subject.adapt ? subject.adapt(text) : text);
  if (fixed) {
    const result = await runCli(['lint', '--fix', name], dir);
    assert.match(result.stdout, new RegExp(`^Fixed ${name.replace('.', '\\.')}: `, 'm'), result.stdout + result.stderr);
  }
  const command = await subject.program(dir);
  return async (scenario: string, ttl: string): Promise<unknown[]> => {
    const [program, ...args] = command(scenario, ttl);
    args[args.indexOf('')] = fx.server.url;
    const { stdout } = await run(program, args, { cwd: dir, timeout: 60_000 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as unknown[];
  };
}

/** The commands MONITOR saw on `key` while `action` ran, in order. */
async function monitored(key: string, action: () => Promise<unknown>): Promise<string[][]> {
  const monitor = await fx.redis.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args.includes(key)) seen.push(args.map((arg) => arg.toLowerCase()));
  });
  try {
    await action();
    // MONITOR's last lines may trail the reply of the command they report.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    monitor.disconnect();
  }
  return seen;
}

for (const subject of SUBJECTS) {
  describe(`${subject.language}: ${subject.fixture} before and after lint --fix`, () => {
    let unfixed: Awaited<ReturnType<typeof prepare>>;
    let fixed: Awaited<ReturnType<typeof prepare>>;
    before(async () => {
      [unfixed, fixed] = await Promise.all([prepare(subject, false), prepare(subject, true)]);
    });

    test('the same calls succeed and answer the same', async () => {
      const before = await unfixed('calls', subject.longTtl);
      await fx.redis.flushall();
      const after = await fixed('calls', subject.longTtl);
      assert.deepEqual(after, before);
      assert.equal(before[0], true, 'the first acquire took the lock');
      assert.equal(before[1], true, 'with a lease');
    });

    test("a holder whose lease expired no longer deletes the next holder's lock", async () => {
      const before = await unfixed('stale', subject.shortTtl);
      assert.equal(before.at(-1), 0, "unfixed: the stale holder's release deleted the new holder's lock");
      await fx.redis.flushall();
      const after = await fixed('stale', subject.shortTtl);
      assert.equal(after.at(-1), 1, "fixed: the new holder's lock is still there");
    });

    test('the first command that writes the lock sets its lease: a crash after it leaves no lock without a TTL', async () => {
      const firstWrite = (commands: string[][]) => commands.find((args) => /^(set|setnx|eval|evalsha)$/.test(args[0]))!;
      const leased = (args: string[]) => args[0] === 'set' && (args.includes('ex') || args.includes('px'));
      const before = firstWrite(await monitored('lock:crash', () => unfixed('acquire', subject.longTtl)));
      assert.ok(!leased(before), `unfixed: the lock is written without a lease first (${before.join(' ')})`);
      await fx.redis.flushall();
      const after = firstWrite(await monitored('lock:crash', () => fixed('acquire', subject.longTtl)));
      assert.ok(leased(after) && after.includes('nx'), `fixed: one SET NX with its lease (${after.join(' ')})`);
    });
  });
}

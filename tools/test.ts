// `npm test`: the package, then every test file and the checks (typecheck, lint), each in a
// process of its own and a session of its own. First the files in ALONE (code-server, Chromium),
// one after another with nothing beside them. Then the other files in TIMED, whose assertions
// bound how late something may happen, one after another; beside them the checks, then the untimed
// files, two at a time. The kernel's autogroup shares the CPU between sessions, not processes, so
// a timed file gets its share however many processes the files beside it start. Where the kernel
// does not (no autogroup), the timed files wait until the others are done. Node's own runner takes
// files availableParallelism() - 1 at a time (one on 2 cores) and cannot keep a group apart.
//   node --import tsx tools/test.ts                       the package and checks, then every test file
//   node --import tsx tools/test.ts test/a.test.ts ...    only these files (no checks), in their groups
// LOCKSMITH_TEST_CONCURRENCY sets how many untimed files run side by side (default 2).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inLanes } from './lanes';

const ROOT = join(__dirname, '..');

/**
 * Files that run one at a time, and why: a bound in ms that the load of files beside it, each
 * with its share of the CPU, does not break, but that of several more would; or work heavy enough
 * to break another's.
 */
const TIMED: Record<string, string> = {
  'contention.test.ts': 'a SIGKILLed holder is replaced within TTL + 100 ms',
  'helpers-proof.test.ts': 'takeover within lease + 100 ms, loss reported within ttl/3 + 100 ms, the busy error bound',
  'helpers-kinds-proof.test.ts': 'woken within 5 s of the release, taken within the lease + 4 s',
  'snippets-proof.test.ts': 'renewal keeps a lock past 3x its TTL',
  'helpers-js-parts-proof.test.ts': 'a real replica acknowledges within 100 ms; a cut timed to land in the WAIT',
  'helpers-parts-redis-rs.test.ts': 'the shortfall within 5 s',
  'replicas.test.ts': 'a real replica acknowledges within 100 ms; a cut timed to land in the WAIT',
  'failover.test.ts': 'the overlap measured against a replication lag the test sets',
  'waiting.test.ts': 'a lost wake-up costs at most the retry bound + 250 ms',
  'faults.test.ts': 'an aborted read settles within 1.5 s, a second refresh within 100 ms',
  'cluster.test.ts': 'woken, not timed out (half the wait bound)',
  'cluster-view.test.ts': "each master's scan schedule follows its measured scan time",
  'locks-polling.test.ts': 'the scan schedule follows the measured scan time',
  'locks-discovery.test.ts': 'no command over 10 ms in SLOWLOG on 200k keys',
  'locks-history.test.ts': 'a lock with a 150 to 300 ms lease is read while it holds',
  'scripts-kinds.test.ts': 'a reader renews its 200 ms lease every 100 ms',
  'lint-server.test.ts': 'a burst of keystrokes checked once (the debounce)',
  'lint-fix-waits.test.ts': 'acquire commands counted over 300 ms of waiting',
  'extension-host.test.ts': 'the extension host in code-server and Chromium, with bounded waits',
  'demo.test.ts': 'code-server, Redis and workers started and stopped within bounded waits',
  'timeline-webview.test.ts': 'Chromium drawing 10,000 holds, with frame times',
};

const isTimed = (name: string) => Object.hasOwn(TIMED, name);

/**
 * Timed files that run with nothing beside them: code-server and Chromium load both cores in
 * bursts, and their waits measure the machine. With a third of it (beside two untimed files), a
 * lock's tooltip took 2.6 s to show against the 2.5 s extension-host waits.
 */
const ALONE = new Set(['extension-host.test.ts', 'demo.test.ts', 'timeline-webview.test.ts']);

/** The longest untimed files (from a full run's log) start first, so none of them starts last. */
const SLOWEST_FIRST = [
  'helpers-jvm-parts-proof.test.ts',
  'helpers-exclusion-proof.test.ts',
  'helpers-cluster-proof.test.ts',
  'helpers-api.test.ts',
  'lint-fix-compiles.test.ts',
  'helpers-go-parts-proof.test.ts',
  'helpers-parts-php-rb-proof.test.ts',
  'helpers-redis-py-parts.test.ts',
  'helpers-glide-python-parts.test.ts',
  'lint-fix-behaviour.test.ts',
  'helpers-golden.test.ts',
  'glide-smoke.test.ts',
];

/** The checks besides `npm run package` (which the test files need built first). */
const READING_CHECKS = ['typecheck', 'lint'];
/** A file still running after this is stopped and reported as timed out. */
const FILE_TIMEOUT_MS = 30 * 60_000;
/**
 * Untimed files two at a time: they wait mostly on servers and child processes, and bound no delay.
 * Two at a time took them from 735 s to 422 s with every file passing; LOCKSMITH_TEST_CONCURRENCY
 * sets another number.
 */
const UNTIMED_CONCURRENCY = 2;

/** Whether the kernel shares the CPU between sessions (autogroup), each test file being one. */
function sharesPerSession(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

interface Outcome {
  name: string;
  ok: boolean;
  why: string;
  ms: number;
  output: string;
}

const live = new Set<number>();

/** Runs a command in a session (and process group) of its own, its output (stdout and stderr) collected. */
function run(name: string, command: string, args: string[], timeoutMs: number): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child.pid, 'SIGKILL');
    }, timeoutMs);
    if (child.pid !== undefined) live.add(child.pid);
    const settle = (why: string) => {
      clearTimeout(timer);
      if (child.pid !== undefined) live.delete(child.pid);
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ name, ok: why === '', why, ms: performance.now() - started, output });
    };
    child.once('error', (error) => settle(`could not start ${command}: ${error.message}`));
    child.once('close', (code, signal) => {
      if (timedOut) settle(`stopped after ${timeoutMs / 60_000} min`);
      else settle(code === 0 ? '' : signal ? `killed by ${signal}` : `exit ${code}`);
    });
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

// Interrupted: the files' own exit hooks stop their servers on SIGTERM.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const pid of live) signalGroup(pid, 'SIGTERM');
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function report(outcome: Outcome, label: string): void {
  const status = outcome.ok ? 'passed' : `FAILED (${outcome.why})`;
  process.stdout.write(`\n── ${label}: ${status} in ${seconds(outcome.ms)} ──\n${outcome.output}`);
}

/** Runs `files` at most `concurrency` at a time, in the order given; reports each as it ends. */
async function runFiles(files: string[], concurrency: number, outcomes: Outcome[]): Promise<void> {
  await inLanes(files, concurrency, async (file) => {
    const args = ['--import', 'tsx', '--test', '--test-reporter=spec', join('test', file)];
    const outcome = await run(file, process.execPath, args, FILE_TIMEOUT_MS);
    report(outcome, `test/${file}`);
    outcomes.push(outcome);
  });
}

/** The test counts node:test's spec reporter prints at the end of a file's output, summed. */
function counts(outcomes: Outcome[]): string {
  const totals = new Map<string, number>();
  for (const { output } of outcomes)
    for (const [, key, value] of output.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
      totals.set(key, (totals.get(key) ?? 0) + Number(value));
  return [...totals].map(([key, value]) => `${key} ${value}`).join(', ');
}

/**
 * Each failing test's name and the first lines of its error, from node:test's spec report, at most
 * `maxLines` in all: CI keeps only the tail of this output, and a failure must be readable there.
 */
function failingTests(output: string, maxLines = 12): string[] {
  const start = output.lastIndexOf('✖ failing tests:');
  if (start < 0) return [];
  const kept: string[] = [];
  let errorLines = 0;
  for (const line of output.slice(start).split('\n').slice(1)) {
    if (line.startsWith('✖ ')) errorLines = 3;
    else if (!line.trim() || line.startsWith('test at ') || /^\s+at /.test(line) || errorLines-- <= 0) continue;
    kept.push(`    ${line.slice(0, 200)}`);
  }
  return kept.length > maxLines ? [...kept.slice(0, maxLines), "    … (the file's report above has the rest)"] : kept;
}

function requireListed(names: string[], files: string[], list: string): void {
  const missing = names.filter((name) => !files.includes(name));
  if (missing.length)
    throw new Error(`tools/test.ts's ${list} names ${missing.map((n) => `test/${n}`).join(', ')}: no such file`);
}

async function main(): Promise<number> {
  const all = readdirSync(join(ROOT, 'test'))
    .filter((name) => name.endsWith('.test.ts'))
    .sort();
  requireListed(Object.keys(TIMED), all, 'TIMED');
  requireListed(SLOWEST_FIRST, all, 'SLOWEST_FIRST');
  requireListed([...ALONE], all, 'ALONE');
  const asked = process.argv.slice(2).map((arg) => arg.replace(/^(\.\/)?test\//, ''));
  const unknown = asked.filter((name) => !existsSync(join(ROOT, 'test', name)));
  if (unknown.length) throw new Error(`no such test file: ${unknown.map((n) => `test/${n}`).join(', ')}`);
  const files = asked.length ? all.filter((name) => asked.includes(name)) : all;
  const concurrency = Number(process.env.LOCKSMITH_TEST_CONCURRENCY) || UNTIMED_CONCURRENCY;
  const started = performance.now();

  const check = (name: string) =>
    run(name, 'npm', ['run', name], FILE_TIMEOUT_MS).then((outcome) => {
      report(outcome, `npm run ${name}`);
      return outcome;
    });
  // The package first: it is the production build and the .vsix that test files run.
  if (!asked.length && !(await check('package')).ok) {
    process.stdout.write('\nFAILED: npm run package; no test ran\n');
    return 1;
  }

  const rank = (name: string) => (SLOWEST_FIRST.includes(name) ? SLOWEST_FIRST.indexOf(name) : SLOWEST_FIRST.length);
  const untimed = files.filter((name) => !isTimed(name)).sort((a, b) => rank(a) - rank(b));
  const alone = files.filter((name) => ALONE.has(name));
  const timed = files.filter((name) => isTimed(name) && !ALONE.has(name));
  const outcomes: Outcome[] = [];
  const testsStarted = performance.now();
  const took = (group: Promise<void>) => group.then(() => performance.now() - testsStarted);
  const aloneMs = await took(runFiles(alone, 1, outcomes));
  // The typecheck and lint only read the sources. They take the untimed files' lanes, first, so a
  // timed file never shares the machine with more than `concurrency` others: beside the lint, the
  // type-check and two untimed files, a test process once stalled ~190 ms in contention.test.ts.
  const checkOutcomes: Outcome[] = [];
  const untimedJobs = [
    ...(asked.length ? [] : READING_CHECKS.map((name) => async () => void checkOutcomes.push(await check(name)))),
    ...untimed.map((file) => () => runFiles([file], 1, outcomes)),
  ];
  const besides = sharesPerSession();
  const untimedRun = took(inLanes(untimedJobs, concurrency, (job) => job()));
  const timedMs = await took((besides ? Promise.resolve() : untimedRun).then(() => runFiles(timed, 1, outcomes)));
  const untimedMs = await untimedRun;
  const failedChecks = checkOutcomes.filter((check) => !check.ok);
  const end = performance.now();

  const failed = outcomes.filter((outcome) => !outcome.ok);
  process.stdout.write('\n── test files, longest first ──\n');
  for (const outcome of [...outcomes].sort((a, b) => b.ms - a.ms))
    process.stdout.write(
      `${seconds(outcome.ms).padStart(9)}  test/${outcome.name}${ALONE.has(outcome.name) ? ' (alone)' : isTimed(outcome.name) ? ' (timed)' : ''}${outcome.ok ? '' : `  FAILED (${outcome.why})`}\n`,
    );
  process.stdout.write(
    `\n${counts(outcomes)}\n` +
      `${alone.length} files alone: ${seconds(aloneMs)}; then ${asked.length ? '' : 'the checks and '}` +
      `${untimed.length} untimed files ${concurrency} at a ` +
      `time: ${seconds(untimedMs)} from the start; ${timed.length} timed files one at a time, ` +
      `${besides ? 'beside them' : 'after them (no autogroup)'}: ${seconds(timedMs)} from the start; ` +
      `all: ${seconds(end - started)}\n`,
  );
  if (failedChecks.length)
    process.stdout.write(`\nFAILED: ${failedChecks.map((check) => `npm run ${check.name}`).join(', ')}\n`);
  if (failed.length) {
    process.stdout.write(`\nFAILED: ${failed.length} of ${outcomes.length} test files; each alone:\n`);
    for (const outcome of failed) {
      process.stdout.write(`  node --import tsx --test test/${outcome.name}    # ${outcome.why}\n`);
      for (const line of failingTests(outcome.output)) process.stdout.write(`${line}\n`);
    }
  }
  return failed.length || failedChecks.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);

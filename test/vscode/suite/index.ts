// The extension-host test entry (extensionTestsPath): runs every bundled *.test.js next to this
// file under mocha and writes the results file the runner reads. After a test reloaded the window
// (reload.ts) it runs again in the new extension host: the tests that finished keep their results
// and are not run again.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import { describeError, RESULTS_FILE_ENV, type SuiteResults, type TestResult } from '../results';
import { noteReloadedBy, takeReloadMarker } from './reload';
import { report } from './report';

/** Drops the tests whose full title is in `done`. */
function skipDone(suite: Mocha.Suite, done: ReadonlySet<string>): void {
  suite.tests = suite.tests.filter((test) => !done.has(test.fullTitle()));
  for (const child of suite.suites) skipDone(child, done);
}

/** The results of the extension host before the window reload that started this one. */
function resultsBeforeReload(): SuiteResults | undefined {
  const resultsFile = process.env[RESULTS_FILE_ENV];
  if (!resultsFile || !existsSync(resultsFile)) return undefined;
  return JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteResults;
}

/** The suites and the tests in each, last first. */
function reverse(suite: Mocha.Suite): void {
  suite.suites.reverse();
  suite.tests.reverse();
  for (const child of suite.suites) reverse(child);
}

export async function run(): Promise<void> {
  // LOCKSMITH_TEST_GREP (passed through by the runners) picks tests by title, e.g. "smoke";
  // LOCKSMITH_TEST_ORDER=reverse runs the suites and their tests last first.
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false, grep: process.env.LOCKSMITH_TEST_GREP });
  // Found at run time, so a new suite file needs no change here.
  for (const file of readdirSync(__dirname)
    .filter((name) => name.endsWith('.test.js'))
    .sort()) {
    mocha.addFile(join(__dirname, file));
  }

  const reloaded = takeReloadMarker();
  const before = reloaded === undefined ? undefined : resultsBeforeReload();
  if (reloaded !== undefined) noteReloadedBy(reloaded.title);
  Object.assign(report().metrics, before?.metrics, reloaded?.metrics);
  const tests: TestResult[] = [...(before?.tests ?? [])];
  const done = new Set(tests.map((test) => test.title));
  const errors = new Map<Mocha.Runnable, unknown>();
  let running: string | undefined;
  // Rewritten as tests start and end, so a run that hangs still tells how far it got.
  const writeResults = () => {
    const resultsFile = process.env[RESULTS_FILE_ENV];
    const results: SuiteResults = { tests, ...report(), running };
    if (!resultsFile) return;
    // Whole or not at all: the runner may read it any time after a timeout.
    writeFileSync(`${resultsFile}.tmp`, JSON.stringify(results, null, 2));
    renameSync(`${resultsFile}.tmp`, resultsFile);
  };
  const finished = new Promise<number>((resolve) => {
    // Throws when a suite file throws while it is loaded.
    const runner = mocha.run(resolve);
    runner.once('start', () => {
      skipDone(mocha.suite, done);
      // Every test sets up what it needs: run backwards, each still passes.
      if (process.env.LOCKSMITH_TEST_ORDER === 'reverse') reverse(mocha.suite);
    });
    runner.on('test', (test) => {
      running = test.fullTitle();
      // A name given by an earlier test no longer describes the screen this one leaves.
      report().finalScreenshot = undefined;
      writeResults();
    });
    runner.on('fail', (runnable: Mocha.Runnable, error: unknown) => {
      // A failing hook has no 'test end'; report it as a test of its own.
      if (runnable instanceof Mocha.Hook)
        tests.push({ title: runnable.fullTitle(), state: 'failed', error: describeError(error) });
      else errors.set(runnable, error);
    });
    runner.on('test end', (test) => {
      const error = errors.get(test);
      tests.push({
        title: test.fullTitle(),
        state: test.isPending() ? 'pending' : test.state === 'passed' ? 'passed' : 'failed',
        durationMs: test.duration,
        ...(error === undefined ? {} : { error: describeError(error) }),
      });
      running = undefined;
      writeResults();
    });
  });
  let failures: number;
  try {
    failures = await finished;
  } catch (error) {
    tests.push({ title: 'loading the suite files', state: 'failed', error: describeError(error) });
    throw error;
  } finally {
    writeResults();
  }
  if (failures > 0) throw new Error(`${failures} extension-host test(s) failed`);
}

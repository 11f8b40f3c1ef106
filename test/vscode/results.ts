// What the mocha suite in the extension host hands back to the runner that started it, and how
// the runners print it. The suite side is bundled into the extension host; keep this free of
// imports the extension host lacks.

/** Env var naming the JSON file the suite writes its results to. */
export const RESULTS_FILE_ENV = 'LOCKSMITH_VSCODE_RESULTS';
/**
 * Env var naming the folder where the suite asks the runner to act on the workbench page as a
 * user would (a screenshot, a pointer resting on a row); unset: nothing is served (desktop).
 */
export const PAGE_REQUESTS_ENV = 'LOCKSMITH_VSCODE_PAGE_REQUESTS';
/** Runner variables with this prefix reach the extension host (e.g. a Redis URL). */
export const PASSTHROUGH_ENV_PREFIX = 'LOCKSMITH_TEST_';

export interface TestResult {
  /** mocha's full title: suite and test names. */
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: string;
}

export interface SuiteResults {
  tests: TestResult[];
  /** Numbers a suite measured, e.g. activationMs. */
  metrics: Record<string, number>;
  /** Name of the screenshot the runner takes after the run; says what the suite left on screen. */
  finalScreenshot?: string;
  /** The test under way when the results were written: the one a timed-out run was stuck in. */
  running?: string;
}

/** A request file's content: what to do on the page. The answer file holds a PageAnswer. */
export type PageRequest =
  | { kind: 'screenshot'; name: string }
  /** Rest the pointer on the side bar's tree row whose label starts with `row` for `holdMs`, noting the hover shown. */
  | { kind: 'hover'; row: string; holdMs: number };

/** What the hover over a row showed `at` ms after the pointer arrived: its text, or none. */
export interface HoverSample {
  at: number;
  text?: string;
}

export type PageAnswer = { path: string } | { samples: HoverSample[] } | { error: string };
export const REQUEST_SUFFIX = '.request.json';
export const ANSWER_SUFFIX = '.answer.json';

export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Screenshot names become file names: keep them to a safe alphabet. */
export function screenshotFileName(name: string): string {
  return `vscode-${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`;
}

/** Prints each test, the metrics and a summary; returns the number of failed tests. */
export function printResults(results: SuiteResults): number {
  for (const test of results.tests) {
    const mark = { passed: 'ok  ', failed: 'FAIL', pending: 'skip' }[test.state];
    console.log(`  ${mark} ${test.title}${test.durationMs === undefined ? '' : ` (${test.durationMs} ms)`}`);
    if (test.error) console.log(test.error.replace(/^/gm, '       '));
  }
  for (const [name, value] of Object.entries(results.metrics)) console.log(`  metric ${name}: ${value}`);
  const count = (state: TestResult['state']) => results.tests.filter((test) => test.state === state).length;
  console.log(`  ${count('passed')} passed, ${count('failed')} failed, ${count('pending')} pending`);
  return count('failed');
}

/** What run.ts writes for its caller (test/extension-host.test.ts): the suite's results, if any. */
export interface RunReport {
  results?: SuiteResults;
  /** What went wrong outside the tests: start-up failures, timeouts, a missing results file. */
  problems: string[];
  /** Paths of the screenshots taken, in order. */
  screenshots: string[];
}

// Runs the extension's mocha suite (test/vscode/suite) in a real VS Code extension host with no
// download: code-server's workbench in headless Debian Chromium. Expects `npm run build` to
// have run. Exits non-zero when a test fails or the run does not finish.
//   node --import tsx test/vscode/run.ts [--vsix] [--report <file>]
// --vsix: against the packaged .vsix installed into code-server (what users get), not this folder.
// --report: where the run's JSON report goes (default .test-artifacts/vscode-results.json).
// LOCKSMITH_VSCODE_TIMEOUT_MS bounds the run (default 180000); LOCKSMITH_TEST_* variables reach
// the extension host.
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { format } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { atExit } from '../../harness/atExit';
import { launchChromium } from '../../harness/chromium';
import { bundleSuite, ROOT } from './bundle';
import { startCodeServer, type CodeServer } from '../../harness/codeServer';
import { prepareRunFixtures, type RunFixtures } from './fixtures';
import { carryOut } from './pageActions';
import { ensureVsix } from '../../harness/vsix';
import {
  ANSWER_SUFFIX,
  describeError,
  PASSTHROUGH_ENV_PREFIX,
  printResults,
  REQUEST_SUFFIX,
  RESULTS_FILE_ENV,
  PAGE_REQUESTS_ENV,
  screenshotFileName,
  type RunReport,
  type PageAnswer,
  type PageRequest,
  type SuiteResults,
} from './results';

const ARTIFACTS = join(ROOT, '.test-artifacts');
// An extension with nothing in it: the development extension when the suite runs against the installed .vsix.
const TEST_HOST = join(__dirname, 'host');
const TIMEOUT_MS = Number(process.env.LOCKSMITH_VSCODE_TIMEOUT_MS) || 180_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(ARTIFACTS, screenshotFileName(name));
  await page.screenshot({ path });
  return path;
}

/**
 * Answers the suite's requests to act on the page (files in `dir`, see suite/report.ts) until
 * stopped; the suite waits for each answer, so the screen is what it set up.
 */
function servePageRequests(page: Page, dir: string, taken: string[]): { stop(): Promise<void> } {
  let stopped = false;
  const saveScreenshot = async (name: string) => {
    const path = await screenshot(page, name);
    taken.push(path);
    return path;
  };
  const serving = (async () => {
    while (!stopped) {
      for (const file of readdirSync(dir).filter((name) => name.endsWith(REQUEST_SUFFIX))) {
        const base = join(dir, file.slice(0, -REQUEST_SUFFIX.length));
        let answer: PageAnswer;
        try {
          const request = JSON.parse(readFileSync(join(dir, file), 'utf8')) as PageRequest;
          rmSync(join(dir, file));
          answer = await carryOut(page, request, saveScreenshot);
        } catch (error) {
          answer = { error: describeError(error) };
        }
        writeFileSync(`${base}.answer.tmp`, JSON.stringify(answer));
        renameSync(`${base}.answer.tmp`, `${base}${ANSWER_SUFFIX}`);
      }
      await sleep(100);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await serving;
    },
  };
}

/**
 * The workbench URL that opens `workspace` and runs the suite, in the form code-server loads.
 * `developing`: the extension folder to load as under development; with an installed .vsix, an
 * empty host extension, so the installed copy is the one that runs.
 */
function testUrl(server: CodeServer, workspace: string, suiteIndex: string, developing: string): string {
  const remote = (path: string) => `vscode-remote://127.0.0.1:${server.port}${path}`;
  const payload = [
    ['extensionDevelopmentPath', remote(developing)],
    ['extensionTestsPath', remote(suiteIndex)],
  ];
  return `${server.url}?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** How the workbench page ended: codeAutomationExit's code, or neither. */
type Outcome = number | 'crashed' | 'timed out';

function outcomeProblem(outcome: Outcome, results: SuiteResults | undefined): string | undefined {
  if (outcome === 'crashed') return 'the workbench page crashed';
  if (outcome === 'timed out') {
    return `the run did not finish within ${TIMEOUT_MS} ms${results?.running ? ` (running: ${results.running})` : ''}`;
  }
  if (!results)
    return `the suite did not run (workbench exit ${outcome}); see the logs in ${relative(ROOT, ARTIFACTS)}/`;
  if (outcome !== 0 && !results.tests.some((test) => test.state === 'failed')) {
    return `the workbench exited with ${outcome} although no test failed`;
  }
  return undefined;
}

async function runSuite(report: RunReport, started: number, vsix: string | undefined): Promise<void> {
  const suiteIndex = await bundleSuite();
  const scratch = mkdtempSync(join(tmpdir(), 'locksmith-vscode-run-'));
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  const cancelExitRemoval = atExit(removeScratch);
  // The folder the workbench opens; suites may create files in it.
  const workspace = join(scratch, 'workspace');
  const requests = join(scratch, 'page-requests');
  const resultsFile = join(scratch, 'results.json');
  mkdirSync(workspace);
  mkdirSync(requests);
  const browserLog = createWriteStream(join(ARTIFACTS, 'vscode-browser.log'));
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let fixtures: RunFixtures | undefined;
  try {
    fixtures = await prepareRunFixtures(workspace);
    const passthrough = Object.entries(process.env).filter(([name]) => name.startsWith(PASSTHROUGH_ENV_PREFIX));
    server = await startCodeServer({
      workspace,
      env: {
        ...Object.fromEntries(passthrough),
        ...fixtures.env,
        [RESULTS_FILE_ENV]: resultsFile,
        [PAGE_REQUESTS_ENV]: requests,
      },
      userSettings: fixtures.userSettings,
      logFile: join(ARTIFACTS, 'vscode-code-server.log'),
      installVsix: vsix,
    });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const logLine = (line: string) => browserLog.write(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`);
    page.on('console', (message) => {
      if (message.type() === 'error') logLine(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => logLine(`page error: ${describeError(error)}`));

    // The workbench calls codeAutomationExit when the suite is done: 0 passed, 1 failed or broke.
    let exit!: (outcome: Outcome) => void;
    const exited = new Promise<Outcome>((resolve) => (exit = resolve));
    await page.exposeFunction('codeAutomationExit', (code: number) => exit(code));
    // The workbench's log, the extension host's console included (as printf-style arguments).
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) =>
      logLine(`workbench ${type}: ${format(...args)}`),
    );
    page.once('crash', () => exit('crashed'));
    const timer = setTimeout(() => exit('timed out'), TIMEOUT_MS);
    const screenshots = servePageRequests(page, requests, report.screenshots);
    let outcome: Outcome;
    try {
      // 'commit': the workbench's own load time counts against TIMEOUT_MS, not goto's 30 s.
      await page.goto(testUrl(server, workspace, suiteIndex, vsix ? TEST_HOST : ROOT), { waitUntil: 'commit' });
      outcome = await exited;
    } finally {
      clearTimeout(timer);
      await screenshots.stop();
    }

    if (existsSync(resultsFile)) report.results = JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteResults;
    const problem = outcomeProblem(outcome, report.results);
    if (problem) report.problems.push(problem);
    if (outcome !== 'crashed') {
      const name = outcome === 'timed out' ? 'timed-out' : (report.results?.finalScreenshot ?? 'after-run');
      report.screenshots.push(await screenshot(page, name));
    }
  } finally {
    await browser?.close();
    await server?.stop();
    await fixtures?.stop();
    await new Promise((resolve) => browserLog.end(resolve));
    removeScratch();
    cancelExitRemoval();
  }
}

async function main(): Promise<number> {
  const fromVsix = process.argv.includes('--vsix');
  const reportIndex = process.argv.indexOf('--report');
  const reportFile = reportIndex > 0 ? process.argv[reportIndex + 1] : join(ARTIFACTS, 'vscode-results.json');
  mkdirSync(ARTIFACTS, { recursive: true });
  const started = Date.now();
  const report: RunReport = { problems: [], screenshots: [] };
  try {
    await runSuite(report, started, fromVsix ? await ensureVsix() : undefined);
  } catch (error) {
    report.problems.push(describeError(error));
  }
  writeFileSync(reportFile, JSON.stringify(report, null, 2));

  console.log(`VS Code extension host (code-server, ${fromVsix ? 'the installed .vsix' : 'the development folder'}):`);
  const failed = report.results ? printResults(report.results) : 0;
  for (const path of report.screenshots) console.log(`  screenshot ${relative(ROOT, path)}`);
  for (const problem of report.problems) console.log(`  PROBLEM ${problem}`);
  console.log(`  ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return failed > 0 || report.problems.length > 0 ? 1 : 0;
}

void main().then((code) => (process.exitCode = code));

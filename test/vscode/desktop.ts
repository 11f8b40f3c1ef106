// Runs the same mocha suite (test/vscode/suite) in desktop VS Code through @vscode/test-electron,
// for machines that can download VS Code (into .vscode-test/). Expects `npm run build` to have
// run. Mid-run screenshots are skipped here: takeScreenshot() returns undefined.
//   node --import tsx test/vscode/desktop.ts
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { atExit } from '../../harness/atExit';
import { bundleSuite, ROOT } from './bundle';
import { prepareRunFixtures } from './fixtures';
import { describeError, printResults, RESULTS_FILE_ENV, type SuiteResults } from './results';

async function main(): Promise<number> {
  const extensionTestsPath = await bundleSuite();
  const scratch = mkdtempSync(join(tmpdir(), 'locksmith-vscode-desktop-'));
  const cancelExitRemoval = atExit(() => rmSync(scratch, { recursive: true, force: true }));
  const workspace = join(scratch, 'workspace');
  const resultsFile = join(scratch, 'results.json');
  mkdirSync(workspace);
  const fixtures = await prepareRunFixtures(workspace);
  const userData = join(scratch, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(fixtures.userSettings));
  try {
    let failure: unknown;
    try {
      await runTests({
        extensionDevelopmentPath: ROOT,
        extensionTestsPath,
        // Added to this process's environment, which VS Code inherits (LOCKSMITH_TEST_* included).
        extensionTestsEnv: { ...fixtures.env, [RESULTS_FILE_ENV]: resultsFile },
        // The first argument is the folder to open; no other extension may interfere.
        launchArgs: [workspace, '--disable-extensions', `--user-data-dir=${userData}`],
      });
    } catch (error) {
      // TestRunFailedError: VS Code exited non-zero, i.e. a test failed or the suite broke.
      failure = error;
    }
    console.log('VS Code extension host (desktop):');
    const results = existsSync(resultsFile)
      ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteResults)
      : undefined;
    const failed = results ? printResults(results) : 0;
    if (!results) console.log('  PROBLEM the suite wrote no results');
    if (failure && failed === 0) console.log(`  PROBLEM ${describeError(failure)}`);
    return !results || failure || failed > 0 ? 1 : 0;
  } finally {
    await fixtures.stop();
    rmSync(scratch, { recursive: true, force: true });
    cancelExitRemoval();
  }
}

void main().then((code) => (process.exitCode = code));

// The extension's mocha suite (test/vscode/suite) in a real VS Code extension host: code-server
// and headless Chromium, driven by test/vscode/run.ts, twice: from the development folder, and
// from the packaged .vsix installed into code-server, the artefact users get (which proves that
// every file the extension reads at run time is shipped). Each mocha test becomes a subtest here.
// The first run installs code-server into a cache folder (minutes); later runs take seconds.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { RunReport } from './vscode/results';

const ROOT = join(__dirname, '..');

for (const [name, args] of [
  ['the development folder', []],
  ['the installed .vsix', ['--vsix']],
] as const) {
  test(`the extension in a VS Code extension host (code-server), from ${name}`, { timeout: 15 * 60_000 }, (t) =>
    runSuite(t, args),
  );
}

async function runSuite(t: TestContext, args: readonly string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'locksmith-extension-host-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const reportFile = join(dir, 'report.json');
  const runner = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test', 'vscode', 'run.ts'), ...args, '--report', reportFile],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      // On timeout or cancellation: SIGTERM, and the runner stops code-server and Chromium.
      signal: t.signal,
    },
  );
  // Progress (the code-server install) shows as it happens; the summary only when it failed.
  runner.stderr.pipe(process.stderr);
  let summary = '';
  runner.stdout.on('data', (chunk: Buffer) => (summary += chunk.toString()));
  const [exitCode] = (await once(runner, 'close')) as [number | null];

  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReport;
  } catch {
    assert.fail(`test/vscode/run.ts exited (${exitCode}) without a report:\n${summary}`);
  }
  for (const result of report.results?.tests ?? []) {
    await t.test(result.title, { skip: result.state === 'pending' }, () => {
      // The error as mocha saw it in the extension host; this process's stack would only add noise.
      if (result.state === 'failed') throw Object.assign(new Error(result.error), { stack: result.error });
    });
  }
  for (const [name, value] of Object.entries(report.results?.metrics ?? {})) t.diagnostic(`${name}: ${value}`);
  for (const screenshot of report.screenshots) t.diagnostic(`screenshot: ${screenshot}`);
  assert.deepEqual(report.problems, [], summary);
  assert.ok(report.results?.tests.length, `no extension-host test ran:\n${summary}`);
  // A failed mocha test has already failed this test, by name.
  if (report.results.tests.every((result) => result.state !== 'failed')) assert.equal(exitCode, 0, summary);
}

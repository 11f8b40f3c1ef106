// The extension loads from the development folder into a real extension host, activates, creates
// its log output channel and starts the language server as a child of the extension host.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { PAGE_REQUESTS_ENV } from '../results';
import { eventually } from './eventually';
import { activateLocksmith, EXTENSION_ID } from './extension';
import { report, screenshotAfterRun, takeScreenshot } from './report';

suite('smoke', () => {
  test('activates, and the activation time is measured', async () => {
    const extension = await activateLocksmith();
    assert.ok(extension.isActive);
    assert.equal(
      typeof report().metrics.activationMs,
      'number',
      'the extension was active before any suite activated it (a suite opened a linted file first?)',
    );
    const shot = await takeScreenshot('smoke-activated');
    if (process.env[PAGE_REQUESTS_ENV]) assert.ok(shot && existsSync(shot), `screenshot ${shot} missing`);
  });

  test('starts the language server as a child of the extension host', async () => {
    await activateLocksmith();
    const server = await eventually(() => {
      // POSIX ps: parent pid and command line of every process.
      const processes = execFileSync('ps', ['-A', '-o', 'ppid=,args='], { encoding: 'utf8' }).split('\n');
      return processes.find(
        (line) => line.trim().startsWith(`${process.pid} `) && line.includes('server/out/server.js'),
      );
    }, 'no child process runs server/out/server.js');
    assert.match(server, /--node-ipc/);
  });

  test('creates the "Redis Locksmith" log output channel, which can be shown', async () => {
    await activateLocksmith();
    // The workbench registers a show command per output channel, named after its id.
    const show = `workbench.action.output.show.${EXTENSION_ID}.Redis Locksmith`;
    await eventually(
      async () => ((await vscode.commands.getCommands(true)).includes(show) ? true : undefined),
      `no output channel command ${show}`,
    );
    await vscode.commands.executeCommand(show);
    // Names the final screenshot when this is the last test of the run.
    screenshotAfterRun('smoke-output-channel');
  });
});

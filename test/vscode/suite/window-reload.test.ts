// The Lock Timeline after a window reload: VS Code restores the panel, activates the extension
// for it (package.json's onWebviewPanel event) and hands it to its serializer, which shows the
// connection the panel showed. Uses the run's TLS connection, whose server lives outside the
// extension host and so outlives the reload.
import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { LocksmithApi } from '../../../extension/src/extension';
import { connectionNode } from '../../../extension/src/views/nodes';
import { TLS_FIXTURE_ENV, type TlsFixture } from '../fixtures';
import { eventually } from './eventually';
import { activateLocksmith } from './extension';
import { afterReload, reloadWindow } from './reload';
import { takeScreenshot } from './report';

suite('window reload', () => {
  test('the Lock Timeline comes back after a window reload, showing the same connection', async function () {
    const title = this.test!.fullTitle();
    const api = (await activateLocksmith()).exports as LocksmithApi;
    const { migratedId } = JSON.parse(process.env[TLS_FIXTURE_ENV]!) as TlsFixture;
    if (!afterReload(title)) {
      const config = await eventually(() => api.ctx.connections.get(migratedId), 'the TLS connection saved');
      await vscode.commands.executeCommand('locksmith.showTimeline', connectionNode(config));
      await eventually(() => (api.timeline.panel.isReady ? true : undefined), 'the timeline webview loaded');
      // The renderer saves its state (what it shows, for the serializer) a moment after a change.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return reloadWindow(title);
    }
    await eventually(
      () => (api.timeline.panel.isOpen && api.timeline.connection?.id === migratedId ? true : undefined),
      'the timeline restored on its connection',
      30_000,
    );
    assert.equal(api.timeline.panel.picture().connectionId, migratedId);
    await eventually(() => (api.timeline.panel.isReady ? true : undefined), 'the restored webview loaded');
    await vscode.commands.executeCommand('notifications.clearAll');
    await takeScreenshot('lock-timeline-after-reload');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

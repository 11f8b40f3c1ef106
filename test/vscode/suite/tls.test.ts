// TLS belongs to each connection, never to a workspace: the run's workspace settings try to turn
// verification off and swap in the repository's own CA (test/vscode/fixtures.ts), and a
// rediss:// server whose certificate that CA did not sign is still refused with the
// verification message. The retired user setting redisLocksmith.tls.caFile is moved into the
// saved TLS connection at activation, which keeps connecting.
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { LocksmithApi } from '../../../extension/src/extension';
import { connectionNode } from '../../../extension/src/views/nodes';
import { TLS_FIXTURE_ENV, type TlsFixture } from '../fixtures';
import { eventually } from './eventually';
import { activateLocksmith } from './extension';
import { reloadedBefore } from './reload';

suite('tls', () => {
  let api: LocksmithApi;
  let fixture: TlsFixture;

  suiteSetup(async () => {
    const raw = process.env[TLS_FIXTURE_ENV];
    assert.ok(raw, `${TLS_FIXTURE_ENV} is set by the runner (test/vscode/run.ts)`);
    fixture = JSON.parse(raw) as TlsFixture;
    api = (await activateLocksmith()).exports as LocksmithApi;
  });

  test("the workspace's allowInsecure and CA file are ignored: an unknown certificate is refused with the verification message", async () => {
    const workspaceTls = vscode.workspace.getConfiguration('redisLocksmith.tls').inspect('allowInsecure');
    assert.equal(workspaceTls?.workspaceValue, true, 'the workspace really sets allowInsecure');
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>(
      'locksmith.locks.addConnection',
      { name: 'untrusted', url: `rediss://127.0.0.1:${fixture.port}/0` },
    );
    assert.equal(outcome.ok, false);
    assert.match(
      outcome.message ?? '',
      /TLS failure at rediss:\/\/127\.0\.0\.1:\d+\/0: .*not trusted.*Certificate verification failed with the system's CAs/,
    );
    assert.ok(!api.ctx.connections.list().some((config) => config.name === 'untrusted'), 'nothing saved');
  });

  test('the user is told which workspace file was ignored', async () => {
    const migration = await api.tlsMigration;
    assert.deepEqual(migration.ignoredIn, [fixture.workspaceSettings]);
  });

  test("the user's old caFile setting moved into the saved TLS connection, which keeps connecting", async () => {
    const migration = await api.tlsMigration;
    // Once: after a window reload (window-reload.test.ts) it happened in the extension host before.
    if (!reloadedBefore()) assert.deepEqual(migration.moved, [fixture.migratedId]);
    const config = api.ctx.connections.get(fixture.migratedId);
    assert.ok(config, 'the saved connection is still there');
    assert.deepEqual(config.tls, { caFile: fixture.caFile });
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const session = await api.ctx.connections.connect(config);
    assert.equal(session.state.kind, 'connected');
    assert.match(api.locksTree.connectionTooltip(config), /TLS verified with the CA in /);
  });

  test('a connection given its own CA file connects; one set to allow insecure shows the warning', async () => {
    const withCa = await vscode.commands.executeCommand<{ ok: boolean; config: { id: string } }>(
      'locksmith.locks.addConnection',
      { name: 'own CA', url: `rediss://localhost:${fixture.port}/0`, tls: { caFile: fixture.caFile } },
    );
    assert.equal(withCa.ok, true);
    const insecure = await vscode.commands.executeCommand<{ ok: boolean; config: { id: string } }>(
      'locksmith.locks.addConnection',
      { name: 'dev only', url: `rediss://127.0.0.1:${fixture.port}/0`, tls: { allowInsecure: true } },
    );
    assert.equal(insecure.ok, true);
    const config = api.ctx.connections.get(insecure.config.id)!;
    assert.match(api.locksTree.connectionTooltip(config), /verification is OFF/);
    await eventually(() => {
      const root = api.locksTree
        .getChildren()
        .find((node) => node.kind === 'connection' && node.config.id === config.id);
      const icon = root && (api.locksTree.getTreeItem(root).iconPath as vscode.ThemeIcon);
      return icon?.id === 'warning' ? true : undefined;
    }, 'the connected row with a warning icon');
    for (const id of [withCa.config.id, insecure.config.id]) {
      await vscode.commands.executeCommand(
        'locksmith.locks.removeConnection',
        connectionNode(api.ctx.connections.get(id)!),
        { confirmed: true },
      );
    }
  });
});

// A trusted workspace that sets `redisLocksmith.lockPatterns: ["*"]` (the suite's workspace is
// trusted): the connection's row and tooltip say the patterns come from this workspace, a
// warning says once that they match far more keys than locks, and no data value is shown as an
// owner. The workspace setting is removed again after the test.
import * as assert from 'node:assert/strict';
import Redis from 'ioredis';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { ConnectionConfig } from '../../../extension/src/connections/saved';
import type { LocksmithApi } from '../../../extension/src/extension';
import { startRedis, type RedisServer } from '../../../harness/redis';
import { addConnection, connectionRow, listedLock, lockRows, removeConnection } from './connection';
import { eventually } from './eventually';
import { activateLocksmith } from './extension';
import { takeScreenshot } from './report';

suite('workspace lock patterns', () => {
  let server: RedisServer;
  let redis: Redis;
  let api: LocksmithApi;
  let config: ConnectionConfig | undefined;
  const settings = () => vscode.workspace.getConfiguration('redisLocksmith');

  suiteSetup(async () => {
    server = await startRedis();
    redis = server.client();
    api = (await activateLocksmith()).exports as LocksmithApi;
  });

  suiteTeardown(async () => {
    await removeConnection(api, config);
    await settings().update('lockPatterns', undefined, vscode.ConfigurationTarget.Workspace);
    redis?.disconnect();
    await server?.stop();
  });

  test('["*"] from a trusted workspace: its origin is shown, a warning says once it matches far more keys than locks, and no data value is an owner', async () => {
    const pipe = redis.pipeline();
    for (let i = 0; i < 40; i++) pipe.set(`cache:user:${i}`, `{"name":"user ${i}"}`);
    for (let i = 0; i < 20; i++) pipe.set(`session:${i}`, `user-${i}`);
    pipe.hset('stats:page:home', 'views', '10', 'clicks', '3');
    pipe.set('lock:{orders:42}', 'api-1:4711:9f2c4e1ab37d5e60', 'PX', 60_000);
    pipe.set('nightly:report', 'cron-7:311:0d1e2f3a4b5c6d7e', 'PX', 60_000);
    await pipe.exec();
    await settings().update('lockPatterns', ['*'], vscode.ConfigurationTarget.Workspace);
    config = await addConnection({ name: 'patterns', url: `redis://127.0.0.1:${server.port}/0` });
    await vscode.commands.executeCommand('locksmith.locks.focus');
    await listedLock(api, config, 'cache:user:0');
    await listedLock(api, config, 'lock:{orders:42}');
    const added = config;

    const owners = lockRows(api, added).flatMap((node) => (node.lock.kind === 'token' ? [node.lock.owner] : []));
    assert.deepEqual(owners.sort(), ['api-1#4711', 'cron-7#311'], 'only the two locks have owners');
    const row = connectionRow(api, added);
    await eventually(
      () => (/workspace patterns/.test(String(api.locksTree.getTreeItem(row).description)) ? true : undefined),
      'the row to say the patterns come from the workspace',
    );
    const tooltip = api.locksTree.connectionTooltip(added);
    assert.match(tooltip, /Lock patterns from this workspace's settings \(.*settings\.json\): \*\./);
    assert.match(tooltip, /⚠ The lock patterns \(\*\) match 63 keys on patterns, and only 2 of them are locks/);

    const groups = api.locksTree.getChildren(row).flatMap((node) => (node.kind === 'group' ? [node] : []));
    const described = new Map(groups.map((group) => [group.group, api.locksTree.getTreeItem(group).description]));
    assert.equal(described.get('cache:user:*'), '40 other keys', 'data is not counted as locks');
    assert.equal(described.get('lock:{orders:*}'), '1 lock');

    const warning = await eventually(() => api.locks.fitWarning(added.id), 'the warning');
    assert.match(warning, /match 63 keys on patterns, and only 2 of them are locks: the Locks view reads every key/);
    assert.match(warning, /They come from this workspace's settings \(.*settings\.json\)/);
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await takeScreenshot('workspace-patterns');
    // Read again: no second warning.
    await vscode.commands.executeCommand('locksmith.locks.refresh');
    assert.equal(api.locks.fitWarningsShown(), 1);
  });
});

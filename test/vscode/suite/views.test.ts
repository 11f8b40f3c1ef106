// The Locks and Lock Scripts views in a real extension host, against a password-protected
// throwaway redis-server: connections through the real commands (password in SecretStorage),
// seeded locks shown with owner, TTL and warnings, Release that leaves a lock that changed
// hands alone, Load Lock Scripts, and the messages for a bad URL and a wrong password.
import * as assert from 'node:assert/strict';
import Redis from 'ioredis';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { ConnectionConfig } from '../../../extension/src/connections/saved';
import type { LocksmithApi } from '../../../extension/src/extension';
import type { LockNode, LocksNode } from '../../../extension/src/views/nodes';
import { SCRIPT_NAMES } from '../../../pack/pack';
import { startRedis, type RedisServer } from '../../harness/redis';
import { eventually } from './eventually';
import { activateLocksmith } from './extension';
import { takeScreenshot } from './report';

const PASSWORD = 'view-test-password';

/** Shows a view alone: no notifications or panel over it, and time for the tree to render. */
async function showViewForScreenshot(focusCommand: string): Promise<void> {
  await vscode.commands.executeCommand('notifications.clearAll');
  await vscode.commands.executeCommand('workbench.action.closePanel');
  await vscode.commands.executeCommand(focusCommand);
  // Wide enough for owner and TTL next to the key: the sizing commands act on the editor part,
  // so a narrower editor makes a wider side bar.
  for (let i = 0; i < 4; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewWidth');
  await new Promise((resolve) => setTimeout(resolve, 1500));
}

suite('views', () => {
  let server: RedisServer;
  let redis: Redis;
  let api: LocksmithApi;
  let config: ConnectionConfig;

  suiteSetup(async () => {
    server = await startRedis({ password: PASSWORD });
    redis = server.client();
    api = (await activateLocksmith()).exports as LocksmithApi;
    const now = Date.now();
    await redis.set('lock:orders:42', 'api-1:4711:9f2c4e1ab37d5e60', 'PX', 60_000);
    await redis.set('fence:orders:42', '17');
    await redis.set('lock:nightly-report', 'cron-7:311:0d1e2f3a4b5c6d7e'); // SETNX-style, no TTL
    await redis.set('lock:invoice-sync', String(Math.floor(now / 1000) - 120)); // timestamp lock, expired 2 min ago
    await redis.set('cache:user:1', 'not a lock');
  });

  suiteTeardown(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  const url = () => `redis://127.0.0.1:${server.port}/0`;
  const locksOf = (): LockNode[] => {
    const root = api.locksTree.getChildren().find((node) => node.kind === 'connection' && node.config.id === config.id);
    assert.ok(root, 'the connection is in the tree');
    return api.locksTree.getChildren(root).filter((node): node is LockNode => node.kind === 'lock');
  };
  const item = (node: LocksNode) => api.locksTree.getTreeItem(node);
  const savedNames = () => api.ctx.connections.list().map((each) => each.name);

  test('a malformed URL is refused with a specific message and nothing is saved', async () => {
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; message: string }>(
      'locksmith.locks.addConnection',
      {
        name: 'bad',
        url: 'http://127.0.0.1:6379',
      },
    );
    assert.equal(outcome.ok, false);
    assert.match(outcome.message, /Unsupported scheme 'http': use redis:\/\/ or rediss:\/\//);
    assert.ok(!savedNames().includes('bad'), 'nothing saved');
  });

  test('a wrong password is refused with WRONGPASS and nothing is saved', async () => {
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; message: string }>(
      'locksmith.locks.addConnection',
      {
        name: 'wrong',
        url: url(),
        password: 'nope',
      },
    );
    assert.equal(outcome.ok, false);
    assert.match(outcome.message, /Wrong username or password .*WRONGPASS/);
    assert.ok(!savedNames().includes('wrong'), 'nothing saved');
  });

  test('Add Connection saves the connection, with the password only in SecretStorage', async () => {
    const outcome = await vscode.commands.executeCommand<{ ok: true; config: ConnectionConfig }>(
      'locksmith.locks.addConnection',
      { name: 'throwaway', url: url(), password: PASSWORD },
    );
    assert.equal(outcome.ok, true);
    config = outcome.config;
    const saved = vscode.workspace.getConfiguration('redisLocksmith').get<ConnectionConfig[]>('connections');
    assert.deepEqual(
      saved?.find((each) => each.id === config.id),
      { id: config.id, name: 'throwaway', url: url() },
    );
    assert.ok(!JSON.stringify(saved).includes(PASSWORD), 'no password in settings');
    assert.equal(await api.ctx.extension.secrets.get(`redisLocksmith.password.${config.id}`), PASSWORD);
  });

  test('the tree shows the seeded locks with owner and TTL, the no-TTL warning and the stale timestamp lock', async () => {
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const locks = await eventually(() => {
      const found = locksOf();
      return found.length >= 3 ? found : undefined;
    }, 'three locks listed');
    const byKey = new Map(locks.map((node) => [node.lock.key.toString(), item(node)]));
    assert.deepEqual([...byKey.keys()].sort(), ['lock:invoice-sync', 'lock:nightly-report', 'lock:orders:42']);
    const [, seconds] = /^api-1#4711 · (\d+) s$/.exec(String(byKey.get('lock:orders:42')!.description)) ?? [];
    assert.ok(
      Number(seconds) > 30 && Number(seconds) <= 60,
      `owner and TTL: ${byKey.get('lock:orders:42')!.description}`,
    );
    const orders = locks.find((node) => node.lock.key.toString() === 'lock:orders:42')!;
    const tooltip = (await api.locksTree.resolveTreeItem(item(orders), orders)).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /Fencing counter: 17/, 'fencing counter in the hover');
    assert.match(tooltip.value, /api-1:4711:9f2c4e1ab37d5e60/, 'the full token in the hover');
    const noTtl = byKey.get('lock:nightly-report')!;
    assert.match(String(noTtl.description), /no TTL/i);
    assert.equal((noTtl.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.match(String(byKey.get('lock:invoice-sync')!.description), /expired 2 min|expired 1[12]\d s/);
    // The replication picture, read with the view's own reads.
    assert.match(await api.locksTree.connectionTooltip(config), /Replication: no replica: nothing to fail over to/);
    await showViewForScreenshot('locksmith.locks.focus');
    await takeScreenshot('locks-view');
  });

  test('Release on a lock that changed hands deletes nothing and says so', async () => {
    const node = locksOf().find((candidate) => candidate.lock.key.toString() === 'lock:orders:42');
    assert.ok(node);
    await redis.set('lock:orders:42', 'api-2:5120:0123456789abcdef', 'PX', 60_000);
    const outcome = await vscode.commands.executeCommand('locksmith.locks.release', node, { confirmed: true });
    assert.equal(outcome, 'changed-hands');
    assert.equal(await redis.get('lock:orders:42'), 'api-2:5120:0123456789abcdef');
  });

  test('Release with the token shown deletes the lock', async () => {
    await vscode.commands.executeCommand('locksmith.locks.refresh');
    const node = await eventually(
      () =>
        locksOf().find(
          (candidate) =>
            candidate.lock.key.toString() === 'lock:orders:42' &&
            candidate.lock.kind === 'token' &&
            candidate.lock.token.toString().startsWith('api-2'),
        ),
      'the new holder listed',
    );
    assert.equal(
      await vscode.commands.executeCommand('locksmith.locks.release', node, { confirmed: true }),
      'released',
    );
    assert.equal(await redis.exists('lock:orders:42'), 0);
  });

  test('Load Lock Scripts makes SCRIPT EXISTS true, and the Scripts view says loaded', async () => {
    await redis.script('FLUSH');
    await api.scriptsTree.refresh();
    assert.equal(api.scriptsTree.isLoaded(config.id, 'acquire'), false);
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; shas: Record<string, string> }>(
      'locksmith.scripts.load',
      { kind: 'connection', config },
    );
    assert.equal(outcome.ok, true);
    const shas = SCRIPT_NAMES.map((name) => api.ctx.pack[name].sha1);
    assert.deepEqual(outcome.shas, Object.fromEntries(SCRIPT_NAMES.map((name, i) => [name, shas[i]])));
    assert.deepEqual(
      await redis.script('EXISTS', ...shas),
      shas.map(() => 1),
    );
    for (const name of SCRIPT_NAMES) assert.equal(api.scriptsTree.isLoaded(config.id, name), true);
    await showViewForScreenshot('locksmith.scripts.focus');
    await takeScreenshot('scripts-view');
  });

  test('without keyspace notifications the view polls; Enable (confirmed) sets the flags and new locks then arrive without a SCAN', async () => {
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const polling = await eventually(() => {
      const mode = api.locks.liveMode(config.id);
      return mode?.kind === 'polling' && mode.enable ? mode : undefined;
    }, 'polling with an offer to enable notifications');
    assert.match(polling.reason, /notify-keyspace-events '', without Kg\$x/);
    const root = api.locksTree
      .getChildren()
      .find((node) => node.kind === 'connection' && node.config.id === config.id)!;
    assert.equal(
      item(root).contextValue,
      'connection.connected.notifiable',
      'the menu offers Enable Keyspace Notifications',
    );
    assert.deepEqual(
      await redis.config('GET', 'notify-keyspace-events'),
      ['notify-keyspace-events', ''],
      'nothing changed before the user confirmed',
    );

    assert.equal(
      await vscode.commands.executeCommand('locksmith.locks.enableNotifications', root, { confirmed: true }),
      'live',
    );
    const [, flags] = (await redis.config('GET', 'notify-keyspace-events')) as string[];
    assert.match(flags, /K/);
    assert.match(item(root).description as string, /live/);
    const scans = Number(/cmdstat_scan:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    await redis.set('lock:live:1', 'worker-9:4242:aa11bb22cc33dd44', 'PX', 60_000);
    await eventually(
      () => (locksOf().some((node) => node.lock.key.toString() === 'lock:live:1') ? true : undefined),
      'the new lock in the tree',
    );
    await redis.del('lock:live:1');
    await eventually(
      () => (locksOf().every((node) => node.lock.key.toString() !== 'lock:live:1') ? true : undefined),
      'its deletion in the tree',
    );
    assert.equal(
      Number(/cmdstat_scan:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0),
      scans,
      'no re-scan: the events alone updated the tree',
    );
  });

  test('Remove Connection deletes its password from SecretStorage', async () => {
    const root = api.locksTree.getChildren().find((node) => node.kind === 'connection' && node.config.id === config.id);
    await vscode.commands.executeCommand('locksmith.locks.removeConnection', root, { confirmed: true });
    assert.equal(api.ctx.connections.get(config.id), undefined);
    assert.equal(await api.ctx.extension.secrets.get(`redisLocksmith.password.${config.id}`), undefined);
  });
});

// The Locks and Lock Scripts views in a real extension host, against a password-protected
// throwaway redis-server: connections through the real commands (password in SecretStorage),
// seeded locks shown with owner, TTL and warnings, Release that leaves a lock that changed
// hands alone, Load Lock Scripts, the messages for a bad URL and a wrong password, a hover that
// sends nothing to the server, and a short lease's tooltip that stays open while read. Each test adds the connection and the keys it needs and
// removes them again: any one passes alone (LOCKSMITH_TEST_GREP) and in any order.
import * as assert from 'node:assert/strict';
import Redis from 'ioredis';
import { setup, suite, suiteSetup, suiteTeardown, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { ConnectionConfig } from '../../../extension/src/connections/saved';
import type { LocksmithApi } from '../../../extension/src/extension';
import { connectionNode, type LocksNode } from '../../../extension/src/views/nodes';
import { SCRIPT_NAMES } from '../../../pack/pack';
import { startRedis, type RedisServer } from '../../../harness/redis';
import { addConnection, connectionRow, listedLock, lockRows, removeConnection } from './connection';
import { eventually } from './eventually';
import { activateLocksmith } from './extension';
import { hoverRow, takeScreenshot } from './report';

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

/** COMMAND and its subcommands (COMMAND INFO, COMMAND DOCS) run so far, from INFO commandstats. */
async function probesByCommand(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/^cmdstat_command(?:\|\w+)?:calls=(\d+)/gm)].reduce((sum, [, n]) => sum + Number(n), 0);
}

/** How often the server ran `command` (INFO commandstats; the INFO that asks is counted from the next call on). */
async function calls(redis: Redis, command: string): Promise<number> {
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await redis.info('commandstats'))?.[1] ?? 0);
}

suite('views', () => {
  let server: RedisServer;
  let redis: Redis;
  let api: LocksmithApi;
  /** The connection the running test added, removed after it. */
  let config: ConnectionConfig | undefined;

  suiteSetup(async () => {
    server = await startRedis({ password: PASSWORD });
    redis = server.client();
    api = (await activateLocksmith()).exports as LocksmithApi;
  });

  suiteTeardown(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  setup(async () => {
    await redis.flushall();
    await redis.script('FLUSH');
    await redis.config('SET', 'notify-keyspace-events', '');
  });

  teardown(async () => {
    await removeConnection(api, config);
    config = undefined;
  });

  const url = () => `redis://127.0.0.1:${server.port}/0`;
  const connect = async (name: string) => (config = await addConnection({ name, url: url(), password: PASSWORD }));
  const item = (node: LocksNode) => api.locksTree.getTreeItem(node);
  const savedNames = () => api.ctx.connections.list().map((each) => each.name);

  test('a malformed URL is refused with a specific message and nothing is saved', async () => {
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; message: string }>(
      'locksmith.locks.addConnection',
      { name: 'bad', url: 'http://127.0.0.1:6379' },
    );
    assert.equal(outcome.ok, false);
    assert.match(outcome.message, /Unsupported scheme 'http': use redis:\/\/ or rediss:\/\//);
    assert.ok(!savedNames().includes('bad'), 'nothing saved');
  });

  test('a wrong password is refused with WRONGPASS and nothing is saved', async () => {
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; message: string }>(
      'locksmith.locks.addConnection',
      { name: 'wrong', url: url(), password: 'nope' },
    );
    assert.equal(outcome.ok, false);
    assert.match(outcome.message, /Wrong username or password .*WRONGPASS/);
    assert.ok(!savedNames().includes('wrong'), 'nothing saved');
  });

  test('Add Connection saves the connection, with the password only in SecretStorage', async () => {
    const added = await connect('throwaway');
    const saved = vscode.workspace.getConfiguration('redisLocksmith').get<ConnectionConfig[]>('connections');
    assert.deepEqual(
      saved?.find((each) => each.id === added.id),
      { id: added.id, name: 'throwaway', url: url() },
    );
    assert.ok(!JSON.stringify(saved).includes(PASSWORD), 'no password in settings');
    assert.equal(await api.ctx.extension.secrets.get(`redisLocksmith.password.${added.id}`), PASSWORD);
  });

  test('the tree shows the seeded locks with owner and TTL, the no-TTL warning and the stale timestamp lock', async () => {
    await redis.set('lock:orders:42', 'api-1:4711:9f2c4e1ab37d5e60', 'PX', 60_000);
    await redis.set('fence:orders:42', '17');
    await redis.set('lock:nightly-report', 'cron-7:311:0d1e2f3a4b5c6d7e'); // SETNX-style, no TTL
    await redis.set('lock:invoice-sync', String(Math.floor(Date.now() / 1000) - 120)); // timestamp lock, expired 2 min ago
    await redis.set('cache:user:1', 'not a lock');
    const added = await connect('seeded');
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const locks = await eventually(() => {
      const found = lockRows(api, added);
      return found.length >= 3 ? found : undefined;
    }, 'three locks listed');
    assert.ok(
      api.walkthroughDone().has('locksListed'),
      'the walkthrough\'s "See the locks" is done once they are listed',
    );
    const byKey = new Map(locks.map((node) => [node.lock.key.toString(), item(node)]));
    assert.deepEqual([...byKey.keys()].sort(), ['lock:invoice-sync', 'lock:nightly-report', 'lock:orders:42']);
    const [, seconds] = /^api-1#4711 · (\d+) s$/.exec(String(byKey.get('lock:orders:42')!.description)) ?? [];
    assert.ok(
      Number(seconds) > 30 && Number(seconds) <= 60,
      `owner and TTL: ${byKey.get('lock:orders:42')!.description}`,
    );
    const orders = locks.find((node) => node.lock.key.toString() === 'lock:orders:42')!;
    const tooltip = api.locksTree.resolveTreeItem(item(orders), orders).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /Fencing counter: 17/, 'fencing counter in the hover');
    assert.match(tooltip.value, /api-1:4711:9f2c4e1ab37d5e60/, 'the full token in the hover');
    const noTtl = byKey.get('lock:nightly-report')!;
    assert.match(String(noTtl.description), /no TTL/i);
    assert.equal((noTtl.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.match(String(byKey.get('lock:invoice-sync')!.description), /expired 2 min|expired 1[12]\d s/);
    // The replication picture, read with the view's own reads.
    assert.match(api.locksTree.connectionTooltip(added), /Replication: no replica: nothing to fail over to/);
    await showViewForScreenshot('locksmith.locks.focus');
    await takeScreenshot('locks-view');
  });

  test('Release on a lock that changed hands deletes nothing and says so', async () => {
    await redis.set('lock:orders:42', 'api-1:4711:9f2c4e1ab37d5e60', 'PX', 60_000);
    const added = await connect('changed hands');
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const node = await listedLock(api, added, 'lock:orders:42');
    await redis.set('lock:orders:42', 'api-2:5120:0123456789abcdef', 'PX', 60_000);
    const outcome = await vscode.commands.executeCommand('locksmith.locks.release', node, { confirmed: true });
    assert.equal(outcome, 'changed-hands');
    assert.equal(await redis.get('lock:orders:42'), 'api-2:5120:0123456789abcdef');
  });

  test('Release with the token shown deletes the lock', async () => {
    await redis.set('lock:orders:42', 'api-2:5120:0123456789abcdef', 'PX', 60_000);
    const added = await connect('release');
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const node = await listedLock(
      api,
      added,
      'lock:orders:42',
      (candidate) => candidate.lock.kind === 'token' && candidate.lock.token.toString().startsWith('api-2'),
    );
    assert.equal(
      await vscode.commands.executeCommand('locksmith.locks.release', node, { confirmed: true }),
      'released',
    );
    assert.equal(await redis.exists('lock:orders:42'), 0);
  });

  test('Load Lock Scripts makes SCRIPT EXISTS true, and the Scripts view says loaded', async () => {
    const added = await connect('scripts');
    await api.ctx.connections.connect(added);
    await api.scriptsTree.refresh();
    assert.equal(api.scriptsTree.isLoaded(added.id, 'acquire'), false);
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; shas: Record<string, string> }>(
      'locksmith.scripts.load',
      connectionNode(added),
    );
    assert.equal(outcome.ok, true);
    const shas = SCRIPT_NAMES.map((name) => api.ctx.pack[name].sha1);
    assert.deepEqual(outcome.shas, Object.fromEntries(SCRIPT_NAMES.map((name, i) => [name, shas[i]])));
    assert.deepEqual(
      await redis.script('EXISTS', ...shas),
      shas.map(() => 1),
    );
    for (const name of SCRIPT_NAMES) assert.equal(api.scriptsTree.isLoaded(added.id, name), true);
    await showViewForScreenshot('locksmith.scripts.focus');
    await takeScreenshot('scripts-view');
  });

  test('without keyspace notifications the view polls; Enable (confirmed) sets the flags and new locks then arrive without a SCAN', async () => {
    const added = await connect('notifications');
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const polling = await eventually(() => {
      const mode = api.locks.liveMode(added.id);
      return mode?.kind === 'polling' && mode.enable ? mode : undefined;
    }, 'polling with an offer to enable notifications');
    assert.match(polling.reason, /notify-keyspace-events '', without Kg\$x/);
    const root = connectionRow(api, added);
    await eventually(
      () => (item(root).contextValue === 'connection.connected.notifiable' ? true : undefined),
      'the menu to offer Enable Keyspace Notifications',
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
    const scans = await calls(redis, 'scan');
    await redis.set('lock:live:1', 'worker-9:4242:aa11bb22cc33dd44', 'PX', 60_000);
    await listedLock(api, added, 'lock:live:1');
    await redis.del('lock:live:1');
    await eventually(
      () => (lockRows(api, added).every((node) => node.lock.key.toString() !== 'lock:live:1') ? true : undefined),
      'its deletion in the tree',
    );
    assert.equal(await calls(redis, 'scan'), scans, 'no re-scan: the events alone updated the tree');
  });

  test('hovering a connection sends the server nothing; its tooltip still says how Release and Extend run', async () => {
    await redis.set('lock:orders:42', 'api-1:4711:9f2c4e1ab37d5e60', 'PX', 60_000);
    const added = await connect('hover');
    await vscode.commands.executeCommand('locksmith.locks.focus');
    await listedLock(api, added, 'lock:orders:42');
    const row = connectionRow(api, added);
    // The path is read once per session when it connects; let that finish before counting.
    await eventually(() => api.locks.nativePath(added.id), 'the native path read at connect');
    // What the native-path probe sends (INFO; COMMAND INFO and COMMAND DOCS since pack v3).
    const probes = async () => (await calls(redis, 'info')) + (await probesByCommand(redis));
    const before = await probes();
    const { tooltip } = api.locksTree.resolveTreeItem(item(row), row);
    assert.equal(await probes(), before + 2, 'only the two INFO that count were sent');
    assert.equal(typeof tooltip, 'string');
    assert.match(tooltip as string, /Release and extend run the pack's Lua scripts/);
  });

  test('the tooltip of a lock with a TTL under 10 s stays open while the pointer rests on it', async function () {
    const key = 'lock:{tooltip:short}';
    const token = 'api-3:3131:5d2c8e1ab37d5e60';
    await redis.set(key, token, 'PX', 9_000);
    // Renewed as a worker would: while hovered its TTL counts down and goes back up at each re-read.
    const renew = setInterval(() => void redis.pexpire(key, 9_000), 1_500);
    try {
      const added = await connect('tooltips');
      await vscode.commands.executeCommand('locksmith.locks.focus');
      await listedLock(api, added, key);
      const samples = await hoverRow(key, 8_000);
      // Desktop VS Code's runner has no page to point at.
      if (!samples) return this.skip();
      const shown = samples.findIndex((sample) => sample.text?.includes(token));
      const seen = JSON.stringify(samples.map(({ at, text }) => [at, text?.slice(0, 40)]));
      assert.ok(shown >= 0 && samples[shown].at <= 2_500, `the tooltip shows within 2.5 s: ${seen}`);
      const closed = samples.slice(shown).filter((sample) => !sample.text?.includes(token));
      assert.deepEqual(
        closed.map((sample) => sample.at),
        [],
        `the tooltip stays open: ${seen}`,
      );
      assert.ok(samples.at(-1)!.at - samples[shown].at >= 5_000, `open for 5 s: ${seen}`);
    } finally {
      clearInterval(renew);
    }
  });

  test('Remove Connection deletes its password from SecretStorage', async () => {
    const added = await connect('removed');
    await vscode.commands.executeCommand('locksmith.locks.removeConnection', connectionNode(added), {
      confirmed: true,
    });
    assert.equal(api.ctx.connections.get(added.id), undefined);
    assert.equal(await api.ctx.extension.secrets.get(`redisLocksmith.password.${added.id}`), undefined);
  });
});

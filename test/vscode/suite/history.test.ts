// Lock history in a real extension host, from a throwaway Redis publishing keyspace
// notifications: a compare-and-delete release ends a hold as released, a SIGKILLed holder's
// hold ends as expired, a hidden Locks view leaves a gap (never a release or an expiry), the
// timeline keeps the notifications while it is open, many locks are grouped, the timeline panel
// opens on the history and follows it, and the history exports as CSV. Each test uses keys of its
// own on the suite's connection: any one passes alone and in any order.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { setup, suite, suiteSetup, suiteTeardown, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { ConnectionConfig } from '../../../extension/src/connections/saved';
import type { LocksmithApi } from '../../../extension/src/extension';
import { connectionNode, type GroupNode } from '../../../extension/src/views/nodes';
import { loadPack } from '../../../pack/pack';
import { LockScripts } from '../../../pack/runtime';
import { startRedis, type RedisServer } from '../../../harness/redis';
import { addConnection, connectionRow, listedLock, removeConnection } from './connection';
import { eventually } from './eventually';
import { activateLocksmith } from './extension';
import { takeScreenshot } from './report';

const ROOT = join(__dirname, '..', '..', '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

suite('lock history', () => {
  let server: RedisServer;
  let redis: Redis;
  let locks: LockScripts;
  let api: LocksmithApi;
  let config: ConnectionConfig;
  const scratch = mkdtempSync(join(tmpdir(), 'locksmith-history-'));

  suiteSetup(async () => {
    server = await startRedis({ args: ['--notify-keyspace-events', 'K$gxh'] });
    redis = server.client();
    locks = new LockScripts(redis, loadPack());
    api = (await activateLocksmith()).exports as LocksmithApi;
    config = await addConnection({ name: 'history', url: `redis://127.0.0.1:${server.port}/0` });
  });

  suiteTeardown(async () => {
    await removeConnection(api, config);
    locks?.close();
    redis?.disconnect();
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  setup(async () => {
    await vscode.commands.executeCommand('locksmith.locks.focus');
    await eventually(() => (history().observation().kind === 'events' ? true : undefined), 'the view live');
  });

  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const history = () => api.locks.history(config.id);
  const holds = () => history().holds();
  const holdOf = (token: string) => holds().find((hold) => hold.token === token);
  const endOf = (token: string) => holdOf(token)?.end;

  test('a compare-and-delete release ends the hold as released', async () => {
    const key = 'lock:{report:released}';
    await locks.acquire(key, 'api-1:4711:aaaa', 30_000);
    await eventually(() => holdOf('api-1:4711:aaaa'), 'the hold begins');
    assert.equal(await locks.release(key, 'api-1:4711:aaaa'), true);
    assert.equal(await eventually(() => endOf('api-1:4711:aaaa'), 'the hold ends'), 'released');
  });

  test("a SIGKILLed holder's hold ends as expired", async () => {
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'test', 'fixtures', 'holder.ts'),
        server.url,
        'plain',
        'lock:{report:killed}',
        'worker-3:99:doomed',
        '800',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await once(holder.stdout, 'data')) as [Buffer];
      assert.equal(String(line).trim(), 'holding');
      holder.kill('SIGKILL');
      assert.equal(await eventually(() => endOf('worker-3:99:doomed'), 'the lease to run out', 10_000), 'expired');
    } finally {
      holder.kill('SIGKILL');
    }
  });

  test('a hidden Locks view leaves a gap in the history: the hold it cut is not ended by a guess, nothing expired', async () => {
    const key = 'lock:{report:gap}';
    // A 2 s lease renewed every 500 ms while the view watches.
    await locks.acquire(key, 'gap-1:11:aaaa', 2_000);
    const renew = setInterval(() => void locks.extend(key, 'gap-1:11:aaaa', 2_000), 500);
    try {
      await eventually(() => holdOf('gap-1:11:aaaa'), 'the hold begins');
      await vscode.commands.executeCommand('workbench.view.explorer');
      await eventually(() => (history().observation().kind === 'none' ? true : undefined), 'observation to stop');
      assert.match(
        api.locksTree.connectionTooltip(config),
        /Not observed since \d\d:\d\d:\d\d \(the Locks view was hidden\): the lock history has a gap/,
      );
    } finally {
      clearInterval(renew);
    }
    // While nobody watches: released, taken by another, and longer than the lease passes.
    await locks.release(key, 'gap-1:11:aaaa');
    await locks.acquire(key, 'gap-2:22:bbbb', 30_000);
    await sleep(2_500);
    await vscode.commands.executeCommand('locksmith.locks.focus');
    const found = await eventually(() => holdOf('gap-2:22:bbbb'), 'the holder found when the view came back');
    const cut = holdOf('gap-1:11:aaaa')!;
    const gap = history().gaps().at(-1)!;
    assert.equal(cut.end, 'unobserved');
    assert.equal(cut.to, gap.from);
    assert.equal(gap.reason, 'the Locks view was hidden');
    assert.ok(gap.to! - gap.from >= 2_500, `the gap lasts while the view was hidden: ${gap.to! - gap.from} ms`);
    assert.deepEqual(found.startUnseen, { gapFrom: gap.from });
    assert.deepEqual(
      holds()
        .filter((hold) => hold.key === key)
        .map((hold) => hold.end ?? 'holding'),
      ['unobserved', 'holding'],
    );
    const row = await listedLock(api, config, key);
    const tooltip = api.locksTree.resolveTreeItem(api.locksTree.getTreeItem(row), row).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /gap-1#11: from .* ago, held at least .*, then not observed/);
    assert.match(tooltip.value, /Not observed from \d\d:\d\d:\d\d to \d\d:\d\d:\d\d \(the Locks view was hidden\)/);
    await locks.release(key, 'gap-2:22:bbbb');
  });

  test('while the Lock Timeline is open, the hidden view keeps its notifications: holds are still seen, and Live means live', async () => {
    const key = 'lock:{report:timeline}';
    await vscode.commands.executeCommand('locksmith.showTimeline', connectionNode(config));
    await vscode.commands.executeCommand('workbench.view.explorer');
    await eventually(() => (api.locks.isVisible ? undefined : true), 'the Locks view hidden');
    assert.equal(api.locks.liveMode(config.id)?.kind, 'notifications', 'still subscribed');
    assert.equal(history().observation().kind, 'events');
    await locks.acquire(key, 'seen-1:33:cccc', 30_000);
    await eventually(() => holdOf('seen-1:33:cccc'), 'the hold begins while the view is hidden');
    await locks.release(key, 'seen-1:33:cccc');
    assert.equal(await eventually(() => endOf('seen-1:33:cccc'), 'the hold seen while the view is hidden'), 'released');
    await eventually(
      () =>
        api.timeline.panel.picture().holds.find((hold) => hold.token === 'seen-1:33:cccc' && hold.end === 'released'),
      'the timeline drew it',
    );
    assert.equal(api.timeline.panel.picture().observation.kind, 'events');
    await vscode.commands.executeCommand('notifications.clearAll');
    await takeScreenshot('lock-timeline-view-hidden');
    // Closed, it keeps nothing subscribed: from then on, nothing is observed.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await eventually(() => (history().observation().kind === 'none' ? true : undefined), 'observation to stop');
  });

  test('above 25 locks the connection lists its lock groups first', async () => {
    const pipe = redis.pipeline();
    for (let i = 0; i < 30; i++) pipe.set(`lock:{orders:${i}}`, `api-2:${100 + i}:bbbb`, 'PX', 60_000);
    await pipe.exec();
    try {
      const root = connectionRow(api, config);
      const groups = await eventually(() => {
        const children = api.locksTree.getChildren(root).filter((node): node is GroupNode => node.kind === 'group');
        return children.some((group) => group.group === 'lock:{orders:*}' && group.locks.length === 30)
          ? children
          : undefined;
      }, 'the orders group with its 30 locks');
      const orders = groups.find((group) => group.group === 'lock:{orders:*}')!;
      assert.match(String(api.locksTree.getTreeItem(orders).description), /^30 locks/);
    } finally {
      await redis.del(...Array.from({ length: 30 }, (_, i) => `lock:{orders:${i}}`));
    }
  });

  test('Show Lock Timeline opens on the history and follows it; Export writes it as CSV', async () => {
    const key = 'lock:{report:export}';
    await locks.acquire(key, 'api-5:5151:aaaa', 30_000);
    await eventually(() => holdOf('api-5:5151:aaaa'), 'the hold begins');
    await locks.release(key, 'api-5:5151:aaaa');
    await locks.acquire(key, 'worker-6:66:short', 300);
    await eventually(() => endOf('worker-6:66:short'), 'the short lease to run out', 10_000);
    const root = connectionRow(api, config);
    const shown = await vscode.commands.executeCommand<{ connection: string; holds: number }>(
      'locksmith.showTimeline',
      root,
    );
    assert.equal(shown.connection, 'history');
    assert.equal(shown.holds, holds().length);
    await locks.acquire(key, 'api-7:77:follow', 30_000);
    await eventually(
      () => api.timeline.panel.picture().holds.find((hold) => hold.token === 'api-7:77:follow'),
      'the timeline follows the history',
    );
    await locks.release(key, 'api-7:77:follow');
    await eventually(() => endOf('api-7:77:follow'), 'its release');
    await vscode.commands.executeCommand('notifications.clearAll');
    await sleep(1500);
    await takeScreenshot('lock-timeline');
    const file = vscode.Uri.file(join(scratch, 'history.csv'));
    const exported = await vscode.commands.executeCommand<{ written: string; holds: number }>(
      'locksmith.locks.exportHistory',
      root,
      { format: 'csv', file },
    );
    const csv = readFileSync(exported.written, 'utf8');
    assert.match(csv, /^lock:\{report:export\},api-5#5151,api-5:5151:aaaa,[^,]+,[^,]+,\d+,released,/m);
    assert.match(csv, /^lock:\{report:export\},worker-6#66,worker-6:66:short,[^,]+,[^,]+,\d+,expired,/m);
  });

  test('Go to Code That Takes This Lock finds the acquire sites of the live key across the workspace', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const write = (path: string, text: string) =>
      vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, path), new TextEncoder().encode(text));
    await write(
      'billing/invoices.py',
      'import redis\n\nr = redis.Redis()\n\n\ndef pay(invoice_id, token):\n    r.set("lock:invoice:" + str(invoice_id), token, nx=True, px=30_000)\n',
    );
    await write(
      'web/invoices.ts',
      "import Redis from 'ioredis';\nconst redis = new Redis();\nexport async function pay(id: number, token: string) {\n  await redis.set(`lock:invoice:${id}`, token, 'PX', 30000, 'NX');\n}\n",
    );
    try {
      await redis.set('lock:invoice:42', 'api-9:9:cccc', 'PX', 60_000);
      const node = await listedLock(api, config, 'lock:invoice:42');
      const outcome = await eventually(
        async () => {
          const found = await vscode.commands.executeCommand<{ sites?: Array<{ path: string; line: number }> }>(
            'locksmith.locks.goToCode',
            node,
          );
          return found.sites?.length ? found : undefined;
        },
        'the language server to answer',
        20_000,
      );
      assert.deepEqual(outcome.sites!.map((site) => [site.path, site.line]).sort(), [
        ['billing/invoices.py', 6],
        ['web/invoices.ts', 3],
      ]);
      await takeScreenshot('go-to-code');
    } finally {
      await redis.del('lock:invoice:42');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      for (const dir of ['billing', 'web'])
        await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, dir), { recursive: true });
    }
  });
});

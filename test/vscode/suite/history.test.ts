// Lock history in a real extension host, from a throwaway Redis publishing keyspace
// notifications: a compare-and-delete release ends a hold as released, a SIGKILLed holder's
// hold ends as expired, many locks are grouped, the timeline panel opens on the history and
// follows it, and the history exports as CSV.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { ConnectionConfig } from '../../../extension/src/connections/saved';
import type { LocksmithApi } from '../../../extension/src/extension';
import { connectionNode, type GroupNode } from '../../../extension/src/views/nodes';
import { loadPack } from '../../../pack/pack';
import { LockScripts } from '../../../pack/runtime';
import { startRedis, type RedisServer } from '../../harness/redis';
import { eventually } from './eventually';
import { activateLocksmith } from './extension';
import { takeScreenshot } from './report';

const ROOT = join(__dirname, '..', '..', '..');
const KEY = 'lock:{report:nightly}';

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
    const outcome = await vscode.commands.executeCommand<{ ok: true; config: ConnectionConfig }>(
      'locksmith.locks.addConnection',
      { name: 'history', url: `redis://127.0.0.1:${server.port}/0` },
    );
    config = outcome.config;
    await vscode.commands.executeCommand('locksmith.locks.focus');
    await eventually(() => (api.locks.liveMode(config.id)?.kind === 'notifications' ? true : undefined), 'live');
  });

  suiteTeardown(async () => {
    if (config) {
      await vscode.commands.executeCommand('locksmith.locks.removeConnection', connectionNode(config), {
        confirmed: true,
      });
    }
    redis?.disconnect();
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const holds = () => api.locks.history(config.id).holds();
  const endOf = (token: string) => holds().find((hold) => hold.token === token)?.end;

  test('a compare-and-delete release ends the hold as released', async () => {
    await locks.acquire(KEY, 'api-1:4711:aaaa', 30_000);
    await eventually(() => holds().find((hold) => hold.token === 'api-1:4711:aaaa'), 'the hold begins');
    assert.equal(await locks.release(KEY, 'api-1:4711:aaaa'), true);
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
        KEY,
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

  test('above 25 locks the connection lists its lock groups first', async () => {
    const pipe = redis.pipeline();
    for (let i = 0; i < 30; i++) pipe.set(`lock:{orders:${i}}`, `api-2:${100 + i}:bbbb`, 'PX', 60_000);
    await pipe.exec();
    const root = api.locksTree
      .getChildren()
      .find((node) => node.kind === 'connection' && node.config.id === config.id)!;
    const groups = await eventually(() => {
      const children = api.locksTree.getChildren(root).filter((node): node is GroupNode => node.kind === 'group');
      return children.some((group) => group.group === 'lock:{orders:*}' && group.locks.length === 30)
        ? children
        : undefined;
    }, 'the orders group with its 30 locks');
    const orders = groups.find((group) => group.group === 'lock:{orders:*}')!;
    assert.match(String(api.locksTree.getTreeItem(orders).description), /^30 locks/);
  });

  test('Show Lock Timeline opens on the history and follows it; Export writes it as CSV', async () => {
    const root = api.locksTree.getChildren().find((node) => node.kind === 'connection' && node.config.id === config.id);
    const shown = await vscode.commands.executeCommand<{ connection: string; holds: number }>(
      'locksmith.showTimeline',
      root,
    );
    assert.equal(shown.connection, 'history');
    assert.ok(shown.holds >= 32, `${shown.holds} holds drawn`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await takeScreenshot('lock-timeline');
    const file = vscode.Uri.file(join(scratch, 'history.csv'));
    const exported = await vscode.commands.executeCommand<{ written: string; holds: number }>(
      'locksmith.locks.exportHistory',
      root,
      { format: 'csv', file },
    );
    const csv = readFileSync(exported.written, 'utf8');
    assert.match(csv, /^lock:\{report:nightly\},api-1#4711,api-1:4711:aaaa,[^,]+,[^,]+,\d+,released,/m);
    assert.match(csv, /^lock:\{report:nightly\},worker-3#99,worker-3:99:doomed,[^,]+,[^,]+,\d+,expired,/m);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
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
      const root = api.locksTree
        .getChildren()
        .find((node) => node.kind === 'connection' && node.config.id === config.id)!;
      const node = await eventually(() => {
        api.locksTree.getChildren(root);
        return api.locksTree.lockNode(config.id, 'lock:invoice:42');
      }, 'the invoice lock listed');
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
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      for (const dir of ['billing', 'web'])
        await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, dir), { recursive: true });
    }
  });
});

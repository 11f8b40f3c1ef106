// "Insert Lock Snippet" inserts the vetted snippet into a real editor, and the static snippets
// (contributes.snippets) are registered for the client languages.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { loadPack } from '../../../pack/pack';

/**
 * A new untitled document of its own (named, so VS Code never hands back one a test before left
 * behind), shown in an editor.
 */
async function scratch(extension: string, content: string): Promise<vscode.TextEditor> {
  const folder = vscode.workspace.workspaceFolders![0].uri;
  const uri = vscode.Uri.joinPath(folder, `scratch-${randomUUID()}.${extension}`).with({ scheme: 'untitled' });
  const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
  if (content) await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), content));
  return editor;
}

suite('snippets', () => {
  const pack = loadPack();

  test("Insert Lock Snippet puts the client's guard at the cursor, tabstop defaults filled", async () => {
    const editor = await scratch('py', 'import redis\n\n');
    const { document } = editor;
    editor.selection = new vscode.Selection(2, 0, 2, 0);
    const outcome = await vscode.commands.executeCommand('locksmith.insertLockSnippet', {
      client: 'redis-py',
      pattern: 'guard',
      variant: 'inline',
    });
    assert.deepEqual(outcome, { inserted: 'inline', client: 'redis-py', pattern: 'guard' });
    const text = document.getText();
    assert.ok(text.startsWith('import redis\n\n# Redis lock (Redis Locksmith, guarded section)'), text.slice(0, 200));
    assert.ok(text.includes(pack.acquire.source.trimEnd()), "the pack's acquire script, verbatim");
    assert.ok(text.includes(pack.release.source.trimEnd()), "the pack's release script, verbatim");
    assert.match(text, /^lock_key = "lock:\{order:42\}"$/m);
    assert.match(text, /^lock_ttl_ms = 10000$/m);
    // The cursor sits on the first tabstop, the key, ready to be typed over.
    assert.equal(document.getText(editor.selection), '"lock:{order:42}"');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('the static snippets are registered: lock-renew-inline for ioredis expands in a JavaScript file', async () => {
    const editor = await scratch('js', '');
    await vscode.commands.executeCommand('editor.action.insertSnippet', {
      langId: 'javascript',
      name: 'Auto-extending lease, inline (ioredis)',
    });
    const text = editor.document.getText();
    assert.ok(text.includes("redis.defineCommand('locksmithExtend'"), text.slice(0, 300));
    assert.ok(text.includes(pack.extend.source.trimEnd()));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test("the helper's call site snippet for Python carries its import and no Lua", async () => {
    const editor = await scratch('py', '');
    await vscode.commands.executeCommand('editor.action.insertSnippet', {
      langId: 'python',
      name: 'Guarded section (redis-py)',
    });
    const text = editor.document.getText();
    assert.ok(text.startsWith('from locksmith import lock\nwith lock(r, "lock:{order:42}", ttl_ms=10000):\n'), text);
    assert.ok(!text.includes(pack.acquire.source.trimEnd()), 'no Lua at the call site');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('in a project file: the helper is added once, and each call site imports it at the top', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const write = async (path: string, text: string) => {
      const uri = vscode.Uri.joinPath(folder, path);
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
      return uri;
    };
    const insertAtEnd = async (uri: vscode.Uri) => {
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
      editor.selection = new vscode.Selection(end, end);
      return {
        editor,
        outcome: await vscode.commands.executeCommand('locksmith.insertLockSnippet', {
          client: 'redis-py',
          pattern: 'guard',
          variant: 'helper',
        }),
      };
    };
    const source = 'import redis\n\nr = redis.Redis()\n\n';
    const first = await insertAtEnd(await write('jobs/report.py', source));
    assert.deepEqual(first.outcome, {
      inserted: 'helper',
      client: 'redis-py',
      pattern: 'guard',
      helper: 'jobs/locksmith.py',
    });
    const text = first.editor.document.getText();
    assert.ok(text.startsWith('import redis\nfrom locksmith import lock\n\nr = redis.Redis()\n'), text);
    assert.ok(text.split('\n').length - source.split('\n').length <= 8, `at most 8 lines added:\n${text}`);
    assert.ok(!text.includes('redis.call'), 'no Lua at the call site');
    const helper = new TextDecoder().decode(
      await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, 'jobs/locksmith.py')),
    );
    for (const name of ['acquire', 'release', 'extend'] as const)
      assert.ok(helper.includes(pack[name].sha1), `${name} SHA1 in the header`);
    await vscode.commands.executeCommand('workbench.action.files.save');

    const second = await insertAtEnd(await write('jobs/cleanup.py', source));
    assert.deepEqual(second.outcome, {
      inserted: 'helper',
      client: 'redis-py',
      pattern: 'guard',
      helper: 'jobs/locksmith.py',
    });
    await vscode.commands.executeCommand('workbench.action.files.save');
    const helpers = await vscode.workspace.findFiles('**/locksmith.py');
    assert.equal(helpers.length, 1, 'one copy of the Lua in the workspace');
    assert.deepEqual(await vscode.commands.executeCommand('locksmith.addLockHelper', { client: 'redis-py' }), {
      ok: true,
      path: 'jobs/locksmith.py',
      action: 'up-to-date',
      kinds: [],
    });
    // A kind goes into the same file, at its place; asking again keeps it.
    assert.deepEqual(
      await vscode.commands.executeCommand('locksmith.addLockHelper', { client: 'redis-py', kinds: ['semaphore'] }),
      { ok: true, path: 'jobs/locksmith.py', action: 'updated', kinds: ['semaphore'] },
    );
    assert.deepEqual(
      await vscode.commands.executeCommand('locksmith.addLockHelper', { client: 'redis-py', kinds: ['reentrant'] }),
      { ok: true, path: 'jobs/locksmith.py', action: 'updated', kinds: ['reentrant', 'semaphore'] },
    );
    assert.equal((await vscode.workspace.findFiles('**/locksmith.py')).length, 1, 'still one helper');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, 'jobs'), { recursive: true });
  });
});

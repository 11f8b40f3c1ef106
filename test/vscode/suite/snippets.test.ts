// "Insert Lock Snippet" inserts the vetted snippet into a real editor, and the static snippets
// (contributes.snippets) are registered for the client languages.
import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { loadPack } from '../../../pack/pack';

suite('snippets', () => {
  const pack = loadPack();

  test("Insert Lock Snippet puts the client's guard at the cursor, tabstop defaults filled", async () => {
    const document = await vscode.workspace.openTextDocument({ language: 'python', content: 'import redis\n\n' });
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(2, 0, 2, 0);
    await vscode.commands.executeCommand('locksmith.insertLockSnippet', { client: 'redis-py', pattern: 'guard' });
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
    const document = await vscode.workspace.openTextDocument({ language: 'javascript', content: '' });
    const editor = await vscode.window.showTextDocument(document);
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
    const document = await vscode.workspace.openTextDocument({ language: 'python', content: '' });
    const editor = await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('editor.action.insertSnippet', {
      langId: 'python',
      name: 'Guarded section (redis-py)',
    });
    const text = editor.document.getText();
    assert.ok(text.startsWith('from locksmith import lock\nwith lock(r, "lock:{order:42}", ttl_ms=10000):\n'), text);
    assert.ok(!text.includes(pack.acquire.source.trimEnd()), 'no Lua at the call site');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});

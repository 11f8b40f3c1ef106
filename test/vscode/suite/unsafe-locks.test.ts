// The language server in a real editor: unsafe lock code gets its diagnostics, with the rule's
// README link, and the quick fix replaces it with the vetted lock.
import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { eventually } from './eventually';
import { takeScreenshot } from './report';

const UNSAFE = [
  'import redis',
  '',
  'r = redis.Redis()',
  '',
  '',
  'def rebuild_report(report_id):',
  '    key = f"lock:report:{report_id}"',
  '    if r.setnx(key, "1"):',
  '        r.expire(key, 30)',
  '        build(report_id)',
  '        r.delete(key)',
  '',
].join('\n');

const codeOf = (diagnostic: vscode.Diagnostic) =>
  typeof diagnostic.code === 'object' ? String(diagnostic.code.value) : String(diagnostic.code);

suite('unsafe locks', () => {
  test('diagnostics appear in the editor, and the fix replaces them with the vetted lock', async () => {
    const document = await vscode.workspace.openTextDocument({ language: 'python', content: UNSAFE });
    await vscode.window.showTextDocument(document);
    const ours = () => vscode.languages.getDiagnostics(document.uri).filter((d) => d.source === 'Redis Locksmith');
    const diagnostics = await eventually(
      () => (ours().length >= 3 ? ours() : undefined),
      'the language server published its diagnostics',
      20_000,
    );
    assert.deepEqual(diagnostics.map((d) => `${d.range.start.line}:${codeOf(d)}`).sort(), [
      '10:LOCK003',
      '7:LOCK001',
      '7:LOCK006',
    ]);
    const lock001 = diagnostics.find((d) => codeOf(d) === 'LOCK001')!;
    assert.equal(document.getText(lock001.range), 'setnx(key, "1")');
    assert.equal(lock001.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(String((lock001.code as { target: vscode.Uri }).target), /readme\.md#L\d+$/i);
    await takeScreenshot('unsafe-locks-diagnostics');

    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      document.uri,
      lock001.range,
    );
    const titles = actions.map((action) => action.title);
    assert.ok(titles.includes('Explain LOCK001'), titles.join(', '));
    const replace = actions.find((action) => action.title === "Replace with Locksmith's vetted lock (redis-py)");
    assert.ok(replace?.edit, titles.join(', '));
    assert.ok(await vscode.workspace.applyEdit(replace.edit));
    const text = document.getText();
    assert.match(text, /lock_key = key\n/);
    assert.match(text, /lock_ttl_ms = 30000\n/);
    assert.match(text, /locksmith_acquire = r\.register_script/);
    assert.match(text, /try:\n {8}build\(report_id\)\n {4}finally:/);
    await eventually(() => (ours().length === 0 ? true : undefined), 'the fixed code has no diagnostics', 20_000);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});

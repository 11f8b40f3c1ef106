// The language server in a real editor: unsafe lock code gets its diagnostics, with the rule's
// link to its section of docs/rules.md, and the quick fix replaces it with the vetted lock.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { loadPack } from '../../../pack/pack';
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
  const pack = loadPack();
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
    assert.match(String((lock001.code as { target: vscode.Uri }).target), /\/docs\/rules\.md#L\d+$/);
    await takeScreenshot('unsafe-locks-diagnostics');

    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      document.uri,
      lock001.range,
    );
    const titles = actions.map((action) => action.title);
    assert.ok(titles.includes('Explain LOCK001'), titles.join(', '));
    const replace = actions.find((action) => action.title.startsWith("Replace with Locksmith's vetted lock, inline"));
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

  test("in a project: the fix calls the project's lock helper, adding it once, and LOCK008 keeps it current", async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const demo = readFileSync(join(__dirname, '..', '..', '..', 'demo', 'workspace', 'report_job.py'), 'utf8');
    const fixFile = async (path: string, text: string, expectedTitle: RegExp) => {
      const uri = vscode.Uri.joinPath(folder, path);
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document);
      const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Redis Locksmith');
      const [first] = await eventually(() => (ours().length ? ours() : undefined), `diagnostics in ${path}`, 20_000);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        first.range,
      );
      const fix = actions.find((action) => expectedTitle.test(action.title));
      assert.ok(fix?.edit, actions.map((action) => action.title).join(', '));
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      // The edit leaves the changed and the created files unsaved, as any edit does: save them as a user would.
      for (const each of vscode.workspace.textDocuments)
        if (each.isDirty) assert.ok(await each.save(), `saved ${each.uri.path}`);
      await eventually(() => (ours().length === 0 ? true : undefined), `no diagnostics left in ${path}`, 20_000);
      return document.getText();
    };
    try {
      const fixed = await fixFile(
        'jobs/report_job.py',
        demo,
        /^Replace with a call of the project's lock helper \(redis-py\), adding locksmith\.py$/,
      );
      assert.ok(fixed.split('\n').length <= 40, `${fixed.split('\n').length} lines:\n${fixed}`);
      assert.match(fixed, /^from locksmith import lock$/m);
      assert.match(fixed, /with lock\(r, "lock:nightly-report", ttl_ms=600000\):/);
      await vscode.commands.executeCommand('notifications.clearAll');
      await takeScreenshot('lock-fix-helper');
      const helperUri = vscode.Uri.joinPath(folder, 'jobs', 'locksmith.py');
      const onDisk = new TextDecoder().decode(await vscode.workspace.fs.readFile(helperUri));
      const helper = (await vscode.workspace.openTextDocument(helperUri)).getText();
      assert.equal(onDisk.length, helper.length, `on disk ${onDisk.length}, in the editor ${helper.length}`);
      for (const name of ['acquire', 'release', 'extend'] as const) assert.ok(helper.includes(pack[name].sha1), name);

      await fixFile(
        'jobs/cleanup_job.py',
        demo.replace(/nightly-report/g, 'cleanup'),
        /^Replace with a call of the project's lock helper \(redis-py\)$/,
      );
      assert.equal(
        (await vscode.workspace.findFiles('**/locksmith.py')).length,
        1,
        'one copy of the Lua in the workspace',
      );

      // An old copy of the helper: another release.lua than the installed pack's.
      await vscode.workspace.fs.writeFile(
        helperUri,
        new TextEncoder().encode(helper.replace(pack.release.sha1, '0'.repeat(40))),
      );
      const old = await vscode.workspace.openTextDocument(helperUri);
      await vscode.window.showTextDocument(old);
      const lock008 = await eventually(
        () => vscode.languages.getDiagnostics(helperUri).find((d) => codeOf(d) === 'LOCK008'),
        'LOCK008 on the outdated helper',
        20_000,
      );
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        helperUri,
        lock008.range,
      );
      const update = actions.find((action) => action.title === 'Update lock helper from the installed pack');
      assert.ok(update?.edit, actions.map((action) => action.title).join(', '));
      assert.ok(await vscode.workspace.applyEdit(update.edit));
      assert.equal(old.getText(), helper, "the helper is the installed pack's again");
      await eventually(
        () => (vscode.languages.getDiagnostics(helperUri).some((d) => codeOf(d) === 'LOCK008') ? undefined : true),
        'LOCK008 gone',
        20_000,
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, 'jobs'), { recursive: true });
    }
  });
});

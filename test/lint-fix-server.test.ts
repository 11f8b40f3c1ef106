// The fixes as the language server offers them to an editor (over stdio, as VS Code's client or
// any LSP editor sees them): a fix is the preferred quick fix, suggestions are quick fixes that are
// not preferred, named for what they change; edits follow the document's line breaks; the
// project's manifests (which client library a fix writes for) are read once and read again when
// the editor says one changed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { CodeAction, TextEdit } from 'vscode-languageserver-protocol';
import { applyEdits, LspClient } from '../harness/lsp';

const TUTORIAL = [
  'import redis',
  '',
  'r = redis.Redis()',
  '',
  '',
  'def rebuild(report_id, token):',
  '    key = f"lock:report:{report_id}"',
  '    if not r.setnx(key, token):',
  '        return',
  '    r.expire(key, 30)',
  '    try:',
  '        build(report_id)',
  '    finally:',
  '        r.delete(key)',
  '',
].join('\n');

const folder = mkdtempSync(join(tmpdir(), 'locksmith-fix-server-'));
after(() => rmSync(folder, { recursive: true, force: true }));

let server: LspClient;
before(async () => {
  server = await LspClient.start({ folders: [folder], editor: true });
});
after(async () => {
  await server.stop();
});

/** The code actions of the diagnostic with `code` in a document opened with `text`. */
async function actionsOf(name: string, languageId: string, text: string, code: string) {
  const uri = pathToFileURL(join(folder, name)).href;
  const diagnostics = await server.open(uri, languageId, text);
  const diagnostic = diagnostics.find((each) => each.code === code);
  assert.ok(diagnostic, `${code} in ${name}: ${diagnostics.map((each) => String(each.code)).join(', ')}`);
  const actions = await server.codeActions(uri, diagnostic.range, [diagnostic]);
  await server.close(uri);
  return { uri, actions, diagnostic };
}

const editsOf = (action: CodeAction, uri: string): TextEdit[] => action.edit?.changes?.[uri] ?? [];

describe('fixes and suggestions', () => {
  test('LOCK001: the preferred quick fix moves the lease into the SET; the try variant and the waiting helper rewrite are suggestions', async () => {
    const { uri, actions, diagnostic } = await actionsOf('job.py', 'python', TUTORIAL, 'LOCK001');
    const titles = actions.map((action) => `${action.isPreferred ? '*' : ' '} ${action.title}`);
    assert.deepEqual(titles, [
      '* Take the lock and its lease in one command (SET NX EX), without the EXPIRE',
      "  Replace with the lock helper's try variant (one try, skips when busy as before), adding locksmith.py",
      "  Replace with a call of the project's lock helper (redis-py), adding locksmith.py",
      '  Explain LOCK001',
    ]);
    assert.deepEqual(actions[0].diagnostics, [diagnostic]);
    const fixed = applyEdits(TUTORIAL, editsOf(actions[0], uri));
    assert.match(fixed, /^ {4}if not r\.set\(key, token, nx=True, ex=30\):\n {8}return\n {4}try:$/m);
    assert.doesNotMatch(fixed, /expire/);
  });

  test('LOCK002: only suggestions, none preferred, named for what they change', async () => {
    const text = TUTORIAL.replace('    r.expire(key, 30)\n', '');
    const { actions } = await actionsOf('job2.py', 'python', text, 'LOCK002');
    assert.ok(actions.every((action) => !action.isPreferred));
    assert.deepEqual(
      actions.map((action) => action.title),
      [
        'Add a 30 s lease (the lock never expired before: work longer than that loses it)',
        "Replace with the lock helper's try variant (one try, skips when busy as before) with a 30 s lease the lock did not have, adding locksmith.py",
        "Replace with a call of the project's lock helper (redis-py), adding locksmith.py",
        'Explain LOCK002',
      ],
    );
  });

  test('Windows line breaks: every inserted line break is CRLF', async () => {
    const text = TUTORIAL.replace(/\n/g, '\r\n');
    const { uri, actions } = await actionsOf('crlf.py', 'python', text, 'LOCK001');
    for (const action of actions.filter((each) => each.edit)) {
      const edits: TextEdit[] = editsOf(action, uri).length
        ? editsOf(action, uri)
        : (action.edit!.documentChanges ?? []).flatMap((change) =>
            'edits' in change && change.textDocument.uri === uri
              ? change.edits.flatMap((edit) => ('newText' in edit ? [edit] : []))
              : [],
          );
      assert.ok(edits.length, action.title);
      for (const edit of edits)
        assert.doesNotMatch(
          edit.newText.replace(/\r\n/g, ''),
          /\n/,
          `${action.title}: ${JSON.stringify(edit.newText)}`,
        );
    }
  });
});

describe('refactoring a lock class', () => {
  test('"Convert this lock class to the lock helper" on the class: every finding in it, one edit', async () => {
    const text = readFileSync(join(__dirname, 'fixtures', 'fix', 'python', 'lock-class-injected-client.py'), 'utf8');
    const uri = pathToFileURL(join(folder, 'redis_lock.py')).href;
    const diagnostics = await server.open(uri, 'python', text);
    assert.equal(diagnostics.length, 4);
    const line = text.split('\n').findIndex((each) => each.startsWith('class RedisLock'));
    const at = { line, character: 6 };
    const actions = await server.codeActions(uri, { start: at, end: at }, []);
    await server.close(uri);
    const refactor = actions.find((action) => action.kind === 'refactor.rewrite');
    assert.equal(refactor?.title, 'Convert this lock class to the lock helper (its release, renewal and tokens)');
    const changes = refactor.edit?.documentChanges ?? [];
    assert.ok(
      changes.some((change) => 'kind' in change && change.kind === 'create' && change.uri.endsWith('/locksmith.py')),
    );
    const edits = changes.flatMap((change) =>
      'edits' in change && change.textDocument.uri === uri
        ? change.edits.flatMap((edit) => ('newText' in edit ? [edit] : []))
        : [],
    );
    assert.equal(edits.length, 1, 'one edit of the class');
    const converted = applyEdits(text, edits);
    assert.match(converted, /^from locksmith import extend_lock, release_lock$/m);
    assert.match(converted, /if self\.client\.set\(self\.key, self\.token, nx=True, ex=self\.ttl_s\):/);
    assert.match(converted, /release_lock\(self\.client, self\.key, self\.token\)/);
    assert.equal((converted.match(/extend_lock\(self\.client/g) ?? []).length, 2);
    const convertedUri = `${uri}.converted.py`;
    assert.deepEqual(await server.open(convertedUri, 'python', converted), [], 'nothing left to report');
    await server.close(convertedUri);
  });
});

describe('manifests', () => {
  const PREDIS = [
    '<?php',
    '',
    'class InvoiceLock',
    '{',
    '    public function __construct(private $redis) {}',
    '',
    '    public function acquire(string $id, string $token): bool',
    '    {',
    '        $key = "lock:invoice:$id";',
    '        if ($this->redis->setnx($key, $token) == 1) {',
    '            $this->redis->expire($key, 30);',
    '            return true;',
    '        }',
    '        return false;',
    '    }',
    '}',
    '',
  ].join('\n');

  test('the server watches them, and a fix follows a manifest that changed', async () => {
    const registration = server.registered.find((each) => each.method === 'workspace/didChangeWatchedFiles');
    assert.match(JSON.stringify(registration?.registerOptions), /composer\.json/);
    const project = join(folder, 'billing');
    mkdirSync(project);
    const fixTitles = async () =>
      (await actionsOf('billing/InvoiceLock.php', 'php', PREDIS, 'LOCK001')).actions
        .filter((action) => action.isPreferred)
        .map((action) => action.title);
    assert.deepEqual(await fixTitles(), [], 'phpredis or Predis: no import says which, so no fix');
    writeFileSync(join(project, 'composer.json'), '{ "require": { "predis/predis": "^2.2" } }\n');
    assert.deepEqual(await fixTitles(), [], 'the cached folder until the editor says the manifest changed');
    server.filesChanged([{ path: join(project, 'composer.json'), type: 1 }]);
    const { uri, actions } = await actionsOf('billing/InvoiceLock.php', 'php', PREDIS, 'LOCK001');
    const fix = actions.find((action) => action.isPreferred);
    assert.ok(fix, actions.map((action) => action.title).join(', '));
    const fixed = applyEdits(PREDIS, editsOf(fix, uri));
    assert.match(fixed, /if \(\$this->redis->set\(\$key, \$token, 'EX', 30, 'NX'\) !== null\) \{\n {12}return true;/);
  });
});

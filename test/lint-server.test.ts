// The language server over stdio, as an editor drives it: incremental edits (the tree follows
// them, UTF-16 offsets included), settings pulled per document and re-read on change, Explain,
// closing, hostile input; and no diagnostics on any code the snippet generator writes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { loadPack } from '../pack/pack';
import { CLIENTS } from '../snippets/clients';
import { PATTERNS } from '../snippets/patterns';
import { renderCode } from '../snippets/render';
import { LINTED_LANGUAGES } from '../server/src/languages';
import { LspClient } from '../harness/lsp';

const pack = loadPack();
const codes = (diagnostics: Diagnostic[]) =>
  diagnostics.map((d) => `${d.range.start.line}:${d.range.start.character}:${d.code}`);

// Line 2 holds a correct acquire; an emoji before it makes UTF-16 and code point offsets differ.
const SAFE_JS = [
  "import Redis from 'ioredis'; // 🔒 locks for the 📦 export",
  'export async function run(redis, key, token, work) {',
  "  const ok = await redis.set(key, token, 'PX', 30000, 'NX'); // 🔒",
  '  if (!ok) return;',
  '  try { await work(); } finally {',
  "    await redis.eval(\"local k = KEYS[1] if redis.call('GET', k) == ARGV[1] then return redis.call('DEL', k) end return 0\", 1, key, token);",
  '  }',
  '}',
  '',
].join('\n');

describe('one server, edited like an editor does', () => {
  let server: LspClient;
  before(async () => {
    server = await LspClient.start();
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  test('incremental edits add and remove findings at the right UTF-16 positions', async () => {
    const uri = 'file:///work/edits.js';
    assert.deepEqual(await server.open(uri, 'javascript', SAFE_JS), []);
    const line = SAFE_JS.split('\n')[2];
    const px = line.indexOf("'PX', 30000, ");
    // Delete the lease: LOCK002 on `set`, whose column counts the emoji as two UTF-16 units.
    const removed = await server.change(uri, [
      { range: { start: { line: 2, character: px }, end: { line: 2, character: px + 13 } }, text: '' },
    ]);
    assert.deepEqual(codes(removed), [`2:${line.indexOf('set(')}:LOCK002`]);
    // Put it back, then make the value constant: LOCK006 only.
    const restored = await server.change(uri, [
      { range: { start: { line: 2, character: px }, end: { line: 2, character: px } }, text: "'PX', 30000, " },
    ]);
    assert.deepEqual(restored, []);
    const token = line.indexOf('token');
    const constant = await server.change(uri, [
      { range: { start: { line: 2, character: token }, end: { line: 2, character: token + 5 } }, text: "'1'" },
    ]);
    assert.deepEqual(codes(constant), [`2:${line.indexOf('set(')}:LOCK006`]);
    await server.close(uri);
  });

  test('a burst of keystrokes is checked once, for the last version', async () => {
    const uri = 'file:///work/burst.py';
    const text =
      'import redis\nr = redis.Redis()\n\ndef f(lock_key, token):\n    r.set(lock_key, token, nx=True, px=1000)\n';
    assert.deepEqual(await server.open(uri, 'python', text), []);
    const published: number[] = [];
    const watch = async () => {
      for (;;) {
        const diagnostics = await server.diagnostics(uri);
        published.push(diagnostics.length);
        if (diagnostics.length === 1) return;
      }
    };
    const watching = watch();
    // Type ", px=1000" away one character at a time (9 versions), faster than the debounce.
    const at = text.split('\n')[4].indexOf(', px=1000');
    let last: Promise<Diagnostic[]> | undefined;
    for (let i = 9; i > 0; i--) {
      last = server.change(uri, [
        { range: { start: { line: 4, character: at + i - 1 }, end: { line: 4, character: at + i } }, text: '' },
      ]);
    }
    const final = await last!;
    await watching;
    assert.deepEqual(
      final.map((d) => d.code),
      ['LOCK002'],
    );
    assert.ok(published.length < 9, `published ${published.length} times for 9 edits`);
    await server.close(uri);
  });

  test('a full-text change replaces the tree', async () => {
    const uri = 'file:///work/full.go';
    const diagnostics = await server.open(
      uri,
      'go',
      'package x\nimport "github.com/redis/go-redis/v9"\nvar _ = redis.Nil\n',
    );
    assert.deepEqual(diagnostics, []);
    const changed = await server.change(uri, [
      { text: 'package x\nimport "github.com/redis/go-redis/v9"\nfunc f() { rdb.SetNX(ctx, "lock:a", "1", 0) }\n' },
    ]);
    assert.deepEqual(
      changed.map((d) => d.code),
      ['LOCK002', 'LOCK006'],
    );
    await server.close(uri);
  });

  test('closing a document clears its diagnostics', async () => {
    const uri = 'file:///work/closed.rb';
    const opened = await server.open(uri, 'ruby', "require 'redis'\ndef f(redis)\n  redis.setnx('lock:x', 1)\nend\n");
    assert.deepEqual(
      opened.map((d) => d.code),
      ['LOCK002', 'LOCK006'],
    );
    assert.deepEqual(await server.close(uri), []);
  });

  test('hostile input: broken syntax, binary bytes, a 1 MB line, an unknown language', async () => {
    const broken = await server.open(
      'file:///work/broken.java',
      'java',
      'import redis.clients.jedis.Jedis; class { void f( { jedis.setnx(key, "1"',
    );
    assert.ok(broken.every((d) => d.source === 'Redis Locksmith'));
    assert.deepEqual(
      await server.open('file:///work/binary.php', 'php', `<?php // redis\n${'\u0000\uFFFD\uD800'.repeat(1000)}`),
      [],
    );
    assert.deepEqual(
      await server.open('file:///work/long.ts', 'typescript', `// redis\nconst s = "${'x'.repeat(1_000_000)}";\n`),
      [],
    );
    assert.deepEqual(await server.open('file:///work/bad.lua', 'lua', 'local x = = redis.call('), []);
    await server.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: 'file:///work/x.kt', languageId: 'kotlin', version: 1, text: 'redis.setnx(k, 1)' },
    });
    // Still answering: a document opened after all that gets its diagnostics.
    const after = await server.open(
      'file:///work/after.py',
      'python',
      'import redis\ndef f(r):\n    r.setnx("lock:a", "1")\n',
    );
    assert.deepEqual(
      after.map((d) => d.code),
      ['LOCK002', 'LOCK006'],
    );
  });

  test('Explain shows the rule in docs/rules.md, at its heading', async () => {
    await server.connection.sendRequest('workspace/executeCommand', {
      command: 'locksmith.server.explainRule',
      arguments: ['LOCK004'],
    });
    const shown = server.shown.at(-1)!;
    assert.match(shown.uri, /^file:\/\/.*\/docs\/rules\.md$/);
    const lines = readFileSync(join(__dirname, '..', 'docs', 'rules.md'), 'utf8').split('\n');
    assert.match(lines[shown.selection!.start.line], /^## LOCK004: /);
    // An unknown code shows nothing.
    await server.connection.sendRequest('workspace/executeCommand', {
      command: 'locksmith.server.explainRule',
      arguments: ['LOCK999'],
    });
    assert.equal(server.shown.at(-1), shown);
  });
});

describe('settings: redisLocksmith.lint, pulled per document', () => {
  let settings: unknown = {};
  let server: LspClient;
  before(async () => {
    server = await LspClient.start({ settings: () => settings });
  });
  after(async () => {
    await server.stop();
  });
  const UNSAFE = "const redis = require('ioredis');\nasync function f(redis) { await redis.setnx('lock:a', 1); }\n";

  test('severity per rule, rules off, and malformed values ignored', async () => {
    settings = { rules: { LOCK002: 'error', LOCK006: 'off', LOCK001: 'loud', NOPE: 'error' } };
    const diagnostics = await server.open('file:///work/s1.js', 'javascript', UNSAFE);
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.severity]),
      [['LOCK002', 1]],
    );
  });

  test('languages and enable; a configuration change re-checks open documents', async () => {
    settings = { languages: ['python'] };
    assert.deepEqual(await server.open('file:///work/s2.js', 'javascript', UNSAFE), []);
    settings = { enable: true };
    const rechecked = server.diagnostics('file:///work/s2.js');
    server.configurationChanged();
    assert.deepEqual(
      (await rechecked).map((d) => d.code),
      ['LOCK002', 'LOCK006'],
    );
    settings = { enable: false };
    const disabled = server.diagnostics('file:///work/s2.js');
    server.configurationChanged();
    assert.deepEqual(await disabled, []);
  });
});

describe('settings pushed by an editor without workspace/configuration (standalone --stdio)', () => {
  let server: LspClient;
  before(async () => {
    server = await LspClient.start();
  });
  after(async () => {
    await server.stop();
  });
  const UNSAFE = "const redis = require('ioredis');\nasync function f(redis) { await redis.setnx('lock:a', 1); }\n";
  const push = (settings: unknown) =>
    server.connection.sendNotification('workspace/didChangeConfiguration', { settings });

  test('redisLocksmith.lint from didChangeConfiguration applies, and re-checks open documents', async () => {
    const uri = 'file:///work/pushed.js';
    await push({ redisLocksmith: { lint: { rules: { LOCK006: 'off', LOCK002: 'error' } } } });
    assert.deepEqual(
      (await server.open(uri, 'javascript', UNSAFE)).map((d) => [d.code, d.severity]),
      [['LOCK002', 1]],
    );
    const rechecked = server.diagnostics(uri);
    await push({ redisLocksmith: { lint: { enable: false } } });
    assert.deepEqual(await rechecked, []);
    // Malformed or missing settings fall back to the defaults.
    const restored = server.diagnostics(uri);
    await push({ something: 'else' });
    assert.deepEqual(
      (await restored).map((d) => d.code),
      ['LOCK002', 'LOCK006'],
    );
    await server.close(uri);
  });
});

describe('no diagnostics on any snippet the generator writes', () => {
  let server: LspClient;
  before(async () => {
    server = await LspClient.start();
  });
  after(async () => {
    await server.stop();
  });
  for (const client of CLIENTS) {
    const languageId = client.languageIds.find((id) => (LINTED_LANGUAGES as readonly string[]).includes(id));
    if (!languageId) continue;
    for (const pattern of PATTERNS) {
      test(`${client.id} ${pattern}`, async () => {
        const code = renderCode(client.id, pattern, pack, {
          key: client.quote('lock:{order:42}'),
          body: client.defaultBody,
        });
        assert.deepEqual(
          await server.open(`file:///work/snippet-${client.id}-${pattern}.${client.extension}`, languageId, code),
          [],
        );
      });
    }
  }
});

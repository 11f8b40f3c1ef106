// The built language server runs standalone over stdio and answers `initialize`; the manifest
// matches what the bundles and the server expect.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { readPackageJson } from './packageJson';
import { isAnalyzable } from '../server/src/analysis';
import { syntaxFor } from '../server/src/analysis/syntax';
import { GRAMMARS, LANGUAGE_GRAMMARS, LINTED_LANGUAGES } from '../server/src/languages';

const ROOT = join(__dirname, '..');
const SERVER = join(ROOT, 'server', 'out', 'server.js');

test('node server/out/server.js --stdio speaks LSP: initialize, shutdown, exit', async () => {
  assert.ok(existsSync(SERVER), `${SERVER} is missing: run npm run build`);
  const server = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  const connection = createMessageConnection(
    new StreamMessageReader(server.stdout),
    new StreamMessageWriter(server.stdin),
  );
  connection.listen();
  try {
    const result = await connection.sendRequest<{ serverInfo?: { name: string }; capabilities: object }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
    });
    assert.equal(result.serverInfo?.name, 'redis-locksmith');
    assert.equal(typeof result.capabilities, 'object');
    await connection.sendNotification('initialized', {});
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    assert.equal(await exited, 0);
  } finally {
    connection.dispose();
    server.kill();
  }
});

test('the manifest: entry point built, engine 1.100, activation on the linted languages', () => {
  const manifest = readPackageJson(ROOT);
  assert.equal(manifest.name, 'redis-locksmith');
  assert.equal(manifest.displayName, 'Redis Locksmith');
  assert.equal(manifest.engines.vscode, '^1.100.0');
  assert.match(manifest.devDependencies['@types/vscode'], /^~1\.100\./);
  assert.ok(existsSync(join(ROOT, manifest.main)), `${manifest.main} is missing: run npm run build`);
  assert.deepEqual(manifest.activationEvents, [
    ...LINTED_LANGUAGES.map((language) => `onLanguage:${language}`),
    // The Lock Timeline panel, restored after a window reload (test/timeline.test.ts).
    'onWebviewPanel:locksmith.timeline',
  ]);
});

test('one language table: every linted language has its grammar built and is analysed; nothing else is', () => {
  const manifest = readPackageJson(ROOT);
  const lintLanguages = manifest.contributes.configuration.properties['redisLocksmith.lint.languages'].items?.enum;
  assert.deepEqual(lintLanguages, Object.keys(LANGUAGE_GRAMMARS));
  for (const language of LINTED_LANGUAGES) {
    assert.ok(isAnalyzable(language), language);
    // Lua files have their own checks; every other language has host-language rules.
    assert.equal(syntaxFor(language) === undefined, LANGUAGE_GRAMMARS[language] === 'lua', language);
  }
  for (const grammar of GRAMMARS)
    assert.ok(existsSync(join(ROOT, 'server', 'out', 'wasm', `tree-sitter-${grammar}.wasm`)));
  for (const other of ['kotlin', 'rust', 'plaintext', 'toString']) assert.equal(isAnalyzable(other), false, other);
});

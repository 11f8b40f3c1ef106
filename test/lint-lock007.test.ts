// LOCK007 once per script: the first call with an undeclared key is reported, the script's other
// such calls come as related information, and a script whose every undeclared key is built on a
// declared key or argument (a queue's `{prefix}`) is reported one severity step lower, in the
// analysis and through the language server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { analyzeText } from '../server/src/analysis';
import { LspClient } from '../harness/lsp';

// Every key is built on KEYS[1], the queue's prefix (user code the linter reads: a fixture).
const PREFIXED = readFileSync(join(__dirname, 'fixtures', 'lock007', 'queue-prefixed.lua'), 'utf8');
// The same, but one key is read from a hash: it may belong to another queue.
const MIXED = readFileSync(join(__dirname, 'fixtures', 'lock007', 'queue-mixed.lua'), 'utf8');

const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length - 1;

describe('the analysis', () => {
  test('one finding per script, at its first offending call, the others related', async () => {
    const findings = await analyzeText('lua', PREFIXED);
    assert.equal(findings.length, 1);
    const [finding] = findings;
    assert.equal(finding.code, 'LOCK007');
    assert.equal(lineOf(PREFIXED, finding.start), 1);
    assert.deepEqual(
      finding.related?.map((place) => lineOf(PREFIXED, place.start)),
      [3, 5],
    );
    assert.match(finding.message, /2 more calls like it/);
    assert.equal(finding.minor, true);
  });

  test('a key built on something undeclared keeps the script at full severity', async () => {
    const [finding, ...rest] = await analyzeText('lua', MIXED);
    assert.equal(rest.length, 0);
    assert.equal(finding.related?.length, 3);
    assert.equal(finding.minor, undefined);
  });

  test('a script embedded in a host language is one script too', async () => {
    const js = `const Redis = require('ioredis');\nconst redis = new Redis();\nconst SCRIPT = \`\n${MIXED}\`;\nmodule.exports = () => redis.eval(SCRIPT, 2, 'q:', 'job');\n`;
    const findings = await analyzeText('javascript', js);
    assert.deepEqual(
      findings.map((finding) => [finding.code, finding.related?.length]),
      [['LOCK007', 3]],
    );
  });
});

describe('through the language server', () => {
  let server: LspClient;
  before(async () => {
    server = await LspClient.start();
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  test('related information points at the other calls; the prefixed script is information, not a warning', async () => {
    const prefixed = await server.open('file:///work/promote.lua', 'lua', PREFIXED);
    assert.equal(prefixed.length, 1);
    assert.equal(prefixed[0].severity, 3);
    assert.deepEqual(
      prefixed[0].relatedInformation?.map((info) => [info.location.uri, info.location.range.start.line]),
      [
        ['file:///work/promote.lua', 3],
        ['file:///work/promote.lua', 5],
      ],
    );
    const mixed = await server.open('file:///work/finish.lua', 'lua', MIXED);
    assert.equal(mixed.length, 1);
    assert.equal(mixed[0].severity, 2);
  });
});

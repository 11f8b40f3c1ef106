// The fixture corpus (test/fixtures/lint/, see its README, and the fix shapes in
// test/fixtures/fix/) through the real language server over stdio: every file gets exactly the
// diagnostics its `expect:` markers name, on the marked lines, starting at the flagged call. What
// each finding's fixes do is lint-fix-fixtures.test.ts's.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { LspClient } from '../harness/lsp';

const ROOT = join(__dirname, 'fixtures', 'lint');
/** The fix shapes: their findings are checked here as well. */
const FIX_ROOT = join(__dirname, 'fixtures', 'fix');
const LANGUAGE: Record<string, string> = {
  js: 'javascript',
  ts: 'typescript',
  py: 'python',
  java: 'java',
  go: 'go',
  php: 'php',
  cs: 'csharp',
  rb: 'ruby',
  lua: 'lua',
};
const RULES_PAGE_LINES = readFileSync(join(__dirname, '..', 'docs', 'rules.md'), 'utf8').split('\n');

interface Fixture {
  name: string;
  path: string;
  languageId: string;
  text: string;
  expected: string[];
  /** 0-based lines whose diagnostics are minor, one severity step lower (`expect: LOCK007 minor`). */
  minorLines: number[];
}

const MARKER = /expect:\s*(LOCK\d{3}(?:\s*,\s*LOCK\d{3})*)(.*)/;

function fixtures(): Fixture[] {
  return [ROOT, FIX_ROOT].flatMap((root) =>
    readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((dir) =>
        readdirSync(join(root, dir.name)).map((file) => {
          const text = readFileSync(join(root, dir.name, file), 'utf8');
          const markers = text.split('\n').map((line) => MARKER.exec(line));
          const expected = markers.flatMap((marker, i) =>
            marker ? marker[1].split(/\s*,\s*/).map((code) => `${i + 1}:${code}`) : [],
          );
          return {
            name: `${root === FIX_ROOT ? 'fix/' : ''}${dir.name}/${file}`,
            path: join(root, dir.name, file),
            languageId: LANGUAGE[file.slice(file.lastIndexOf('.') + 1)],
            text,
            expected: expected.sort(),
            minorLines: markers.flatMap((marker, i) => (marker && /^\s+minor\b/.test(marker[2]) ? [i] : [])),
          };
        }),
      ),
  );
}

const found = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.range.start.line + 1}:${d.code}`).sort();

const all = fixtures();
let server: LspClient;
before(async () => {
  server = await LspClient.start();
});
after(async () => {
  await server.stop();
});

test('the corpus covers every rule in every language, positive and negative', () => {
  const languages = [...new Set(Object.values(LANGUAGE))];
  for (const language of languages) {
    const codes =
      language === 'lua'
        ? ['LOCK007']
        : ['LOCK001', 'LOCK002', 'LOCK003', 'LOCK004', 'LOCK005', 'LOCK006', 'LOCK007', 'LOCK009', 'LOCK010'];
    for (const code of codes) {
      for (const kind of ['positive', 'negative']) {
        const count = all.filter((f) => f.languageId === language && f.name.includes(`/${code}-${kind}-`)).length;
        assert.ok(count >= 1, `no ${kind} ${code} fixture for ${language}`);
      }
    }
  }
  assert.ok(
    all.some((f) => f.name.includes('/seed-')),
    'the seed articles are in the corpus',
  );
});

describe('each fixture gets exactly its marked diagnostics', () => {
  for (const fixture of all) {
    test(fixture.name, async () => {
      const uri = pathToFileURL(fixture.path).href;
      const diagnostics = await server.open(uri, fixture.languageId, fixture.text);
      assert.deepEqual(found(diagnostics), fixture.expected);
      const lines = fixture.text.split('\n');
      for (const diagnostic of diagnostics) {
        const { start, end } = diagnostic.range;
        const flagged = lines[start.line].slice(start.character);
        // Starts at the method name (or `redis.call` in Lua), ends after the call.
        assert.match(flagged, /^[A-Za-z_]/, `${diagnostic.code} starts at "${flagged.slice(0, 20)}"`);
        assert.ok(end.line > start.line || end.character > start.character);
        // Warnings (2); a minor finding one step lower, information (3).
        assert.equal(diagnostic.severity, fixture.minorLines.includes(start.line) ? 3 : 2);
        assert.equal(diagnostic.source, 'Redis Locksmith');
        const href = diagnostic.codeDescription?.href ?? '';
        const line = Number(/#L(\d+)$/.exec(href)?.[1]);
        assert.ok(
          href.includes('/docs/rules.md#') && RULES_PAGE_LINES[line - 1]?.startsWith(`## ${diagnostic.code}: `),
          `${href} points at the rule's section of docs/rules.md`,
        );
      }
      await server.close(uri);
    });
  }
});

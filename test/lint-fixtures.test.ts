// The fixture corpus (test/fixtures/lint/, see its README) through the real language server
// over stdio: every file gets exactly the diagnostics its `expect:` markers name, on the
// marked lines, starting at the flagged call; exactly the diagnostics marked `fix` offer the
// vetted-lock fix, and applying it leaves parseable code with none of the fixed problems and no
// new ones.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { parserFor } from '../server/src/analysis/parsers';
import { syntaxFor } from '../server/src/analysis/syntax';
import { applyEdits, LspClient } from './harness/lsp';

const ROOT = join(__dirname, 'fixtures', 'lint');
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
  languageId: string;
  text: string;
  expected: string[];
  /** 0-based lines whose diagnostics offer the vetted-lock fix (`expect: LOCK002 fix`). */
  fixLines: number[];
  /** 0-based lines whose diagnostics are minor, one severity step lower (`expect: LOCK007 minor`). */
  minorLines: number[];
}

const MARKER = /expect:\s*(LOCK\d{3}(?:\s*,\s*LOCK\d{3})*)(\s+minor\b)?(\s+fix\b)?/;

function fixtures(): Fixture[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(join(ROOT, dir.name)).map((file) => {
        const text = readFileSync(join(ROOT, dir.name, file), 'utf8');
        const lines = text.split('\n');
        const expected = lines.flatMap((line, i) => {
          const marker = MARKER.exec(line);
          return marker ? marker[1].split(/\s*,\s*/).map((code) => `${i + 1}:${code}`) : [];
        });
        const fixLines = lines.flatMap((line, i) => (MARKER.exec(line)?.[3] ? [i] : []));
        const minorLines = lines.flatMap((line, i) => (MARKER.exec(line)?.[2] ? [i] : []));
        return {
          name: `${dir.name}/${file}`,
          languageId: LANGUAGE[file.slice(file.lastIndexOf('.') + 1)],
          text,
          expected: expected.sort(),
          fixLines,
          minorLines,
        };
      }),
    );
}

const found = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.range.start.line + 1}:${d.code}`).sort();

async function parsesCleanly(languageId: string, text: string): Promise<boolean> {
  const syntax = syntaxFor(languageId);
  if (!syntax) return true;
  const tree = (await parserFor(syntax.grammar)).parse(text)!;
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

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
      const uri = pathToFileURL(join(ROOT, fixture.name)).href;
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

describe('quick fixes: exactly the marked diagnostics get the vetted lock, and it replaces the flagged code', () => {
  for (const fixture of all.filter((f) => f.expected.length > 0)) {
    test(fixture.name, async () => {
      const uri = pathToFileURL(join(ROOT, fixture.name)).href;
      const diagnostics = await server.open(uri, fixture.languageId, fixture.text);
      const offered: number[] = [];
      let fixes = 0;
      for (const diagnostic of diagnostics) {
        const actions = await server.codeActions(uri, diagnostic.range, [diagnostic]);
        assert.ok(
          actions.some((a) => a.title === `Explain ${diagnostic.code}`),
          `${diagnostic.code} has Explain`,
        );
        const replace = actions.find((a) => a.title.startsWith("Replace with Locksmith's vetted lock"));
        if (!replace) continue;
        offered.push(diagnostic.range.start.line);
        fixes++;
        const fixed = applyEdits(fixture.text, replace.edit!.changes![uri]);
        const fixedUri = `${uri}.fixed-${fixes}`;
        const after = await server.open(fixedUri, fixture.languageId, fixed);
        await server.close(fixedUri);
        assert.ok(await parsesCleanly(fixture.languageId, fixed), `the fixed ${fixture.name} parses:\n${fixed}`);
        // Nothing new: whatever is still reported was reported before (same code, same line text).
        const before = new Set(
          diagnostics.map((d) => `${d.code} ${fixture.text.split('\n')[d.range.start.line].trim()}`),
        );
        for (const d of after) {
          assert.ok(
            before.has(`${d.code} ${fixed.split('\n')[d.range.start.line].trim()}`),
            `the fix introduced ${d.code}: ${JSON.stringify(d.message)}`,
          );
        }
        assert.ok(after.length < diagnostics.length, `the fix removed ${diagnostic.code}`);
        assert.ok(
          !after.some(
            (d) =>
              d.code === diagnostic.code &&
              fixed.split('\n')[d.range.start.line].trim() ===
                fixture.text.split('\n')[diagnostic.range.start.line].trim(),
          ),
        );
      }
      await server.close(uri);
      const lineNumbers = (lines: number[]) => [...new Set(lines)].sort((a, b) => a - b).map((line) => line + 1);
      assert.deepEqual(lineNumbers(offered), lineNumbers(fixture.fixLines), 'the lines that offer the fix');
    });
  }
});

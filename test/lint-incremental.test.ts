// The kept analysis of an edited document (incremental reparse, unit facts reused by position
// and by text, trees dropped and rebuilt) equals a fresh analysis of the same text whenever the
// text parses cleanly (with syntax errors an incremental parse may recover differently from a
// fresh one, in tree-sitter itself).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Edit } from '@vscode/tree-sitter-wasm';
import { AnalyzedDocument, analyzeText, type Finding } from '../server/src/analysis';
import { parserFor } from '../server/src/analysis/parsers';
import { grammarOf } from '../server/src/languages';
import { random } from '../bench/lint-corpus';

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

const point = (text: string, index: number) => {
  const before = text.slice(0, index).split('\n');
  return { row: before.length - 1, column: before[before.length - 1].length };
};

/** Replaces `[start, end)` of `text` with `insert`: the new text and the tree-sitter edit. */
function edit(text: string, start: number, end: number, insert: string): { text: string; edit: Edit } {
  const next = text.slice(0, start) + insert + text.slice(end);
  return {
    text: next,
    edit: {
      startIndex: start,
      oldEndIndex: end,
      newEndIndex: start + insert.length,
      startPosition: point(text, start),
      oldEndPosition: point(text, end),
      newEndPosition: point(next, start + insert.length),
    },
  };
}

async function parsesCleanly(languageId: string, text: string): Promise<boolean> {
  const tree = (await parserFor(grammarOf(languageId)!)).parse(text)!;
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

const summary = (findings: Finding[]) =>
  findings.map((f) => `${f.start}-${f.end} ${f.code} ${f.fix?.start ?? ''} ${f.fix?.unusedToken?.start ?? ''}`);

for (const dir of readdirSync(ROOT, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
  test(`${dir.name}: random edits to every fixture keep the findings of a fresh analysis`, async () => {
    const next = random(dir.name.length * 7919);
    let compared = 0;
    for (const file of readdirSync(join(ROOT, dir.name))) {
      const languageId = LANGUAGE[file.slice(file.lastIndexOf('.') + 1)];
      let text = readFileSync(join(ROOT, dir.name, file), 'utf8');
      const document = new AnalyzedDocument(languageId);
      try {
        assert.deepEqual(summary(await document.analyze(text)), summary(await analyzeText(languageId, text)), file);
        for (let round = 0; round < 12; round++) {
          // Insert or delete at a random place: a blank line, a comment-safe space, or a line's removal.
          const at = Math.floor(next() * text.length);
          const lineStart = text.lastIndexOf('\n', at - 1) + 1;
          const lineEnd = text.indexOf('\n', at);
          const change =
            round % 3 === 0
              ? edit(text, lineStart, lineStart, '\n')
              : round % 3 === 1
                ? edit(text, at, at, ' ')
                : edit(text, lineStart, lineEnd < 0 ? text.length : lineEnd + 1, '');
          document.edit(change.edit);
          text = change.text;
          if (round === 6) document.dropTree();
          const findings = await document.analyze(text);
          if (!(await parsesCleanly(languageId, text))) continue;
          compared++;
          assert.deepEqual(
            summary(findings),
            summary(await analyzeText(languageId, text)),
            `${file} after edit ${round}`,
          );
        }
      } finally {
        document.dispose();
      }
    }
    // Most edits (blank lines, spaces, most line deletions) leave the code parseable.
    assert.ok(compared > 20, `only ${compared} edits left parseable code`);
  });
}

// The two fixture folders the fix tests read: test/fixtures/fix/ (the fix shapes, see its README)
// and test/fixtures/lint/ (the linter's corpus), and the outcome words of their `expect:` markers:
// `expect: LOCK001 fix`, `expect: LOCK002 suggest`, `expect: LOCK003 none:token-flow`, one word for
// every code on the line or one per code in order (`expect: LOCK001, LOCK006 fix suggest`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIX_FIXTURES = join(__dirname, 'fixtures', 'fix');
export const LINT_FIXTURES = join(__dirname, 'fixtures', 'lint');

export const LANGUAGE_OF: Record<string, string> = {
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

export interface FixtureFile {
  folder: string;
  /** The language folder (`python`). */
  language: string;
  file: string;
  /** `fix/python/lock-class.py`. */
  name: string;
  path: string;
  extension: string;
  text: string;
}

export function fixtureFiles(folders: readonly string[] = [FIX_FIXTURES, LINT_FIXTURES]): FixtureFile[] {
  return folders.flatMap((folder) =>
    readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((dir) =>
        readdirSync(join(folder, dir.name)).map((file) => ({
          folder,
          language: dir.name,
          file,
          name: `${folder === FIX_FIXTURES ? 'fix' : 'lint'}/${dir.name}/${file}`,
          path: join(folder, dir.name, file),
          extension: file.slice(file.lastIndexOf('.') + 1),
          text: readFileSync(join(folder, dir.name, file), 'utf8'),
        })),
      ),
  );
}

export interface Outcome {
  kind: 'fix' | 'suggest' | 'none';
  /** For none: the reason's code (`token-flow`), when the marker names one. */
  reason?: string;
}

const MARKER = /expect:\s*(LOCK\d{3}(?:\s*,\s*LOCK\d{3})*)((?:\s+(?:minor|fix|suggest|none(?::[\w-]+)?)\b)*)/;

/** `line:code` -> the outcome its marker names (1-based lines); codes without an outcome word are left out. */
export function outcomesOf(text: string): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  text.split('\n').forEach((line, i) => {
    const marker = MARKER.exec(line);
    if (!marker) return;
    const codes = marker[1].split(/\s*,\s*/);
    // `minor` is a severity (lint-fixtures.test.ts), not an outcome.
    const words = marker[2]
      .trim()
      .split(/\s+/)
      .filter((word) => word && word !== 'minor');
    codes.forEach((code, j) => {
      const word = words.length === 1 ? words[0] : words[j];
      if (!word) return;
      const [kind, reason] = word.split(':') as [Outcome['kind'], string | undefined];
      out.set(`${i + 1}:${code}`, { kind, ...(reason && { reason }) });
    });
  });
  return out;
}

// Imports around a fix: the lines a fix's new code needs (placed as Insert Lock Snippet places
// them), and the lines only the removed code used (`import socket` for a hostname that was the
// lock's value, Go's `uuid`), which go with it. An import the file did not use before the fix
// stays: cleaning up the user's own file is not the fix's business.
import { CLIENTS } from '../../../snippets/clients';
import { planImports, unusedGoImports } from '../../../snippets/imports';
import { identifierPattern } from '../analysis/tree';
import type { TextChange } from '../lockFix';
import type { FixDocument } from './document';

/** The edit that adds `lines` after the file's imports (none when it has them all). */
export function importEdits(
  document: Pick<FixDocument, 'languageId' | 'text'>,
  lines: readonly string[],
): TextChange[] {
  const client = CLIENTS.find((each) => each.languageIds.includes(document.languageId));
  if (!client || !lines.length) return [];
  if (document.languageId === 'go') {
    const block = goImportBlock(document.text, lines);
    if (block) return block;
  }
  const insertion = planImports(client, document.text, lines);
  return insertion ? [{ start: insertion.offset, end: insertion.offset, text: insertion.text }] : [];
}

/**
 * Go: new imports go into the file's `import ( ... )` block, sorted into the groups gofmt and
 * goimports keep: the standard library's into its group (the first; a group of their own at the
 * top when it has none), a module's into the last group of modules (a group of their own at the
 * end when it has none).
 */
function goImportBlock(text: string, lines: readonly string[]): TextChange[] | undefined {
  const block = /^import \($/m.exec(text);
  if (!block) return undefined;
  const bodyStart = block.index + block[0].length + 1;
  const close = text.indexOf('\n)', block.index);
  if (close < 0) return undefined;
  const path = (spec: string) => spec.replace(/^\w+\s+/, '');
  const specs = lines
    .map((line) => /^import\s+(.+)$/.exec(line)?.[1] ?? line)
    .filter((spec) => !text.slice(bodyStart, close).includes(spec))
    .sort((a, b) => (path(a) < path(b) ? -1 : path(a) > path(b) ? 1 : 0));
  const isStandard = (spec: string) => !/^"[^"/]*\./.test(path(spec));
  // The block's groups: runs of lines between blank lines.
  const groups: { start: number; spec: string }[][] = [[]];
  for (let at = bodyStart; at <= close;) {
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end).trim();
    if (line) groups.at(-1)!.push({ start: at, spec: line });
    else if (groups.at(-1)!.length) groups.push([]);
    at = end + 1;
  }
  const filled = groups.filter((group) => group.length);
  const standard = filled[0]?.every((entry) => isStandard(entry.spec)) ? filled[0] : undefined;
  const modules = [...filled].reverse().find((group) => group.every((entry) => !isStandard(entry.spec)));
  const edits: TextChange[] = [];
  const insert = (at: number, text: string) => {
    // Specs that go in at one place are one edit, in order.
    const same = edits.find((edit) => edit.start === at);
    if (same) same.text += text;
    else edits.push({ start: at, end: at, text });
  };
  for (const spec of specs) {
    const group = isStandard(spec) ? standard : modules;
    if (!group) {
      // A group of its own: the standard library's first, a module's last.
      if (isStandard(spec)) insert(bodyStart, `\t${spec}\n${filled.length ? '\n' : ''}`);
      else insert(close + 1, `${filled.length ? '\n' : ''}\t${spec}\n`);
      continue;
    }
    const next = group.find((entry) => path(entry.spec) > path(spec));
    insert(next ? next.start : text.indexOf('\n', group.at(-1)!.start) + 1, `\t${spec}\n`);
  }
  return edits;
}

interface ImportLine {
  start: number;
  end: number;
  /** The names the line binds. */
  names: string[];
}

/** Ruby requires and the constant each one defines. */
const RUBY_CONSTANTS: Record<string, string> = {
  securerandom: 'SecureRandom',
  socket: 'Socket',
  digest: 'Digest',
  json: 'JSON',
  'digest/sha1': 'Digest',
};

const splitNames = (list: string) =>
  list
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) =>
      part
        .split(/\s+as\s+|\s*:\s*/)
        .at(-1)!
        .trim(),
    );

/** The names one line of an import binds, or undefined when it is no import line this reads. */
function boundNames(languageId: string, line: string): string[] | undefined {
  let match: RegExpExecArray | null;
  switch (languageId) {
    case 'python':
      if ((match = /^import\s+([\w., ]+?)\s*$/.exec(line)))
        return match[1].split(',').map((part) => {
          const [path, alias] = part.trim().split(/\s+as\s+/);
          return alias ?? path.split('.')[0];
        });
      if ((match = /^from\s+[\w.]+\s+import\s+([\w, ]+?)\s*$/.exec(line))) return splitNames(match[1]);
      return undefined;
    case 'javascript':
    case 'javascriptreact':
    case 'typescript':
    case 'typescriptreact':
      if ((match = /^import\s+(?:type\s+)?(\w+)\s+from\s+['"][^'"]+['"];?\s*$/.exec(line))) return [match[1]];
      if ((match = /^import\s+\*\s+as\s+(\w+)\s+from\s+['"][^'"]+['"];?\s*$/.exec(line))) return [match[1]];
      if ((match = /^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"][^'"]+['"];?\s*$/.exec(line)))
        return splitNames(match[1]);
      if ((match = /^(?:const|let|var)\s+(\w+)\s*=\s*require\(['"][^'"]+['"]\);?\s*$/.exec(line))) return [match[1]];
      if ((match = /^(?:const|let|var)\s+\{([^}]*)\}\s*=\s*require\(['"][^'"]+['"]\);?\s*$/.exec(line)))
        return splitNames(match[1]);
      return undefined;
    case 'java':
      if ((match = /^import\s+(?:static\s+)?[\w.]+\.(\w+)\s*;\s*$/.exec(line))) return [match[1]];
      return undefined;
    case 'php':
      if ((match = /^use\s+[\w\\]+\s+as\s+(\w+)\s*;\s*$/.exec(line))) return [match[1]];
      if ((match = /^use\s+[\w\\]*?(\w+)\s*;\s*$/.exec(line))) return [match[1]];
      return undefined;
    case 'ruby':
      if ((match = /^require\s+['"]([\w/]+)['"]\s*$/.exec(line)) && RUBY_CONSTANTS[match[1]])
        return [RUBY_CONSTANTS[match[1]]];
      return undefined;
    default:
      return undefined;
  }
}

function importLines(languageId: string, text: string): ImportLine[] {
  const out: ImportLine[] = [];
  let offset = 0;
  for (const line of text.split(/(?<=\n)/)) {
    const names = boundNames(languageId, line.replace(/\r?\n$/, ''));
    if (names?.length) out.push({ start: offset, end: offset + line.length, names });
    offset += line.length;
  }
  return out;
}

/** Whether `text` uses `name` outside its import lines. */
function uses(languageId: string, text: string, name: string): boolean {
  const code = importLines(languageId, text)
    .reverse()
    .reduce((rest, line) => rest.slice(0, line.start) + rest.slice(line.end), text);
  return identifierPattern(name).test(code);
}

/**
 * Lines of `before` (with their line break) that import only names `before` used and `after`
 * (the same file with a fix's edits made) no longer does. A group of them that stood alone (at
 * the top of the file or after a blank line, and before one) takes a blank line along, so none is
 * left doubled or leading.
 */
export function unusedImports(languageId: string, before: string, after: string): { start: number; end: number }[] {
  if (languageId === 'go') return unusedGoImports(before, after);
  const lines = importLines(languageId, before);
  const ranges = lines
    .filter(
      (line) =>
        line.names.some((name) => uses(languageId, before, name)) &&
        line.names.every((name) => !uses(languageId, after, name)),
    )
    .map(({ start, end }) => ({ start, end }));
  // A run of adjacent lines between blank lines takes the blank before it; one at the top of the
  // file the blank after it, unless imports the fix adds go there (after the last import line).
  for (let first = 0; first < ranges.length;) {
    let last = first;
    while (ranges[last + 1]?.start === ranges[last].end) last++;
    const blankAfter = /^\r?\n/.exec(before.slice(ranges[last].end))?.[0];
    const blankBefore = /\n(\r?\n)$/.exec(before.slice(0, ranges[first].start))?.[1];
    const importsAfter = lines.some((line) => line.start > ranges[last].end);
    if (blankAfter && ranges[first].start === 0 && importsAfter) ranges[last].end += blankAfter.length;
    else if (blankAfter && blankBefore) ranges[first].start -= blankBefore.length;
    first = last + 1;
  }
  return ranges;
}

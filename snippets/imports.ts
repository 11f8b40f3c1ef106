// Where a call site's import lines go in a user's file: after the file's last import (or its
// package / namespace / opening tag), skipping lines the file already has. Used by Insert Lock
// Snippet and by the quick fix, so both place imports the same way. Pure.
import type { ClientInfo } from './clients';

/** The lines that import things, per template extension: new imports go after the last of them. */
const IMPORT_LINE: Record<string, RegExp> = {
  js: /^(import\s.*|(const|let|var)\s.*=\s*require\(.*\);?)\s*$/,
  py: /^(import\s+\S.*|from\s+\S+\s+import\s.*)$/,
  java: /^(package|import)\s+[\w.*]+\s*;\s*$/,
  go: /^(package\s+\w+|import\s+(\w+\s+)?".*")\s*$/,
  cs: /^(using\s+[\w.]+\s*;|namespace\s+[\w.]+\s*;)\s*$/,
  php: /^(<\?php|namespace\s+[\w\\]+\s*;|use\s+[\w\\]+(\s+as\s+\w+)?\s*;|require(_once)?\s.*;)\s*$/,
  rb: /^(require(_relative)?\s+['"].*['"])\s*$/,
  rs: /^(use\s+[\w:{}, ]+;|mod\s+\w+;|extern\s+crate\s+\w+;)\s*$/,
};

export interface ImportInsertion {
  /** UTF-16 offset where `text` goes (the start of a line). */
  offset: number;
  text: string;
}

/**
 * The edit that adds `lines` to `source`, or undefined when it already has them all. Go: inside
 * an `import ( ... )` block the block's closing line counts as its last import line.
 */
export function planImports(client: ClientInfo, source: string, lines: readonly string[]): ImportInsertion | undefined {
  const present = new Set(source.split(/\r?\n/).map((line) => line.trim()));
  const missing = lines.filter((line) => !present.has(line.trim()));
  if (!missing.length) return undefined;
  const pattern = IMPORT_LINE[client.extension];
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  let offset = 0;
  let inGoBlock = false;
  let afterLast: number | undefined;
  for (const line of source.split(/(?<=\n)/)) {
    const bare = line.replace(/\r?\n$/, '');
    offset += line.length;
    if (client.extension === 'go' && /^import\s*\($/.test(bare)) inGoBlock = true;
    else if (inGoBlock && bare === ')') {
      inGoBlock = false;
      afterLast = offset;
    } else if (!inGoBlock && pattern?.test(bare)) afterLast = offset;
    // Imports come first: stop at the first line of code after them (comments and blank lines go on).
    else if (!inGoBlock && afterLast !== undefined && bare.trim() && !/^\s*(\/\/|#|\/\*|\*)/.test(bare)) break;
  }
  const at = afterLast ?? 0;
  const needsBreak = at > 0 && !source.slice(0, at).endsWith('\n');
  return { offset: at, text: `${needsBreak ? eol : ''}${missing.join(eol)}${eol}` };
}

interface GoImport {
  start: number;
  end: number;
  /** The name the file uses it by: its alias, else its path's last part (`v9` skipped, `go-` and `.v3` dropped). */
  name: string;
}

/** The import specs of a Go file, each with its whole line. */
function goImports(text: string): GoImport[] {
  const out: GoImport[] = [];
  let offset = 0;
  let inBlock = false;
  for (const line of text.split(/(?<=\n)/)) {
    const bare = line.replace(/\r?\n$/, '');
    const spec = (inBlock ? /^\s*([\w.]+\s+)?"([^"]+)"\s*$/ : /^import\s+([\w.]+\s+)?"([^"]+)"\s*$/).exec(bare);
    if (/^import\s*\($/.test(bare)) inBlock = true;
    else if (inBlock && bare.trim() === ')') inBlock = false;
    else if (spec) {
      const last =
        spec[2]
          .split('/')
          .filter((part) => !/^v\d+$/.test(part))
          .at(-1) ?? '';
      const name = spec[1]?.trim() ?? last.replace(/^go-/, '').replace(/\.v\d+$/, '');
      out.push({ start: offset, end: offset + line.length, name });
    }
    offset += line.length;
  }
  return out;
}

/** Whether the Go file uses package `name` outside its import lines. */
function usesPackage(text: string, name: string): boolean {
  const code = goImports(text)
    .reverse()
    .reduce((rest, spec) => rest.slice(0, spec.start) + rest.slice(spec.end), text);
  return new RegExp(`(^|[^\\w.])${name}\\.\\w`).test(code);
}

/**
 * Import lines of the Go file `before` (ranges with their line break) whose package it used and
 * `after` (the same file once a fix took code out) no longer does: Go refuses to compile an
 * unused import. Blank (`_`) and dot imports stay.
 */
export function unusedGoImports(before: string, after: string): { start: number; end: number }[] {
  return goImports(before)
    .filter(({ name }) => /^\w+$/.test(name) && name !== '_' && usesPackage(before, name) && !usesPackage(after, name))
    .map(({ start, end }) => ({ start, end }));
}

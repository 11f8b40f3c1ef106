// The "Replace with Locksmith's lock helper" fix as file changes, for the language server and the
// lint CLI alike: the unsafe acquire/release becomes a call of the project's lock helper (the
// user's key, lease, client and guarded statements kept), the helper's import goes at the top of
// the file, and the helper module is created when the project has none. Outside a project (an
// unsaved file), the self-contained inline lock. And LOCK008: a helper whose embedded pack is
// not the installed one, with its update. No LSP types here.
import type { Pack } from '../../pack/pack';
import { renderCallSite } from '../../snippets/callsite';
import type { ClientInfo } from '../../snippets/clients';
import { checkHelperFile, updatedHelper } from '../../snippets/helper';
import { inlineImports } from '../../snippets/render';
import type { ProjectFile } from '../../snippets/paths';
import type { Finding } from './analysis';
import type { FixPlan } from './analysis/fix';
import { projectHelper } from './fixes/helper';
import { importEdits, unusedImports } from './fixes/imports';
import { isNoFix } from './fixes/remedy';
import { renderFix } from './quickFix';

export interface TextChange {
  /** UTF-16 offsets into the file as it is. */
  start: number;
  end: number;
  text: string;
}

/** A change to one file: edits of an existing file, or the whole text of a new one. */
export type FileChange = { path: string; edits: TextChange[] } | { path: string; create: string };

export interface LockFix {
  title: string;
  changes: FileChange[];
  /** What the fix wrote instead of the usual, and why (the inline lock, a helper at another place): for reports. */
  note?: string;
}

export interface FixInput {
  client: ClientInfo;
  /** The file's language: imports only the replaced code used go with it. */
  languageId: string;
  plan: FixPlan;
  pack: Pack;
  /** The file's text as it is now. */
  text: string;
  /** Absolute path of the file and of its workspace root; both absent for an unsaved file. */
  file?: string;
  root?: string;
  /** Manifests of the project, paths relative to `root`. */
  manifests: readonly ProjectFile[];
  /** A file's text, or undefined when it does not exist (absolute path). */
  readFile(path: string): string | undefined;
  /** Whether the helper file may be created (default true); an existing helper is used either way. */
  canCreateFiles?: boolean;
}

export function lockFix(input: FixInput): LockFix {
  const { client, plan, pack, text, file } = input;
  // The token's declaration goes when the fix leaves it unused.
  const dropped: TextChange[] = plan.unusedToken ? [{ ...plan.unusedToken, text: '' }] : [];
  // Comments right above the replaced statements described them: they go too.
  const start = commentsAbove(text, plan.start);
  const withUnusedImports = (edits: TextChange[]) => [
    ...unusedImports(input.languageId, text, applyEdits(text, edits))
      .filter((line) => !edits.some((edit) => edit.start < line.end && edit.end > line.start))
      .map((line) => ({ ...line, text: '' })),
    ...edits,
  ];
  const inline = (why: string): LockFix => {
    const code = withDeclarations(renderFix(client, plan, pack), plan);
    const needed = inlineImports(client.id, 'guard').filter((line) => usesImport(line, code));
    // The imports its code uses that the file lacks (Java's List, Go's os and fmt), after the file's own.
    const imports = importEdits({ languageId: input.languageId, text }, needed).filter((edit) => edit.start <= start);
    const edits = withUnusedImports([...imports, ...dropped, { start, end: plan.end, text: code }]);
    return {
      title: `Replace with Locksmith's vetted lock, inline (${client.library}): ${why}`,
      changes: [{ path: file ?? '', edits: [...shadowedGoImports(input.languageId, text, needed, edits), ...edits] }],
      note: `wrote the lock inline, no helper file: ${why}`,
    };
  };
  const helper = projectHelper(client, { ...input, canCreateFiles: input.canCreateFiles ?? true });
  // No place for a helper (or only files of the user's own there): the inline lock, which needs none.
  if (isNoFix(helper)) return inline(helper.why);
  const { created } = helper;
  const call = renderCallSite(
    client.id,
    'guard',
    {
      key: plan.key,
      ...(plan.ttlMs !== undefined && { ttl: plan.ttlMs }),
      ...(plan.body !== undefined && { body: plan.body }),
      client: plan.receiver,
    },
    helper,
  );
  const code = withDeclarations(
    withPhpCaptures(call.code, plan.body)
      .replace(/\n+$/, '')
      .replace(/\n(?=.)/g, `\n${plan.indent}`),
    plan,
  );
  const replaced: TextChange[] = [...dropped, { start, end: plan.end, text: code }];
  // Go: the call site's lease is a time.Duration (`30*time.Second`), and the file may not import time.
  const goTime = client.extension === 'go' && /(?<![\w.])time\.\w/.test(code) ? ['import "time"'] : [];
  const imports = importEdits({ languageId: input.languageId, text }, [...call.imports, ...goTime]);
  replaced.unshift(...imports.filter((edit) => edit.start <= start));
  // Imports only the replaced code used go (Go does not even compile with them: `uuid` for the token).
  const edits = withUnusedImports(replaced);
  const elsewhere = helper.elsewhere ? ` (${helper.elsewhere})` : '';
  return {
    title: `Replace with a call of the project's lock helper (${client.library})${helper.addedPath ? `, adding ${helper.addedPath}` : ''}${elsewhere}`,
    changes: [...(created ? [created] : []), { path: file ?? '', edits }],
    ...(helper.note && { note: helper.note }),
  };
}

/**
 * Go: the file's imports that only the replaced code used, where the inline lock's code uses a
 * package of the same name (the file's `crypto/rand` for `rand.Text()`, the lock's `math/rand`):
 * kept, the two would clash.
 */
function shadowedGoImports(
  languageId: string,
  text: string,
  needed: readonly string[],
  edits: readonly TextChange[],
): TextChange[] {
  if (languageId !== 'go') return [];
  const code = edits.filter((edit) => edit.text).map((edit) => edit.text);
  const withoutCode = applyEdits(
    text,
    edits.map((edit) => ({ ...edit, text: '' })),
  );
  const specs = new Set(needed.map((line) => line.replace(/^import\s+/, '').trim()));
  return unusedImports(languageId, text, withoutCode)
    .filter((line) => !edits.some((edit) => edit.start < line.end && edit.end > line.start))
    .filter(
      (line) =>
        !specs.has(
          text
            .slice(line.start, line.end)
            .replace(/^\s*import\s+/, '')
            .trim(),
        ),
    )
    .filter((line) =>
      code.some((added) =>
        usesImport(
          `import ${text
            .slice(line.start, line.end)
            .replace(/^\s*import\s+/, '')
            .trim()}`,
          added,
        ),
      ),
    )
    .map((line) => ({ ...line, text: '' }));
}

/** The replacement, after what the replaced statements declared that the code kept still uses (Go's `var err error`). */
const withDeclarations = (code: string, plan: FixPlan) =>
  plan.declares ? `${plan.declares}\n${plan.indent}${code}` : code;

/**
 * Whether `code` uses what the import line brings in: Go's package by its name (`crand.Read`,
 * `redis.NewScript`; a path's `v9` is not its name), Java's class by its simple name.
 */
function usesImport(line: string, code: string): boolean {
  const go = /^import\s+(?:(\w+)\s+)?"([^"]+)"$/.exec(line);
  const name = go
    ? (go[1] ??
      go[2]
        .split('/')
        .filter((part) => !/^v\d+$/.test(part))
        .at(-1)!
        .replace(/^go-/, ''))
    : /([\w$]+);$/.exec(line)?.[1];
  return !!name && new RegExp(`(?<![\\w.])${name}\\b${go ? '\\.' : ''}`).test(code);
}

/**
 * A PHP closure sees no variable of the function around it: the helper's callback takes the
 * guarded code's variables by reference (`function ($lease) use (&$userId) {`), so the code reads
 * and writes them as it did before the fix. Other languages' callbacks close over them already.
 */
function withPhpCaptures(code: string, body: string | undefined): string {
  const names = [...new Set(body?.match(/\$[A-Za-z_]\w*/g) ?? [])].filter(
    (name) => name !== '$this' && name !== '$lease' && !/^\$(GLOBALS|_[A-Z]+)$/.test(name),
  );
  return names.length
    ? code.replace('function ($lease) {', `function ($lease) use (${names.map((name) => `&${name}`).join(', ')}) {`)
    : code;
}

/**
 * The start of the comment lines directly above the statement at `start` (their first
 * non-blank character), or `start` when there are none.
 */
function commentsAbove(text: string, start: number): number {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (text.slice(lineStart, start).trim()) return start;
  let first = lineStart;
  while (first > 0) {
    const previous = text.lastIndexOf('\n', first - 2) + 1;
    if (!/^\s*(\/\/|#(?!!)|\*|\/\*)/.test(text.slice(previous, first))) break;
    first = previous;
  }
  return first === lineStart ? start : first + /^[ \t]*/.exec(text.slice(first))![0].length;
}

/** `text` with `edits` (offsets of `text`, not overlapping) made. */
export function applyEdits(text: string, edits: readonly TextChange[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start))
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** LOCK008: a lock helper whose embedded pack differs from the installed pack's, on its header lines. */
export function outdatedHelper(text: string, pack: Pack): (Finding & { update: string }) | undefined {
  const check = checkHelperFile(text, pack);
  if (!check?.outdated) return undefined;
  const lines = text.split('\n');
  const start = lines.slice(0, check.header.firstLine).reduce((sum, line) => sum + line.length + 1, 0);
  const end = lines.slice(0, check.header.lastLine + 1).reduce((sum, line) => sum + line.length + 1, 0) - 1;
  const edited = check.edited ? ' It was also edited by hand: updating replaces those edits.' : '';
  return {
    code: 'LOCK008',
    message: `This lock helper is outdated: ${check.reasons.join('; ')}. Update it from the installed pack (the quick fix rewrites the file).${edited}`,
    start,
    end,
    // The same client, options and lock kinds, from the installed pack.
    update: updatedHelper(text, pack)!.text,
  };
}

// The "Replace with Locksmith's lock helper" fix as file changes, for the language server and the
// lint CLI alike: the unsafe acquire/release becomes a call of the project's lock helper (the
// user's key, lease, client and guarded statements kept), the helper's import goes at the top of
// the file, and the helper module is created when the project has none. Outside a project (an
// unsaved file), the self-contained inline lock. And LOCK008: a helper whose embedded pack is
// not the installed one, with its update. No LSP types here.
import { posix, relative, resolve } from 'node:path';
import type { Pack } from '../../pack/pack';
import { renderCallSite } from '../../snippets/callsite';
import type { ClientInfo } from '../../snippets/clients';
import { checkHelperFile, renderHelper, updatedHelper } from '../../snippets/helper';
import { planImports, unusedGoImports } from '../../snippets/imports';
import { helperImportFor, helperSearchPaths, proposeHelperPlacements, type ProjectFile } from '../../snippets/paths';
import type { JsFlavor } from '../../snippets/template';
import type { Finding } from './analysis';
import type { FixPlan } from './analysis/fix';
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
}

export function lockFix(input: FixInput): LockFix {
  const { client, plan, pack, text, file, root } = input;
  // The token's declaration goes when the fix leaves it unused.
  const dropped: TextChange[] = plan.unusedToken ? [{ ...plan.unusedToken, text: '' }] : [];
  const inline = (why: string): LockFix => ({
    title: `Replace with Locksmith's vetted lock, inline (${client.library}): ${why}`,
    changes: [
      {
        path: file ?? '',
        edits: [...dropped, { start: plan.start, end: plan.end, text: renderFix(client, plan, pack) }],
      },
    ],
    note: `wrote the lock inline, no helper file: ${why}`,
  });
  if (!file || !root)
    return inline('no helper file can be written here (an unsaved file, or an editor that creates no files)');
  const project = { file: { path: relative(root, file).split('\\').join('/'), text }, manifests: input.manifests };
  const proposals = proposeHelperPlacements(client.id, project);
  if (!proposals.length) return inline(NO_PLACE[client.extension] ?? 'the project has no place for a helper');
  // The helper the project has (one per client library: a file of another folder may have created
  // it); else the first usual place, created.
  let helper: { helperImport: string; flavor?: JsFlavor } | undefined;
  let created: FileChange | undefined;
  for (const path of helperSearchPaths(client.id, project)) {
    const existing = input.readFile(resolve(root, path));
    if (existing !== undefined && checkHelperFile(existing, pack)?.header.client === client.id) {
      helper = helperImportFor(client.id, { path, text: existing }, project);
      break;
    }
  }
  // A file of the user's own at a usual place is never overwritten: the next free place, or inline.
  const taken = proposals.filter((each) => input.readFile(resolve(root, each.path)) !== undefined);
  const notHelpers = taken.map((each) => each.path).join(' and ');
  if (!helper) {
    const placement = proposals.find((each) => !taken.includes(each));
    if (!placement)
      return inline(
        `${notHelpers} ${taken.length > 1 ? 'are files' : 'is a file'} of yours, not a Locksmith ${client.library} helper`,
      );
    helper = { helperImport: placement.helperImport, flavor: placement.flavor };
    created = { path: resolve(root, placement.path), create: renderHelper(client.id, pack, placement.options).text };
  }
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
  const code = withPhpCaptures(call.code, plan.body)
    .replace(/\n$/, '')
    .replace(/\n(?=.)/g, `\n${plan.indent}`);
  const edits: TextChange[] = [...dropped, { start: plan.start, end: plan.end, text: code }];
  const imports = planImports(client, text, call.imports);
  if (imports && imports.offset <= plan.start)
    edits.unshift({ start: imports.offset, end: imports.offset, text: imports.text });
  // Go does not compile with an import that only the replaced code used (`uuid` for the token).
  if (client.extension === 'go')
    edits.unshift(...unusedGoImports(text, applyEdits(text, edits)).map((line) => ({ ...line, text: '' })));
  const helperPath = created
    ? posix.relative(posix.dirname(project.file.path), relative(root, created.path).split('\\').join('/'))
    : undefined;
  const elsewhere = created && taken.length ? ` (${notHelpers} is not a Locksmith helper)` : '';
  const placedAt = created && relative(root, created.path).split('\\').join('/');
  return {
    title: `Replace with a call of the project's lock helper (${client.library})${helperPath ? `, adding ${helperPath}` : ''}${elsewhere}`,
    changes: [...(created ? [created] : []), { path: file, edits }],
    ...(elsewhere && {
      note: `wrote the helper at ${placedAt}: ${notHelpers} is a file of yours, not a Locksmith helper`,
    }),
  };
}

/** Why a client's project has no place for a helper, where that can happen. */
const NO_PLACE: Record<string, string> = {
  go: 'the file is in no Go module (go.mod), where the helper package would go',
  rs: 'the file is in no Cargo package (Cargo.toml), where the helper module would go',
};

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

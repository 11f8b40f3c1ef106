// `--fix` and `--fix-dry-run`: the editor's fixes (and, with `--fix-type suggestion`, its
// suggestions), applied to files. Each file is fixed one finding at a time and analysed again
// after each (a fix moves everything below it, and one fix may clear several findings); the
// project's lock helper is created the first time a file needs it, then imported by every other
// file. Everything happens in memory first; then the files are written, or shown as a diff.
// Written bytes are the read bytes outside the edits: the text is decoded losslessly (lint.ts)
// and encoded back the same way, or the file is not written.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Pack } from '../../../pack/pack';
import { AnalyzedDocument, type Finding } from '../analysis';
import type { LintSettings, RuleCode } from '../catalogue';
import { checkText, severityOf } from '../check';
import { planRemedies } from '../fixes/plan';
import type { FindingRemedies, Remedy } from '../fixes/remedy';
import { applyEdits, type TextChange } from '../lockFix';
import { readIfExists } from '../quickFix';
import type { FixType } from './args';
import { encode, type Notice, type ProjectOf, type SourceText } from './lint';
import { toSlashes, type FoundFile } from './walk';

export interface FixContext {
  pack: Pack;
  settingsFor: (path: string) => LintSettings;
  projectOf: ProjectOf;
  /** What to apply: fixes, suggestions, or both. */
  types: readonly FixType[];
}

/** A file's text before and after the fixes; `before` undefined for a file the fixes create. */
export interface ChangedFile {
  path: string;
  before: SourceText | undefined;
  after: string;
}

export interface FixRecord {
  /** The file fixed. */
  path: string;
  /** The rules whose findings the fixes cleared, in the order fixed (a rule once). */
  codes: RuleCode[];
  /** Files the fixes created for it (its project's lock helper), absolute. */
  created: string[];
  /** What a fix wrote instead of the usual, and why (the inline lock: a file of the user's where the helper goes). */
  notes: string[];
}

export interface FixOutcome {
  /** Every file changed or created, in the order first touched. */
  changed: Map<string, ChangedFile>;
  records: FixRecord[];
}

const enabledFindings = (findings: Finding[], settings: LintSettings) =>
  findings.filter((finding) => severityOf(settings, finding.code) !== 'off');

/** Applies edits given in offsets of `text`; line breaks follow the file's. */
const applyFileEdits = (text: string, edits: readonly TextChange[], eol: string) =>
  applyEdits(
    text,
    edits.map((edit) => ({ ...edit, text: withEol(edit.text, eol) })),
  );

const withEol = (text: string, eol: string) => (eol === '\n' ? text : text.replace(/\r?\n/g, eol));
const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

const count = (codes: readonly RuleCode[], code: RuleCode) => codes.filter((each) => each === code).length;

/** The remedy `--fix` applies to a finding under the chosen types: its fix, else (if asked) its first suggestion. */
function chosen(remedies: FindingRemedies, types: readonly FixType[]): Remedy | undefined {
  if (types.includes('fix') && remedies.fix) return remedies.fix;
  return types.includes('suggestion') ? (remedies.suggestions[0] ?? undefined) : undefined;
}

/** Fixes `files` (with their texts as read) in memory. */
export async function planFixes(
  files: readonly { file: FoundFile; source: SourceText }[],
  context: FixContext,
): Promise<FixOutcome> {
  const changed = new Map<string, ChangedFile>();
  const records: FixRecord[] = [];
  const current = (path: string) => changed.get(path)?.after;

  for (const { file, source } of files) {
    const settings = context.settingsFor(file.path);
    const { root, manifests } = context.projectOf(file.path);
    const eol = eolOf(source.text);
    const record: FixRecord = { path: file.path, codes: [], created: [], notes: [] };
    let text = current(file.path) ?? source.text;
    let remainingBefore = Infinity;
    // The codes found before the last fix: those found less often after it are the ones it cleared.
    let before: RuleCode[] | undefined;
    for (;;) {
      const analysis = new AnalyzedDocument(file.languageId);
      const checked = await checkText(analysis, text, context.pack).finally(() => analysis.dispose());
      const findings = enabledFindings(checked.findings, settings);
      const codes = findings.map((finding) => finding.code);
      for (const code of before ?? [])
        if (count(before!, code) > count(codes, code) && !record.codes.includes(code)) record.codes.push(code);
      before = codes;
      const remedies = await planRemedies(file.languageId, text, findings, {
        pack: context.pack,
        file: file.path,
        root,
        manifests,
        readFile: (path) => current(toSlashes(path)) ?? readIfExists(path),
        canCreateFiles: true,
        helperUpdate: checked.helperUpdate,
      });
      const applicable = remedies.filter((each) => chosen(each, context.types));
      // Stop when a fix did not lower the count: it would go round for ever.
      if (!applicable.length || applicable.length >= remainingBefore) break;
      remainingBefore = applicable.length;
      const remedy = chosen(applicable[0], context.types)!;
      if (remedy.note !== undefined && !record.notes.includes(remedy.note)) record.notes.push(remedy.note);
      let next = text;
      for (const change of remedy.changes()) {
        const path = toSlashes(change.path);
        if ('create' in change) {
          changed.set(path, { path, before: undefined, after: change.create });
          record.created.push(path);
        } else if (path === file.path) {
          next = applyFileEdits(next, change.edits, eol);
        }
      }
      if (next === text) break;
      text = next;
    }
    if (text !== source.text) {
      const known = changed.get(file.path);
      changed.set(file.path, { path: file.path, before: known ? known.before : source, after: text });
    }
    if (record.codes.length) records.push(record);
  }
  return { changed, records };
}

/**
 * Writes the fixed files (created ones only where no file is: never over a file of the user's
 * own). Before anything is written, every file is checked: unchanged on disk since it was read,
 * and its fixed text encodable as it was read (so that no byte outside the edits changes). A file
 * that fails is not written and comes back as an error; then nothing is written at all.
 */
export function writeFixes(changed: Map<string, ChangedFile>): Notice[] {
  const problems: Notice[] = [];
  const bytes = new Map<string, Buffer>();
  for (const { path, before, after } of changed.values()) {
    if (!before) continue;
    const original = encode(before, before.text);
    let onDisk: Buffer | undefined;
    try {
      onDisk = readFileSync(path);
    } catch {
      onDisk = undefined;
    }
    if (!original || !onDisk || !onDisk.equals(original)) {
      problems.push({ path, message: 'changed while it was being fixed: nothing was written; run the fix again' });
      continue;
    }
    const fixed = encode(before, after);
    if (!fixed) {
      problems.push({
        path,
        message: `not UTF-8 (read as Latin-1, byte for byte), and the fix would write characters Latin-1 cannot hold: nothing was written; fix it by hand or convert the file to UTF-8`,
      });
      continue;
    }
    bytes.set(path, fixed);
  }
  if (problems.length) return problems;
  for (const { path, before, after } of changed.values()) {
    if (before === undefined) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, after, { flag: 'wx' });
    } else {
      writeFileSync(path, bytes.get(path)!);
    }
  }
  return [];
}

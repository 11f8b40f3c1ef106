// `--fix` and `--fix-dry-run`: the editor's quick fixes, applied to files. Each file is fixed one
// finding at a time and analysed again after each (a fix moves everything below it, and one fix
// may clear several findings): the helper-based lock fix (the project's lock helper created the
// first time a file needs it, then imported by every other file) and LOCK008's update of an
// outdated helper. Everything happens in memory first; then the files are written, or shown as a
// diff.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Pack } from '../../../pack/pack';
import { AnalyzedDocument, type Finding } from '../analysis';
import type { LintSettings, RuleCode } from '../catalogue';
import { checkText, severityOf } from '../check';
import { applyEdits, lockFix, type TextChange } from '../lockFix';
import { fixClient, readIfExists, readManifests } from '../quickFix';
import type { SourceText } from './lint';
import { toSlashes, type FoundFile } from './walk';

export interface FixContext {
  pack: Pack;
  settingsFor: (path: string) => LintSettings;
  /** The project folder a file's helper and manifests are found in. */
  rootOf: (path: string) => string;
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

const isFixable = (finding: Finding, helperUpdate: string | undefined) =>
  !!finding.fix || (finding.code === 'LOCK008' && helperUpdate !== undefined);

/** Applies edits given in offsets of `text`; line breaks follow the file's. */
const applyFileEdits = (text: string, edits: readonly TextChange[], eol: string) =>
  applyEdits(
    text,
    edits.map((edit) => ({ ...edit, text: withEol(edit.text, eol) })),
  );

const withEol = (text: string, eol: string) => (eol === '\n' ? text : text.replace(/\r?\n/g, eol));
const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

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
    const root = context.rootOf(file.path);
    const manifests = readManifests(file.path, root);
    const eol = eolOf(source.text);
    const record: FixRecord = { path: file.path, codes: [], created: [], notes: [] };
    let text = current(file.path) ?? source.text;
    let fixableBefore = Infinity;
    for (;;) {
      const analysis = new AnalyzedDocument(file.languageId);
      const checked = await checkText(analysis, text, context.pack).finally(() => analysis.dispose());
      const findings = enabledFindings(checked.findings, settings);
      const fixable = findings.filter((finding) => isFixable(finding, checked.helperUpdate));
      // Stop when a fix did not lower the count: it would go round for ever.
      if (!fixable.length || fixable.length >= fixableBefore) break;
      fixableBefore = fixable.length;
      const target = fixable[0];
      let next: string;
      let cleared: Finding[];
      if (target.code === 'LOCK008' && checked.helperUpdate !== undefined) {
        next = withEol(checked.helperUpdate, eol);
        cleared = [target];
      } else {
        const client = fixClient(file.languageId, text, manifests);
        if (!client) break;
        const plan = target.fix!;
        const fix = lockFix({
          client,
          plan,
          pack: context.pack,
          text,
          file: file.path,
          root,
          manifests,
          readFile: (path) => current(toSlashes(path)) ?? readIfExists(path),
        });
        next = text;
        if (fix.note !== undefined && !record.notes.includes(fix.note)) record.notes.push(fix.note);
        for (const change of fix.changes) {
          const path = toSlashes(change.path);
          if ('create' in change) {
            changed.set(path, { path, before: undefined, after: change.create });
            record.created.push(path);
          } else if (path === file.path) {
            next = applyFileEdits(next, change.edits, eol);
          }
        }
        cleared = findings.filter((finding) => finding.fix?.start === plan.start && finding.fix.end === plan.end);
      }
      text = next;
      for (const { code } of cleared) if (!record.codes.includes(code)) record.codes.push(code);
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
 * own), unless one of them changed since it was read: then nothing is written, and its path is
 * returned.
 */
export function writeFixes(changed: Map<string, ChangedFile>): string | undefined {
  const withBom = (source: SourceText, text: string) => (source.bom ? '\uFEFF' : '') + text;
  for (const { path, before } of changed.values()) {
    if (before && readIfExists(path) !== withBom(before, before.text)) return path;
  }
  for (const { path, before, after } of changed.values()) {
    if (before === undefined) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, after, { flag: 'wx' });
    } else {
      writeFileSync(path, withBom(before, after));
    }
  }
  return undefined;
}

// Checking files on disk: each read (a few ahead of the analysis, so the disk and the parser
// overlap), skipped with a notice when it is too big, binary or unreadable, passed over unparsed
// when its text never mentions Redis (the analysis's own test), else analysed with the server's
// rules and settings. A file that does not parse is still checked as far as tree-sitter recovers,
// with a notice naming the first syntax error.
import { open } from 'node:fs/promises';
import type { Pack } from '../../../pack/pack';
import { AnalyzedDocument, mentionsRedis, type Finding } from '../analysis';
import type { LintSettings, RuleCode, Severity } from '../catalogue';
import { checkText, lintsLanguage, severityOf } from '../check';
import type { LintedLanguage } from '../languages';
import { LineIndex, type Place } from './positions';
import type { FoundFile } from './walk';

/** Larger files are generated or bundled code, not something a person wrote a lock in. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Git's test for binary content: a NUL byte early in the file. */
const BINARY_PROBE_BYTES = 8000;
/** Files read ahead of the one being analysed. */
const READ_AHEAD = 16;

export type ReportedSeverity = Exclude<Severity, 'off'>;

export interface Problem {
  code: RuleCode;
  severity: ReportedSeverity;
  message: string;
  start: Place;
  end: Place;
  /** `--fix` has a fix for it. */
  fixable: boolean;
}

export interface FileReport {
  /** Absolute path, forward slashes. */
  path: string;
  languageId: LintedLanguage;
  problems: Problem[];
}

/** A file skipped, or checked only in part: one warning line each. */
export interface Notice {
  path: string;
  message: string;
  place?: Place;
}

export interface SourceText {
  text: string;
  /** The file starts with a UTF-8 byte order mark (kept out of `text`, put back on write). */
  bom: boolean;
}

export type ReadOutcome = SourceText | { skipped: string };

export async function readSource(path: string): Promise<ReadOutcome> {
  let handle;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) {
      const mb = (size / 1024 / 1024).toFixed(1);
      return {
        skipped: `skipped: ${mb} MB, over the ${MAX_FILE_BYTES / 1024 / 1024} MB limit for a source file (generated or bundled code?); list it in .gitignore to silence this`,
      };
    }
    const buffer = await handle.readFile();
    if (buffer.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
      return {
        skipped: `skipped: binary content (a NUL byte in its first ${BINARY_PROBE_BYTES} bytes), not source text; list it in .gitignore to silence this`,
      };
    }
    const text = buffer.toString('utf8');
    return text.startsWith('\uFEFF') ? { text: text.slice(1), bom: true } : { text, bom: false };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { skipped: `skipped: cannot read it (${code}); check that it is a readable file` };
  } finally {
    await handle?.close();
  }
}

export interface CheckContext {
  pack: Pack;
  settingsFor: (path: string) => LintSettings;
  /** Whether `--fix` can fix a finding with a fix plan in this file (a client library is known for it). */
  canFix: (file: FoundFile, text: string) => boolean;
}

export interface FileCheck {
  /** Undefined when the settings do not lint the file's language, or it never mentions Redis. */
  report?: FileReport;
  notice?: Notice;
  /** Whether the text was parsed (it mentions Redis, and the settings lint it). */
  parsed: boolean;
}

/** The findings of one text under the file's settings, `off` rules left out. */
export async function checkFile(file: FoundFile, source: SourceText, context: CheckContext): Promise<FileCheck> {
  const settings = context.settingsFor(file.path);
  const { text } = source;
  if (!lintsLanguage(settings, file.languageId) || !mentionsRedis(file.languageId, text)) return { parsed: false };
  const analysis = new AnalyzedDocument(file.languageId);
  let findings: Finding[];
  let helperUpdate: string | undefined;
  let errorAt: number | undefined;
  try {
    ({ findings, helperUpdate } = await checkText(analysis, text, context.pack));
    errorAt = analysis.syntaxErrorAt();
  } finally {
    analysis.dispose();
  }
  const lines = new LineIndex(text);
  const fixPlans = findings.some((finding) => finding.fix) && context.canFix(file, text);
  const problems: Problem[] = [];
  for (const finding of findings) {
    const severity = severityOf(settings, finding.code);
    if (severity === 'off') continue;
    problems.push({
      code: finding.code,
      severity,
      message: finding.message,
      start: lines.placeOf(finding.start),
      end: lines.placeOf(finding.end),
      fixable: (finding.code === 'LOCK008' && helperUpdate !== undefined) || (!!finding.fix && fixPlans),
    });
  }
  problems.sort((a, b) => a.start.line - b.start.line || a.start.column - b.start.column || compare(a.code, b.code));
  const place = errorAt === undefined ? undefined : lines.placeOf(errorAt);
  return {
    parsed: true,
    report: { path: file.path, languageId: file.languageId, problems },
    ...(place && {
      notice: {
        path: file.path,
        place,
        message: `a syntax error: the file is checked as far as it parses, so findings after this point may be missing; fix the syntax (or the file's extension, if it is another language)`,
      },
    }),
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface LintOutcome {
  /** Files read whose text was checked (parsed, or passed over by the Redis test). */
  checked: number;
  /** Of those, the files parsed and analysed (the rest never mention Redis, or their language is off). */
  parsed: number;
  /** Reports of the parsed files, in path order (files without problems too). */
  reports: FileReport[];
  notices: Notice[];
}

/** Checks `files` in order, reading ahead; `onChecked` is told each file's index when done. */
export async function lintFiles(
  files: readonly FoundFile[],
  context: CheckContext,
  onChecked?: (done: number) => void,
): Promise<LintOutcome> {
  const outcome: LintOutcome = { checked: 0, parsed: 0, reports: [], notices: [] };
  const reads: (Promise<ReadOutcome> | undefined)[] = [];
  const readUpTo = (index: number) => {
    for (let i = reads.length; i < Math.min(index, files.length); i++) reads.push(readSource(files[i].path));
  };
  for (let i = 0; i < files.length; i++) {
    readUpTo(i + 1 + READ_AHEAD);
    const read = (await reads[i])!;
    // The text is not kept once checked.
    reads[i] = undefined;
    const file = files[i];
    if ('skipped' in read) {
      outcome.notices.push({ path: file.path, message: read.skipped });
    } else {
      const checked = await checkFile(file, read, context);
      outcome.checked++;
      if (checked.parsed) outcome.parsed++;
      if (checked.report) outcome.reports.push(checked.report);
      if (checked.notice) outcome.notices.push(checked.notice);
    }
    onChecked?.(i + 1);
  }
  return outcome;
}

// Checking files on disk: each read, skipped with a notice when it is too big, binary or
// unreadable, passed over unparsed when its text never mentions Redis (the analysis's own test),
// else analysed with the server's rules and settings (in this thread or a worker's). A file that does not parse is still checked as far as tree-sitter recovers,
// with a notice naming the first syntax error.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Pack } from '../../../pack/pack';
import { AnalyzedDocument, findingSeverity, mentionsRedis, type Finding } from '../analysis';
import type { LintSettings, RuleCode, Severity } from '../catalogue';
import { checkText, lintsLanguage, severityOf } from '../check';
import { planRemedies } from '../fixes/plan';
import type { NoFix } from '../fixes/remedy';
import type { LintedLanguage } from '../languages';
import type { FoundManifest } from '../manifests';
import { readIfExists } from '../quickFix';
import { LineIndex, type Place } from './positions';
import type { FoundFile } from './walk';

/** Larger files are generated or bundled code, not something a person wrote a lock in. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Git's test for binary content: a NUL byte early in the file. */
const BINARY_PROBE_BYTES = 8000;

export type ReportedSeverity = Exclude<Severity, 'off'>;

export interface Problem {
  code: RuleCode;
  severity: ReportedSeverity;
  message: string;
  start: Place;
  end: Place;
  /** `--fix` has a fix for it. */
  fixable: boolean;
  /** Titles of the edits that change behaviour, applied with `--fix --fix-type suggestion`. */
  suggestions: string[];
  /** Why there is no fix (when not fixable): a short code to count by, and what to do by hand. */
  noFix?: NoFix;
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
  /**
   * How the bytes were decoded: UTF-8 when they are valid UTF-8, else Latin-1 (one character per
   * byte), so that every byte the fixes do not touch is written back as it was.
   */
  encoding: 'utf8' | 'latin1';
}

export type ReadOutcome = SourceText | { skipped: string };

/**
 * Reads a source file, or says why it is skipped. Synchronous on purpose: for files of a few KB the
 * thread pool's round trips of asynchronous reads cost more than the reads (the analysis, in
 * workers, goes on meanwhile).
 */
export function readSource(path: string): ReadOutcome {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const { size } = fstatSync(fd);
    if (size > MAX_FILE_BYTES) {
      const mb = (size / 1024 / 1024).toFixed(1);
      return {
        skipped: `skipped: ${mb} MB, over the ${MAX_FILE_BYTES / 1024 / 1024} MB limit for a source file (generated or bundled code?); list it in .gitignore to silence this`,
      };
    }
    const buffer = Buffer.allocUnsafe(size);
    let length = 0;
    for (let read = -1; read !== 0 && length < size; length += read)
      read = readSync(fd, buffer, length, size - length, null);
    const content = buffer.subarray(0, length);
    if (content.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
      return {
        skipped: `skipped: binary content (a NUL byte in its first ${BINARY_PROBE_BYTES} bytes), not source text; list it in .gitignore to silence this`,
      };
    }
    return decode(content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { skipped: `skipped: cannot read it (${code}); check that it is a readable file` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A file's bytes as text, losslessly: UTF-8 (its BOM set aside) when they are valid UTF-8, else Latin-1. */
export function decode(content: Buffer): SourceText {
  let text: string;
  try {
    text = utf8.decode(content);
  } catch {
    return { text: content.toString('latin1'), bom: false, encoding: 'latin1' };
  }
  return text.startsWith('\uFEFF')
    ? { text: text.slice(1), bom: true, encoding: 'utf8' }
    : { text, bom: false, encoding: 'utf8' };
}

/** A fixed text as the bytes to write, or undefined when its encoding cannot hold a character the fix wrote. */
export function encode(source: Omit<SourceText, 'text'>, text: string): Buffer | undefined {
  const body = Buffer.from(text, source.encoding);
  if (body.toString(source.encoding) !== text) return undefined;
  return source.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

/** What the fixes need to know of a file's project. */
export interface ProjectOf {
  (path: string): { root: string; manifests: FoundManifest[] };
}

export interface AnalysisContext {
  pack: Pack;
  projectOf: ProjectOf;
}

export interface CheckContext extends AnalysisContext {
  settingsFor: (path: string) => LintSettings;
}

/** What the analysis of one file gives: its problems, and a notice when it did not parse cleanly. */
export interface Analysed {
  report: FileReport;
  notice?: Notice;
}

/** Analyses a file (in this thread or a worker's): one of the analysis pool's strategies. */
export type Analyzer = (file: FoundFile, text: string, settings: LintSettings) => Promise<Analysed>;

/** Whether a file's text is analysed at all: its language is linted and it mentions Redis. */
const wanted = (file: FoundFile, text: string, settings: LintSettings) =>
  lintsLanguage(settings, file.languageId) && mentionsRedis(file.languageId, text);

/** The findings of a text that mentions Redis under the file's settings, `off` rules left out. */
export async function analyzeFile(
  file: FoundFile,
  text: string,
  settings: LintSettings,
  context: AnalysisContext,
): Promise<Analysed> {
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
  const reported = findings.flatMap((finding) => {
    const severity = findingSeverity(severityOf(settings, finding.code), finding);
    return severity === 'off' ? [] : [{ finding, severity }];
  });
  const { root, manifests } = context.projectOf(file.path);
  const remedies = await planRemedies(
    file.languageId,
    text,
    reported.map(({ finding }) => finding),
    {
      pack: context.pack,
      file: file.path,
      root,
      manifests,
      readFile: readIfExists,
      canCreateFiles: true,
      helperUpdate,
    },
  );
  const problems: Problem[] = remedies.map(({ finding, fix, suggestions, noFix }, i) => ({
    code: finding.code,
    severity: reported[i].severity,
    message: finding.message,
    start: lines.placeOf(finding.start),
    end: lines.placeOf(finding.end),
    fixable: !!fix,
    suggestions: suggestions.map((suggestion) => suggestion.title),
    ...(!fix && noFix && { noFix }),
  }));
  problems.sort((a, b) => a.start.line - b.start.line || a.start.column - b.start.column || compare(a.code, b.code));
  const place = errorAt === undefined ? undefined : lines.placeOf(errorAt);
  return {
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

/** One text checked in this thread (the fixed texts after --fix): undefined when it is not analysed. */
export async function checkFile(file: FoundFile, text: string, context: CheckContext): Promise<Analysed | undefined> {
  const settings = context.settingsFor(file.path);
  return wanted(file, text, settings) ? analyzeFile(file, text, settings, context) : undefined;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byPath = (a: { path: string }, b: { path: string }) => compare(a.path, b.path);

export interface LintOutcome {
  /** Files read whose text was checked (parsed, or passed over by the Redis test). */
  checked: number;
  /** Of those, the files parsed and analysed (the rest never mention Redis, or their language is off). */
  parsed: number;
  /** Reports of the parsed files, in path order (files without problems too). */
  reports: FileReport[];
  /** In path order. */
  notices: Notice[];
}

/**
 * Checks `files`: reads them in order (a few ahead), keeps back those that never mention Redis,
 * and hands the others to `analyze`, with up to `inFlight` analyses under way at once.
 */
export async function lintFiles(
  files: readonly FoundFile[],
  settingsFor: (path: string) => LintSettings,
  analyze: Analyzer,
  inFlight: number,
  onChecked?: (done: number) => void,
): Promise<LintOutcome> {
  const outcome: LintOutcome = { checked: 0, parsed: 0, reports: [], notices: [] };
  const running = new Set<Promise<void>>();
  // The first analysis that failed: the run stops with it (no rejection is left unheard meanwhile).
  let failure: { error: unknown } | undefined;
  for (let i = 0; i < files.length; i++) {
    const file = files[i];
    const read = readSource(file.path);
    if ('skipped' in read) {
      outcome.notices.push({ path: file.path, message: read.skipped });
    } else {
      outcome.checked++;
      const settings = settingsFor(file.path);
      if (wanted(file, read.text, settings)) {
        outcome.parsed++;
        const analysis: Promise<void> = analyze(file, read.text, settings)
          .then(
            (analysed) => {
              outcome.reports.push(analysed.report);
              if (analysed.notice) outcome.notices.push(analysed.notice);
            },
            (error: unknown) => {
              failure ??= { error };
            },
          )
          .finally(() => running.delete(analysis));
        running.add(analysis);
        if (running.size >= inFlight) await Promise.race(running);
        if (failure) throw failure.error;
      }
    }
    onChecked?.(i + 1);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
  outcome.reports.sort(byPath);
  outcome.notices.sort(byPath);
  return outcome;
}

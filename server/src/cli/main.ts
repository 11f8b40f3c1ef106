// `redis-locksmith lint`: find the files, check them with the language server's analysis and
// settings, fix them if asked (then check the fixed texts again, so the report is what remains),
// and report. Exit code 0 clean, 1 problems, 2 usage or internal error; the report on stdout (or
// --output-file), warnings and errors on stderr.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultPackDir, loadPack } from '../../../pack/pack';
import { languageOfFile } from '../languages';
import { readAbout } from './about';
import { EXTENSIONS, parseCommand, USAGE, UsageError, type FixType, type LintOptions } from './args';
import { SettingsFinder } from './config';
import { unifiedDiff } from './diff';
import { planFixes, writeFixes, type FixOutcome } from './fix';
import { json } from './format/json';
import { sarif } from './format/sarif';
import { COLOURS, fixLine, PLAIN, stylish } from './format/stylish';
import { analysisContext, projectRoots } from './context';
import {
  analyzeFile,
  checkFile,
  lintFiles,
  readSource,
  type CheckContext,
  type FileReport,
  type LintOutcome,
  type Notice,
  type Problem,
} from './lint';
import { AnalysisPool } from './pool';
import { Progress } from './progress';
import { countProblems, shown, type Report } from './report';
import { collectFiles, type FoundFile } from './walk';

export interface Io {
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** stderr when it is a terminal: the progress line goes there. */
  terminal?: NodeJS.WriteStream;
  /** The stylish report may use colours (stdout is a terminal, NO_COLOR unset). */
  colours: boolean;
  /** The bundle, run as an analysis worker (bin.ts); without it everything runs in this thread. */
  workerScript?: string;
}

/** Below this many files the analysis stays in this thread. */
const POOL_MIN_FILES = 100;
const MAX_WORKERS = 8;

export const EXIT = { clean: 0, problems: 1, usage: 2 } as const;

export async function run(argv: readonly string[], io: Io): Promise<number> {
  try {
    const command = parseCommand(argv);
    if (command.kind === 'help') {
      io.stdout.write(USAGE);
      return EXIT.clean;
    }
    const about = readAbout(__dirname);
    if (command.kind === 'version') {
      io.stdout.write(`${about.version}\n`);
      return EXIT.clean;
    }
    return await lint(command.options, io, about);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`redis-locksmith: ${error.message}\n`);
      return EXIT.usage;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(
      `redis-locksmith: internal error: ${detail}\nThis is a bug in redis-locksmith: please report it with the command you ran.\n`,
    );
    return EXIT.usage;
  }
}

async function lint(options: LintOptions, io: Io, about: ReturnType<typeof readAbout>): Promise<number> {
  const { cwd } = io;
  const pack = loadPack(defaultPackDir(__dirname));
  const progress = new Progress(io.terminal);
  const errors: Notice[] = [];
  const notices: Notice[] = [];

  const walked = await collectFiles(options.paths, cwd, (count) => progress.found(count));
  for (const given of walked.missing)
    errors.push({ path: resolve(cwd, given), message: `no such file or folder: check the path (relative to ${cwd})` });
  for (const given of walked.unsupported)
    notices.push({
      path: resolve(cwd, given),
      message: `skipped: not a file of a linted language (${EXTENSIONS.join(' ')})`,
    });

  const { topOf, rootOf } = projectRoots(cwd);
  const settings = new SettingsFinder(options.rules, topOf);
  const context: CheckContext = { ...analysisContext(pack, rootOf), settingsFor: (path) => settings.forFile(path) };
  // Workers pay off on many files; a few are quicker to analyse here than to start threads for.
  const workers = io.workerScript && walked.files.length >= POOL_MIN_FILES ? Math.min(options.jobs, MAX_WORKERS) : 1;
  const pool = workers > 1 ? new AnalysisPool(workers, io.workerScript!, { cwd }) : undefined;
  let linted: LintOutcome;
  try {
    linted = await lintFiles(
      walked.files,
      context.settingsFor,
      pool?.analyze ?? ((file, text, fileSettings) => analyzeFile(file, text, fileSettings, context)),
      // Enough under way to keep every worker busy while the next files are read.
      workers * 4,
      (done) => progress.checked(done, walked.files.length),
    );
  } finally {
    await pool?.close();
  }
  notices.push(...linted.notices);
  let reports = linted.reports;

  let fixes: FixOutcome | undefined;
  if (options.fix !== 'no') {
    const fixed = await fix(walked.files, reports, context, options.fixTypes);
    fixes = fixed.fixes;
    // A dry run changes nothing: the report is what lint reports, the diff says what --fix would change.
    if (options.fix === 'apply') {
      const unwritten = writeFixes(fixes.changed);
      if (unwritten.length) {
        errors.push(...unwritten);
        fixes = undefined;
      } else reports = fixed.reports;
    }
  }
  progress.clear();

  for (const problem of settings.problems)
    errors.push({ path: problem.path, place: problem, message: problem.message });
  const report: Report = {
    about,
    cwd,
    files: reports,
    notices,
    errors,
    fixes: fixes?.records ?? [],
    dryRun: options.fix === 'dry-run',
    checked: linted.checked,
    parsed: linted.parsed,
  };
  emit(report, options, io, fixes);

  if (errors.length) return EXIT.usage;
  const counts = countProblems(report.files);
  const tooManyWarnings = options.maxWarnings >= 0 && counts.warning > options.maxWarnings;
  return counts.error > 0 || tooManyWarnings ? EXIT.problems : EXIT.clean;
}

/** The warnings and errors on stderr; the diff of a dry run and the report on stdout (or the report to its file). */
function emit(report: Report, options: LintOptions, io: Io, fixes: FixOutcome | undefined): void {
  const line = (level: string, notice: Notice) =>
    `${level}: ${shown(report, notice.path)}${notice.place ? `:${notice.place.line}:${notice.place.column}` : ''}: ${notice.message}\n`;
  for (const notice of report.notices) io.stderr.write(line('warning', notice));
  for (const error of report.errors) io.stderr.write(line('error', error));
  // SARIF has no place for what was changed: it goes with the warnings.
  if (options.format === 'sarif') for (const record of report.fixes) io.stderr.write(`${fixLine(report, record)}\n`);

  if (fixes && options.fix === 'dry-run') {
    for (const change of fixes.changed.values())
      io.stdout.write(unifiedDiff(shown(report, change.path), change.before?.text, change.after));
  }
  const formatted =
    options.format === 'json'
      ? json(report)
      : options.format === 'sarif'
        ? sarif(report)
        : stylish(report, io.colours && !options.outputFile ? COLOURS : PLAIN);
  if (!options.outputFile) {
    io.stdout.write(formatted);
    return;
  }
  const target = resolve(report.cwd, options.outputFile);
  try {
    writeFileSync(target, formatted);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`cannot write the report to ${target} (${code}): check that its folder exists`);
  }
}

/** Fixes the files with problems `types` apply to, and checks the fixed texts again. */
async function fix(
  files: readonly FoundFile[],
  reports: FileReport[],
  context: CheckContext,
  types: readonly FixType[],
): Promise<{ fixes: FixOutcome; reports: FileReport[] }> {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const applies = (problem: Problem) =>
    (types.includes('fix') && problem.fixable) || (types.includes('suggestion') && problem.suggestions.length > 0);
  const toFix = [];
  for (const report of reports) {
    if (!report.problems.some(applies)) continue;
    const source = readSource(report.path);
    if (!('skipped' in source)) toFix.push({ file: byPath.get(report.path)!, source });
  }
  const fixes = await planFixes(toFix, { ...context, types });
  const after = new Map(reports.map((report) => [report.path, report]));
  for (const change of fixes.changed.values()) {
    const languageId = byPath.get(change.path)?.languageId ?? languageOfFile(change.path);
    if (!languageId) continue;
    const checked = await checkFile({ path: change.path, languageId }, change.after, context);
    if (checked) after.set(change.path, checked.report);
    else after.delete(change.path);
  }
  return { fixes, reports: [...after.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

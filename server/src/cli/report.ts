// What a run found, for the formatters: the files with their problems, the notices, the fixes,
// and the counts; paths shown relative to the folder the command ran in.
import { relative } from 'node:path';
import type { About } from './about';
import type { FixRecord } from './fix';
import type { FileReport, Notice, ReportedSeverity } from './lint';
import { toSlashes } from './walk';

export interface Report {
  about: About;
  /** Where the command ran: paths are shown relative to it. */
  cwd: string;
  /** Every file analysed, in path order; most have no problems. */
  files: FileReport[];
  /** Files skipped or checked only in part (warnings). */
  notices: Notice[];
  /** What went wrong in the run and fails it (exit 2): a missing path, a broken settings file. */
  errors: Notice[];
  /** What --fix changed, or (dry run) would change. */
  fixes: FixRecord[];
  dryRun: boolean;
  /** Files read and checked; `parsed` of them mention Redis and were analysed. */
  checked: number;
  parsed: number;
}

/** Problems per severity; `fixable` with a fix, `suggestable` with only suggestions. */
export type Counts = Record<ReportedSeverity, number> & { fixable: number; suggestable: number };

export function countProblems(files: readonly FileReport[]): Counts {
  const counts: Counts = { error: 0, warning: 0, information: 0, hint: 0, fixable: 0, suggestable: 0 };
  for (const file of files) {
    for (const problem of file.problems) {
      counts[problem.severity]++;
      if (problem.fixable) counts.fixable++;
      else if (problem.suggestions.length) counts.suggestable++;
    }
  }
  return counts;
}

/** A path as the report shows it: relative to the working folder, forward slashes. */
export const shown = (report: Pick<Report, 'cwd'>, path: string) => toSlashes(relative(report.cwd, path)) || '.';

export const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

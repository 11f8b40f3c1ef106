// The machine-readable report: every file with problems, each problem with its rule, severity,
// message, 1-based start and end (columns in UTF-16 code units), whether --fix fixes it (or why
// not), the suggestions `--fix-type suggestion` would apply, and where the rule is explained; the
// run's errors, the notices (skipped or partly checked files), the fixes, the counts.
import type { Notice } from '../lint';
import { countProblems, shown, type Report } from '../report';

const noticeJson = (report: Report, notice: Notice) => ({
  path: shown(report, notice.path),
  ...(notice.place && { line: notice.place.line, column: notice.place.column }),
  message: notice.message,
});

export function json(report: Report): string {
  const counts = countProblems(report.files);
  const document = {
    tool: { name: report.about.name, version: report.about.version },
    files: report.files
      .filter((file) => file.problems.length)
      .map((file) => ({
        path: shown(report, file.path),
        language: file.languageId,
        problems: file.problems.map((problem) => ({
          rule: problem.code,
          severity: problem.severity,
          message: problem.message,
          line: problem.start.line,
          column: problem.start.column,
          endLine: problem.end.line,
          endColumn: problem.end.column,
          fixable: problem.fixable,
          suggestions: problem.suggestions,
          ...(problem.noFix !== undefined && { noFix: { reason: problem.noFix.code, message: problem.noFix.why } }),
          help: report.about.rules.get(problem.code)!.helpUri,
        })),
      })),
    errors: report.errors.map((notice) => noticeJson(report, notice)),
    notices: report.notices.map((notice) => noticeJson(report, notice)),
    fixes: report.fixes.map((record) => ({
      path: shown(report, record.path),
      rules: record.codes,
      created: record.created.map((path) => shown(report, path)),
      notes: record.notes,
      applied: !report.dryRun,
    })),
    summary: {
      checked: report.checked,
      analysed: report.parsed,
      errors: counts.error,
      warnings: counts.warning,
      infos: counts.information,
      hints: counts.hint,
      fixable: counts.fixable,
      onlySuggestions: counts.suggestable,
    },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

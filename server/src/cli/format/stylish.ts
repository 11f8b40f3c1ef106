// The default report, laid out like ESLint's "stylish": each file with problems, then its
// problems one a line (line:column, severity, message, rule) in aligned columns, then a summary.
// Colours only for a terminal.
import type { FixRecord } from '../fix';
import type { Problem, ReportedSeverity } from '../lint';
import { countProblems, plural, shown, type Report } from '../report';

export interface Style {
  underline(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  severity(severity: ReportedSeverity, text: string): string;
}

const ansi = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const SEVERITY_COLOUR: Record<ReportedSeverity, (text: string) => string> = {
  error: ansi(31, 39),
  warning: ansi(33, 39),
  information: ansi(36, 39),
  hint: ansi(90, 39),
};

export const COLOURS: Style = {
  underline: ansi(4, 24),
  dim: ansi(2, 22),
  bold: ansi(1, 22),
  severity: (severity, text) => SEVERITY_COLOUR[severity](text),
};

const same = (text: string) => text;
export const PLAIN: Style = { underline: same, dim: same, bold: same, severity: (_severity, text) => text };

const LABEL: Record<ReportedSeverity, string> = {
  error: 'error',
  warning: 'warning',
  information: 'info',
  hint: 'hint',
};

/** One line of what --fix changed (or would change). */
export function fixLine(report: Report, record: FixRecord): string {
  const created = record.created.map((path) => `, created ${shown(report, path)}`).join('');
  const notes = record.notes.map((note) => `; ${note}`).join('');
  return `${report.dryRun ? 'Would fix' : 'Fixed'} ${shown(report, record.path)}: ${record.codes.join(', ')}${created}${notes}`;
}

function problemRows(problems: readonly Problem[], style: Style): string[] {
  const cells = problems.map((problem) => ({
    line: String(problem.start.line),
    column: String(problem.start.column),
    label: LABEL[problem.severity],
    severity: problem.severity,
    // Like ESLint: the message's closing full stop dropped.
    message: problem.message.replace(/([^ ])\.$/u, '$1'),
    code: problem.code,
  }));
  const width = (pick: (cell: (typeof cells)[number]) => string) => Math.max(...cells.map((cell) => pick(cell).length));
  const [line, column, label, message] = [
    width((c) => c.line),
    width((c) => c.column),
    width((c) => c.label),
    width((c) => c.message),
  ];
  return cells.map(
    (cell) =>
      `  ${style.dim(`${cell.line.padStart(line)}:${cell.column.padEnd(column)}`)}  ` +
      `${style.severity(cell.severity, cell.label.padEnd(label))}  ${cell.message.padEnd(message)}  ${style.dim(cell.code)}`,
  );
}

export function stylish(report: Report, style: Style): string {
  const out: string[] = [];
  if (report.fixes.length) out.push('', ...report.fixes.map((record) => fixLine(report, record)));
  const withProblems = report.files.filter((file) => file.problems.length);
  for (const file of withProblems)
    out.push('', style.underline(shown(report, file.path)), ...problemRows(file.problems, style));
  const counts = countProblems(report.files);
  const total = counts.error + counts.warning + counts.information + counts.hint;
  const checked = `${plural(report.checked, 'file')} checked, ${report.parsed.toLocaleString('en')} analysed`;
  if (total === 0 && report.errors.length) {
    // A missing path or a broken settings file: the run failed, whatever it found.
    out.push(
      '',
      style.severity(
        'error',
        style.bold(`✖ ${plural(report.errors.length, 'error')} in the run (on stderr); ${checked}`),
      ),
    );
  } else if (total === 0) {
    out.push('', `✔ No problems (${checked})`);
  } else {
    const parts = [plural(counts.error, 'error'), plural(counts.warning, 'warning')];
    if (counts.information) parts.push(plural(counts.information, 'info', 'infos'));
    if (counts.hint) parts.push(plural(counts.hint, 'hint'));
    const colour: ReportedSeverity = counts.error ? 'error' : counts.warning ? 'warning' : 'information';
    out.push('', style.severity(colour, style.bold(`✖ ${plural(total, 'problem')} (${parts.join(', ')})`)));
    if (counts.fixable)
      out.push(
        style.severity(colour, style.bold(`  ${plural(counts.fixable, 'problem')} fixable with the \`--fix\` option.`)),
      );
    if (counts.suggestable)
      out.push(
        style.severity(
          colour,
          `  ${plural(counts.suggestable, 'problem')} with suggestions that change behaviour: \`--fix --fix-type suggestion\`.`,
        ),
      );
  }
  return `${out.join('\n')}\n`;
}

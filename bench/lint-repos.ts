// How loud the linter is on whole real repositories: findings per thousand lines of linted code,
// per repository and per rule, from the built lint CLI (server/out/cli.js) run on each folder
// given, against a baseline build of another version run on the same folders in the same run
// (--baseline: a folder holding that version's package.json, README.md, scripts-lua/ and
// server/out/). No repository is part of this project: bring your own (a job queue whose Lua
// builds keys from a {prefix} in ARGV, a Redis client library, a project with a pause flag) and
// point this at their folders. Lines are the non-blank lines of the files the CLI checks (its own
// walk: linted languages, .gitignore, no node_modules); warnings/kLOC leaves out the minor findings
// (information, hints). Prints tables; not a test.
//   npm run bench:lint-repos -- [--baseline DIR] DIR...
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { collectFiles } from '../server/src/cli/walk';
import { table } from './stats';

const ROOT = join(__dirname, '..');

interface Run {
  /** Findings by rule code. */
  byRule: Map<string, number>;
  total: number;
  /** Of them, warnings and errors (the rest are information and hints: minor findings). */
  warnings: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The rule and severity of every problem in the CLI's JSON report. */
function problemsOf(report: unknown): { rule: string; severity: string }[] {
  const malformed = () => new Error('the JSON report has no files[].problems[] with a rule and a severity');
  if (!isRecord(report) || !Array.isArray(report.files)) throw malformed();
  const problems: { rule: string; severity: string }[] = [];
  for (const file of report.files as unknown[]) {
    if (!isRecord(file) || !Array.isArray(file.problems)) throw malformed();
    for (const problem of file.problems as unknown[]) {
      if (!isRecord(problem) || typeof problem.rule !== 'string' || typeof problem.severity !== 'string')
        throw malformed();
      problems.push({ rule: problem.rule, severity: problem.severity });
    }
  }
  return problems;
}

/** Runs `cli` on `dir` and counts its findings per rule. */
function lint(cli: string, dir: string): Run {
  const result = spawnSync(process.execPath, [cli, 'lint', '--format', 'json', dir], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  // Exit 1 means problems were found; anything else but 0 is a failed run.
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`${cli} lint ${dir} exited ${result.status}: ${result.stderr.slice(0, 500)}`);
  const problems = problemsOf(JSON.parse(result.stdout));
  const byRule = new Map<string, number>();
  for (const { rule } of problems) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
  const warnings = problems.filter(({ severity }) => severity === 'warning' || severity === 'error').length;
  return { byRule, total: problems.length, warnings };
}

async function linesOf(dir: string): Promise<number> {
  const { files } = await collectFiles([dir], process.cwd());
  let lines = 0;
  for (const file of files)
    lines += readFileSync(file.path, 'utf8')
      .split('\n')
      .filter((line) => line.trim()).length;
  return lines;
}

const perKloc = (count: number, lines: number) => ((count * 1000) / lines).toFixed(2);

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { baseline: { type: 'string' } },
    allowPositionals: true,
  });
  if (!positionals.length) throw new Error('usage: npm run bench:lint-repos -- [--baseline DIR] DIR...');
  const current = join(ROOT, 'server', 'out', 'cli.js');
  const baseline = values.baseline && join(resolve(values.baseline), 'server', 'out', 'cli.js');
  const rows: string[][] = [];
  const rules = new Set<string>();
  const runs: { name: string; now: Run; before?: Run }[] = [];
  let allLines = 0;
  let allNow = 0;
  let allBefore = 0;
  let allWarnings = 0;
  for (const dir of positionals) {
    const lines = await linesOf(dir);
    const now = lint(current, dir);
    const before = baseline ? lint(baseline, dir) : undefined;
    const name = basename(resolve(dir));
    runs.push({ name, now, before });
    for (const rule of [...now.byRule.keys(), ...(before?.byRule.keys() ?? [])]) rules.add(rule);
    allLines += lines;
    allNow += now.total;
    allBefore += before?.total ?? 0;
    allWarnings += now.warnings;
    rows.push([
      name,
      lines.toLocaleString('en'),
      ...(before ? [String(before.total), perKloc(before.total, lines)] : []),
      String(now.total),
      perKloc(now.total, lines),
      perKloc(now.warnings, lines),
      ...(before ? [before.total ? (now.total / before.total).toFixed(2) : '-'] : []),
    ]);
  }
  rows.push([
    'all',
    allLines.toLocaleString('en'),
    ...(baseline ? [String(allBefore), perKloc(allBefore, allLines)] : []),
    String(allNow),
    perKloc(allNow, allLines),
    perKloc(allWarnings, allLines),
    ...(baseline ? [allBefore ? (allNow / allBefore).toFixed(2) : '-'] : []),
  ]);
  const header = baseline
    ? ['repository', 'lines', 'baseline', 'baseline/kLOC', 'findings', 'findings/kLOC', 'warnings/kLOC', 'ratio']
    : ['repository', 'lines', 'findings', 'findings/kLOC', 'warnings/kLOC'];
  console.log(table(header, rows));
  console.log();
  const sorted = [...rules].sort();
  const cell = (run: Run | undefined, rule: string) => String(run?.byRule.get(rule) ?? 0);
  console.log(
    table(
      ['repository', ...sorted.map((rule) => (baseline ? `${rule} before/now` : rule))],
      runs.map(({ name, now, before }) => [
        name,
        ...sorted.map((rule) => (baseline ? `${cell(before, rule)}/${cell(now, rule)}` : cell(now, rule))),
      ]),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

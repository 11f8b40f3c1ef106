// What the fixes reach: per rule, how many findings get a fix, only suggestions, or nothing (and
// why, by reason), on the folders given, each a project (a repository you bring), or by default on
// the fixture corpora (test/fixtures/fix and test/fixtures/lint), each fixture a project of its own
// as a real repository would be (one client library, its own helper; Go with a go.mod). Runs the
// lint CLI itself (its JSON report), so it measures what users get; a markdown table on stdout.
//   npm run fix-coverage                     # the fixture corpora
//   npm run fix-coverage -- ~/src/some-repo  # any folders
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { run } from '../server/src/cli/main';

interface JsonProblem {
  rule: string;
  fixable: boolean;
  suggestions: string[];
  noFix?: { reason: string };
}

async function problemsOf(folder: string): Promise<JsonProblem[]> {
  let stdout = '';
  const sink = { write: (text: string) => (stdout += text) };
  await run(['lint', '--format', 'json', '--max-warnings', '-1', '.'], {
    cwd: folder,
    stdout: sink,
    stderr: { write: () => true },
    colours: false,
  });
  const report = JSON.parse(stdout) as { files: { problems: JsonProblem[] }[] };
  return report.files.flatMap((file) => file.problems);
}

/** Every fixture linted as a project of its own. */
async function fixturesOneProjectEach(corpora: string[]): Promise<JsonProblem[]> {
  const work = mkdtempSync(join(tmpdir(), 'locksmith-fix-coverage-'));
  try {
    const problems: JsonProblem[] = [];
    let n = 0;
    for (const corpus of corpora)
      for (const language of readdirSync(corpus, { withFileTypes: true }).filter((entry) => entry.isDirectory()))
        for (const file of readdirSync(join(corpus, language.name))) {
          const project = join(work, String(n++));
          mkdirSync(project);
          copyFileSync(join(corpus, language.name, file), join(project, file));
          if (language.name === 'go') writeFileSync(join(project, 'go.mod'), 'module example.com/app\n\ngo 1.26\n');
          problems.push(...(await problemsOf(project)));
        }
    return problems;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const percent = (part: number, whole: number) => (whole ? `${Math.round((100 * part) / whole)} %` : '-');

async function main(): Promise<void> {
  const given = process.argv.slice(2);
  const corpora = ['fix', 'lint'].map((name) => join(__dirname, '..', 'test', 'fixtures', name));
  const folders = given.length ? given.map((folder) => resolve(folder)) : corpora;
  const problems = given.length
    ? (await Promise.all(folders.map(problemsOf))).flat()
    : await fixturesOneProjectEach(corpora);
  const rules = [...new Set(problems.map((problem) => problem.rule))].sort();
  const rows = [
    '| rule | findings | fix | suggestion only | nothing | why nothing (count) |',
    '|---|---|---|---|---|---|',
  ];
  const totals = { all: 0, fix: 0, suggestion: 0 };
  for (const rule of rules) {
    const of = problems.filter((problem) => problem.rule === rule);
    const fix = of.filter((problem) => problem.fixable).length;
    const suggestion = of.filter((problem) => !problem.fixable && problem.suggestions.length).length;
    const none = of.filter((problem) => !problem.fixable && !problem.suggestions.length);
    const reasons = new Map<string, number>();
    for (const problem of none)
      reasons.set(problem.noFix?.reason ?? '?', (reasons.get(problem.noFix?.reason ?? '?') ?? 0) + 1);
    const why = [...reasons]
      .sort((a, b) => b[1] - a[1])
      .map(([reason, count]) => `${reason} (${count})`)
      .join(', ');
    rows.push(
      `| ${rule} | ${of.length} | ${fix} (${percent(fix, of.length)}) | ${suggestion} (${percent(suggestion, of.length)}) | ${none.length} | ${why} |`,
    );
    totals.all += of.length;
    totals.fix += fix;
    totals.suggestion += suggestion;
  }
  const reached = totals.fix + totals.suggestion;
  rows.push(
    `| all | ${totals.all} | ${totals.fix} (${percent(totals.fix, totals.all)}) | ${totals.suggestion} (${percent(totals.suggestion, totals.all)}) | ${totals.all - reached} | fix or suggestion: ${percent(reached, totals.all)} |`,
  );
  process.stdout.write(`Folders: ${folders.join(', ')}\n\n${rows.join('\n')}\n`);
}

void main();

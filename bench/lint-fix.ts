// What `lint --fix` costs over `lint` on the fix fixtures (test/fixtures/fix and test/fixtures/lint,
// one project per language folder, copied fresh for every run): both as whole CLI processes,
// alternated round by round so drift on a shared machine hits them alike. `lint` is the baseline
// (it already plans each finding's remedies for its report); `--fix --fix-type fix,suggestion`
// also applies them, writes the files and the helpers, and analyses each fixed file again. Prints
// the median of each, the ratio (round by round) and the time per fixed file. Not a test.
//   npm run bench:lint-fix -- [--runs 5]
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median, table } from './stats';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'server', 'out', 'cli.js');
const CORPORA = ['fix', 'lint'].map((name) => join(ROOT, 'test', 'fixtures', name));

/** A fresh copy of the corpora: one git repository per language folder of each corpus. */
function freshProjects(): string {
  const dir = mkdtempSync(join(tmpdir(), 'locksmith-bench-fix-'));
  for (const corpus of CORPORA)
    for (const language of readdirSync(corpus, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const project = join(dir, `${corpus.endsWith('fix') ? 'fix' : 'lint'}-${language.name}`);
      cpSync(join(corpus, language.name), project, { recursive: true });
      spawnSync('git', ['init', '-q'], { cwd: project });
    }
  return dir;
}

/** Runs the CLI over every project of `dir`; wall time in ms and the files it fixed. */
function timeCli(dir: string, args: string[]): { ms: number; fixed: number } {
  const projects = readdirSync(dir).map((name) => join(dir, name));
  const started = process.hrtime.bigint();
  let fixed = 0;
  for (const project of projects) {
    const result = spawnSync(process.execPath, [CLI, 'lint', '--format', 'json', '--max-warnings', '-1', ...args], {
      cwd: project,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0 && result.status !== 1) throw new Error(`lint ${args.join(' ')}: ${result.stderr}`);
    fixed += (JSON.parse(result.stdout) as { fixes: unknown[] }).fixes.length;
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, fixed };
}

function main(): void {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
  const runs = Number(values.runs);
  const lint: number[] = [];
  const fix: number[] = [];
  const ratios: number[] = [];
  let fixedFiles = 0;
  for (let round = 0; round < runs; round++) {
    const a = freshProjects();
    const b = freshProjects();
    try {
      const plain = timeCli(a, []);
      const fixing = timeCli(b, ['--fix', '--fix-type', 'fix,suggestion']);
      lint.push(plain.ms);
      fix.push(fixing.ms);
      ratios.push(fixing.ms / plain.ms);
      fixedFiles = fixing.fixed;
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  }
  const extra = median(fix) - median(lint);
  console.log(
    table(
      ['command', 'median ms', 'x lint'],
      [
        ['lint (baseline)', median(lint).toFixed(0), '1.00'],
        ['lint --fix --fix-type fix,suggestion', median(fix).toFixed(0), median(ratios).toFixed(2)],
      ],
    ),
  );
  console.log(
    `\n${fixedFiles} files fixed per run; --fix adds ${extra.toFixed(0)} ms, ${(extra / fixedFiles).toFixed(1)} ms per fixed file (median of ${runs} runs)`,
  );
}

main();

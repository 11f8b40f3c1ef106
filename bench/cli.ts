// The lint CLI (server/out/cli.js) on whole repositories, timed as whole processes (start-up,
// walk, reads, analysis, report written) with its default analysis threads and with --jobs 1,
// against a floor measured in the same run, all three in turn so that drift on a shared machine
// hits them alike; each ratio is taken round by round. The floor is bench/cli-floor.ts, bundled next to a copy of the server's grammars: a
// process that reads and parses, and does nothing else.
// Part 1: a 450,000-line workspace where every file mentions Redis (bench/lint-corpus.ts's
//   workspace, 2,000 files of 50 to 400 lines in 9 languages): the CLI against a bare parse of
//   the same files. Target: <= 1.2 x.
// Part 2: a 20,000-file repository where 1 % of the files mention Redis (the rest are the same
//   kind of code with every mention of Redis renamed), plus 2,000 files under a dist/ that
//   .gitignore lists: the CLI against reading every file and parsing the 1 % (the least any
//   tree-sitter linter does). Target: < 5 s.
// Prints tables; not a test.
//   npm run bench:cli -- [--runs 5] [--warmup 1]
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { mentionsRedis } from '../server/src/analysis';
import { MENTIONS_REDIS, MENTIONS_REDIS_ONLY_METHOD } from '../server/src/analysis/ops';
import { workspace, type SourceFile } from './lint-corpus';
import { median, sum, table } from './stats';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'server', 'out', 'cli.js');
const RATIO_TARGET = 1.2;
const REPOSITORY_TARGET_MS = 5000;
/** The CLI's default number of analysis threads (its --jobs). */
const cores = Math.min(availableParallelism(), 8);

interface Timed {
  /** Samples (ms) of each command. */
  samples: number[][];
  /** Each command's time over the floor's (the last command), round by round. */
  ratios: number[][];
}

/** Runs a command to its end; the wall time in ms. Fails on an exit code other than `allowed`. */
function timeRun(args: string[], cwd: string, allowed: number[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (run.status === null || !allowed.includes(run.status))
    throw new Error(`${args.join(' ')} exited ${run.status ?? run.signal}: ${run.stderr}`);
  return elapsed;
}

/** The commands in turn, round after round (warm-up rounds not counted); the floor is the last. */
function inTurn(commands: (() => number)[], runs: number, warmup: number): Timed {
  const timed: Timed = { samples: commands.map(() => []), ratios: commands.map(() => []) };
  for (let round = 0; round < warmup + runs; round++) {
    // A different one first each round, so that none always runs on caches another warmed.
    const times: number[] = [];
    for (let k = 0; k < commands.length; k++) {
      const index = (k + round) % commands.length;
      times[index] = commands[index]();
    }
    if (round < warmup) continue;
    times.forEach((time, index) => {
      timed.samples[index].push(time);
      timed.ratios[index].push(time / times[commands.length - 1]);
    });
  }
  return timed;
}

function writeTree(dir: string, files: readonly { name: string; text: string }[]): string[] {
  return files.map((file) => {
    const path = join(dir, file.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text);
    return path;
  });
}

/** The same code with every word that says Redis renamed: it then never mentions Redis. */
function withoutRedis(file: SourceFile): SourceFile {
  const text = file.text
    .replace(new RegExp(MENTIONS_REDIS.source, 'gi'), 'store')
    .replace(new RegExp(MENTIONS_REDIS_ONLY_METHOD.source, 'gi'), (call) => call.replace(/\w+$/, 'fetch'));
  if (mentionsRedis(file.language, text)) throw new Error(`${file.name} still mentions Redis after renaming`);
  return { ...file, text, expected: [] };
}

/** The floor program, bundled like the CLI, with the grammars where the parsers look for them. */
async function buildFloor(dir: string): Promise<string> {
  const outfile = join(dir, 'floor', 'floor.js');
  await esbuild.build({
    entryPoints: [join(__dirname, 'cli-floor.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    logLevel: 'warning',
  });
  cpSync(join(ROOT, 'server', 'out', 'wasm'), join(dir, 'floor', 'wasm'), { recursive: true });
  return outfile;
}

interface Summary {
  checked: number;
  analysed: number;
  errors: number;
  warnings: number;
}

const seconds = (value: number) => (value / 1000).toFixed(2);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '5' }, warmup: { type: 'string', default: '1' } },
  });
  const runs = Number(values.runs);
  const warmup = Number(values.warmup);
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const built = readFileSync(CLI, 'utf8').includes('\n//# sourceMappingURL') ? 'development' : 'production';
  console.log(
    `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, load average ${load()} ` +
      `(a shared machine: other work runs alongside); the CLI's ${built} build; medians of ${runs} rounds after ` +
      `${warmup} warm-up round(s)\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'locksmith-bench-cli-'));
  try {
    const floor = await buildFloor(dir);
    const cli = (root: string, jobs?: number) => () =>
      timeRun(
        [
          CLI,
          'lint',
          '--format',
          'json',
          '--output-file',
          join(dir, 'report.json'),
          ...(jobs ? ['--jobs', String(jobs)] : []),
          '.',
        ],
        root,
        [0, 1],
      );
    const floorOf = (read: string[], parse: string[]) => {
      const list = join(dir, `floor-${read.length}-${parse.length}.json`);
      writeFileSync(list, JSON.stringify({ read, parse }));
      return () => timeRun([floor, list], dir, [0]);
    };
    const report = () => (JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { summary: Summary }).summary;

    // Part 1.
    const files = workspace(2000);
    const lines = sum(files.map((file) => file.lines));
    const workspaceDir = join(dir, 'workspace');
    const paths = writeTree(workspaceDir, files);
    const first = inTurn([cli(workspaceDir), cli(workspaceDir, 1), floorOf([], paths)], runs, warmup);
    const found = report();
    const planted = sum(files.map((file) => file.expected.length));
    console.log(
      `Part 1: ${files.length.toLocaleString('en')} files, ${lines.toLocaleString('en')} lines, every one mentioning Redis; ` +
        `the CLI analysed ${found.analysed.toLocaleString('en')} of ${found.checked.toLocaleString('en')} and reported ` +
        `${found.warnings} warnings (${planted} planted)`,
    );
    if (found.analysed !== files.length)
      throw new Error(`the CLI analysed ${found.analysed} files, not ${files.length}`);
    console.log(timeTable('450k-line workspace', first, lines, 'floor: read + bare parse of every file'));
    const ratio = median(first.ratios[0]);
    console.log(
      `target: CLI <= ${RATIO_TARGET} x the bare parse: ${ratio <= RATIO_TARGET ? 'met' : 'MISSED'} (${ratio.toFixed(2)} x; ` +
        `${median(first.ratios[1]).toFixed(2)} x on one thread)\n`,
    );
    rmSync(workspaceDir, { recursive: true, force: true });

    // Part 2.
    const redisFiles = workspace(200, 7).map((file) => ({ ...file, name: `services/${file.name}` }));
    const plainFiles = workspace(19_800, 11).map((file) => withoutRedis({ ...file, name: `modules/${file.name}` }));
    const ignored = workspace(2000, 13).map((file) => ({ ...file, name: `dist/${file.name}` }));
    const repository = join(dir, 'repository');
    writeTree(repository, [{ name: '.gitignore', text: '# build output\ndist/\n' }, ...ignored]);
    const plainPaths = writeTree(repository, plainFiles);
    const redisPaths = writeTree(repository, redisFiles);
    const repositoryLines = sum([...redisFiles, ...plainFiles].map((file) => file.lines));
    const second = inTurn([cli(repository), cli(repository, 1), floorOf(plainPaths, redisPaths)], runs, warmup);
    const scanned = report();
    console.log(
      `Part 2: ${(plainFiles.length + redisFiles.length).toLocaleString('en')} files (${repositoryLines.toLocaleString('en')} lines), ` +
        `${redisFiles.length} mentioning Redis, and ${ignored.length.toLocaleString('en')} under the ignored dist/; ` +
        `the CLI checked ${scanned.checked.toLocaleString('en')}, analysed ${scanned.analysed}, reported ${scanned.warnings} warnings`,
    );
    if (scanned.checked !== plainFiles.length + redisFiles.length || scanned.analysed !== redisFiles.length)
      throw new Error(
        'the CLI did not check every file, or analysed a file that never mentions Redis, or walked dist/',
      );
    console.log(
      timeTable('20,000-file repository', second, repositoryLines, 'floor: read every file, bare parse of the 1 %'),
    );
    const slowest = Math.max(median(second.samples[0]), median(second.samples[1]));
    console.log(
      `target: CLI < ${REPOSITORY_TARGET_MS / 1000} s: ${slowest < REPOSITORY_TARGET_MS ? 'met' : 'MISSED'} ` +
        `(${seconds(median(second.samples[0]))} s; ${seconds(median(second.samples[1]))} s on one thread)\n`,
    );
    console.log(`load average at the end: ${load()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The CLI with its default threads, with one, and the floor: median, spread, speed, ratio. */
function timeTable(title: string, timed: Timed, lines: number, floorName: string): string {
  const names = [`CLI: lint (${cores} analysis threads, the default)`, 'CLI: lint --jobs 1 (one thread)', floorName];
  const rows = names.map((name, index) => {
    const samples = timed.samples[index];
    const middle = median(samples);
    return [
      name,
      seconds(middle),
      seconds(Math.min(...samples)),
      seconds(Math.max(...samples)),
      Math.round(lines / (middle / 1000)).toLocaleString('en'),
      median(timed.ratios[index]).toFixed(2),
    ];
  });
  return table([title, 'median s', 'min s', 'max s', 'lines/s', 'x floor'], rows);
}

void main();

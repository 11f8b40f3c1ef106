// The npm package a CI job or a Python, Go or Java shop runs with `npx redis-locksmith lint`: only
// what the CLI and the language server read at run time, no dependencies to fetch (installed
// here with --offline and an empty cache), and the same reports, exit codes and fixes as the
// repository's own build.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GRAMMARS } from '../server/src/analysis/parsers';
import { SCRIPT_NAMES } from '../pack/pack';
import { copyFixture, removeCopies, runCli, type CliResult } from '../harness/cli';
import { ensureNpmPackage, installNpmPackage, removeInstalls, tarballFiles } from '../harness/npmPackage';
import { ROOT } from '../harness/vsix';

const BUDGET_BYTES = 4 * 1024 * 1024;
/** SETNX, then EXPIRE, then a blind DEL, with a constant value: LOCK001, LOCK006 and LOCK003. */
const UNSAFE_JOB = join(__dirname, 'fixtures', 'report_job.py');
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

let tarball: string;
let project: string;

before(async () => {
  tarball = await ensureNpmPackage();
  project = await installNpmPackage(tarball);
});

after(() => {
  removeInstalls();
  removeCopies();
});

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** Runs `command ...args` in `cwd` with no colours; never rejects on a non-zero exit. */
function run(command: string, args: readonly string[], cwd: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_offline: 'true' };
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      if (typeof code !== 'number') reject(error ?? new Error('no exit code'));
      else resolve({ code, stdout, stderr });
    });
  });
}

test('the tarball holds the two bundles, the grammars, the pack, the templates and the rules page, nothing else', (t) => {
  const expected = [
    'LICENSE',
    'README.md',
    'package.json',
    'docs/rules.md',
    'server/out/cli.js',
    'server/out/server.js',
    'server/out/wasm/tree-sitter.wasm',
    ...GRAMMARS.map((grammar) => `server/out/wasm/tree-sitter-${grammar}.wasm`),
    'scripts-lua/README.md',
    ...SCRIPT_NAMES.map((name) => `scripts-lua/${name}.lua`),
    ...filesUnder('snippets/templates'),
  ].sort();
  assert.deepEqual(tarballFiles(tarball), expected);
  const size = statSync(tarball).size;
  t.diagnostic(`${relative(ROOT, tarball)}: ${(size / 1024 / 1024).toFixed(2)} MB, ${expected.length} files`);
  assert.ok(size <= BUDGET_BYTES, `${size} bytes, budget ${BUDGET_BYTES}`);
});

test('its manifest: the two commands, Node 20, and no dependency of any kind', () => {
  const installed = join(project, 'node_modules', 'redis-locksmith');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  const ours = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  assert.equal(manifest.name, ours.name);
  assert.equal(manifest.version, ours.version);
  assert.deepEqual(manifest.bin, {
    'redis-locksmith': 'server/out/cli.js',
    'redis-locksmith-language-server': 'server/out/server.js',
  });
  assert.deepEqual((manifest.engines as Record<string, string>).node, '>=20');
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies'])
    assert.equal(manifest[field], undefined, field);
  assert.deepEqual(readdirSync(join(project, 'node_modules')).sort(), [
    '.bin',
    '.package-lock.json',
    'redis-locksmith',
  ]);
});

test('its README is docs/cli.md, with every link an address that works outside the repository', () => {
  const readme = readFileSync(join(project, 'node_modules', 'redis-locksmith', 'README.md'), 'utf8');
  assert.ok(readme.startsWith('# The lint CLI'), readme.slice(0, 40));
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g))
    assert.match(target, /^(https:\/\/github\.com\/redis-locksmith\/redis-locksmith\/blob\/HEAD\/|#|https?:)/, target);
});

describe('npx redis-locksmith lint in a Python project', () => {
  before(() => {
    mkdirSync(join(project, 'src'), { recursive: true });
    copyFileSync(UNSAFE_JOB, join(project, 'src', 'report_job.py'));
    writeFileSync(join(project, 'requirements.txt'), 'redis\n');
  });

  test('reports the unsafe lock and exits 1', async () => {
    const { code, stdout } = await run(npx, ['--offline', 'redis-locksmith', 'lint'], project);
    assert.equal(code, 1, stdout);
    assert.match(stdout, /^src\/report_job\.py$/m);
    for (const rule of ['LOCK001', 'LOCK006', 'LOCK003']) assert.match(stdout, new RegExp(`\\b${rule}$`, 'm'));
    assert.match(stdout, /3 problems \(0 errors, 3 warnings\)/);
  });

  test('--fix makes the acquire one SET with its lease, gives it a token the release compares through the helper it creates, and the project then passes', async () => {
    const fixed = await run(npx, ['--offline', 'redis-locksmith', 'lint', '--fix'], project);
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    assert.match(fixed.stdout, /Fixed src\/report_job\.py: LOCK001, LOCK006, LOCK003, created src\/locksmith\.py/);
    const job = readFileSync(join(project, 'src', 'report_job.py'), 'utf8');
    assert.match(job, /^from locksmith import release_lock$/m);
    assert.match(
      job,
      /^ {4}if r\.set\(key, token, nx=True, ex=30\):\n {8}build\(report_id\)\n {8}release_lock\(r, key, token\)$/m,
    );
    assert.match(readFileSync(join(project, 'src', 'locksmith.py'), 'utf8'), /^# @locksmith-helper redis-py$/m);
    const compiled = await run('python3', ['-m', 'py_compile', 'src/report_job.py', 'src/locksmith.py'], project);
    assert.equal(compiled.code, 0, compiled.stderr);
    const again = await run(npx, ['--offline', 'redis-locksmith', 'lint'], project);
    assert.equal(again.code, 0, again.stdout);
  });
});

test('the installed command reports a fixture project exactly as the repository build does', async () => {
  const shop = copyFixture('shop');
  const bin = join(project, 'node_modules', '.bin', 'redis-locksmith');
  const installed = await run(bin, ['lint', '--format', 'json'], shop);
  const built = await runCli(['lint', '--format', 'json'], shop);
  assert.equal(installed.code, 1);
  assert.deepEqual([installed.code, JSON.parse(installed.stdout)], [built.code, JSON.parse(built.stdout)]);
  const sarif = await run(bin, ['lint', '--format', 'sarif'], shop);
  const rules = (
    JSON.parse(sarif.stdout) as { runs: Array<{ tool: { driver: { rules: Array<{ help: { text: string } }> } } }> }
  ).runs[0].tool.driver.rules;
  for (const rule of rules) assert.match(rule.help.text, /\nFix: /, 'the help comes from the packaged docs/rules.md');
});

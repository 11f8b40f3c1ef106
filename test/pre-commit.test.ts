// This repository as a pre-commit hook repository, run by the real pre-commit framework (from
// PyPI, harness/preCommit.ts) in a scratch git repository: `pre-commit install`, then
// `git commit`. The hook's npx fetches the npm package from a loopback registry that serves the
// tarball packed from these sources, as it would fetch the published one.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LINTED_FILE_EXTENSIONS } from '../server/src/languages';
import { ensureNpmPackage } from '../harness/npmPackage';
import { serveNpmPackage, type Registry } from '../harness/npmRegistry';
import { ensurePreCommit } from '../harness/preCommit';

const ROOT = join(__dirname, '..');
const HOOKS = readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8');

let dir: string;
let scratch: string;
let registry: Registry;
let env: NodeJS.ProcessEnv;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' });
}

/**
 * `git commit` in the scratch repository, which runs the installed hook: status and output. Not
 * synchronous: the registry the hook's npx asks answers from this process.
 */
function commit(message: string): Promise<{ status: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile('git', ['commit', '-q', '-m', message], { cwd: scratch, env }, (error, stdout, stderr) => {
      const status = error ? (error as { code?: unknown }).code : 0;
      if (typeof status !== 'number') reject(error ?? new Error('no exit status'));
      else resolve({ status, output: stdout + stderr });
    });
  });
}

before(async () => {
  const [tarball, preCommit] = await Promise.all([ensureNpmPackage(), ensurePreCommit()]);
  registry = await serveNpmPackage(tarball);
  dir = mkdtempSync(join(tmpdir(), 'locksmith-pre-commit-'));
  env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(npm_config_|GIT_|PRE_COMMIT)/i.test(name)) delete env[name];
  Object.assign(env, {
    npm_config_registry: registry.url,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_update_notifier: 'false',
    PRE_COMMIT_HOME: join(dir, 'pre-commit-home'),
    GIT_AUTHOR_NAME: 'Locksmith Test',
    GIT_AUTHOR_EMAIL: 'test@localhost',
    GIT_COMMITTER_NAME: 'Locksmith Test',
    GIT_COMMITTER_EMAIL: 'test@localhost',
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: dir,
  });
  // The hook repository as pre-commit clones it: this repository's hooks file, committed.
  const hooks = join(dir, 'hooks');
  mkdirSync(hooks);
  git(hooks, 'init', '-q');
  copyFileSync(join(ROOT, '.pre-commit-hooks.yaml'), join(hooks, '.pre-commit-hooks.yaml'));
  git(hooks, 'add', '.');
  git(hooks, 'commit', '-q', '-m', 'hooks');
  const rev = git(hooks, 'rev-parse', 'HEAD').trim();
  scratch = join(dir, 'scratch');
  mkdirSync(join(scratch, 'src'), { recursive: true });
  git(scratch, 'init', '-q');
  writeFileSync(
    join(scratch, '.pre-commit-config.yaml'),
    `repos:\n  - repo: ${hooks}\n    rev: ${rev}\n    hooks:\n      - id: redis-locksmith\n`,
  );
  execFileSync(preCommit, ['install'], { cwd: scratch, env, encoding: 'utf8' });
});

after(async () => {
  await registry?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the hook runs the npm package of this version with npx, on the linted files, in one run', () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.match(HOOKS, new RegExp(`^  entry: npx --yes redis-locksmith@${version.replace(/\./g, '\\.')} lint$`, 'm'));
  assert.match(HOOKS, /^ {2}language: system$/m);
  assert.match(HOOKS, /^ {2}require_serial: true$/m);
  const files = new RegExp(/^ {2}files: (.+)$/m.exec(HOOKS)![1]);
  for (const extension of LINTED_FILE_EXTENSIONS) assert.ok(files.test(`src/job.${extension}`), extension);
  for (const other of ['README.md', 'src/main.rs', 'package.json', 'src/job.py.orig', 'scripts/run.luac'])
    assert.ok(!files.test(other), other);
});

test('a commit with unsafe lock code stops with the report, and nothing is committed', async () => {
  copyFileSync(join(__dirname, 'fixtures', 'report_job.py'), join(scratch, 'src', 'report_job.py'));
  git(scratch, 'add', '.');
  const { status, output } = await commit('an unsafe lock');
  assert.equal(status, 1, output);
  assert.match(output, /^Redis Locksmith\.+Failed$/m);
  assert.match(output, /^src\/report_job\.py$/m);
  for (const rule of ['LOCK001', 'LOCK006', 'LOCK003']) assert.match(output, new RegExp(`\\b${rule}$`, 'm'));
  assert.equal(spawnSync('git', ['rev-parse', '--verify', '-q', 'HEAD'], { cwd: scratch, env }).status, 1);
  // npx fetched the package as it would from the public registry.
  assert.ok(registry.requests.some((request) => /^GET \/redis-locksmith\/-\/redis-locksmith-.+\.tgz$/.test(request)));
});

test('a commit of safe lock code passes; one without linted files skips the hook', async () => {
  writeFileSync(
    join(scratch, 'src', 'report_job.py'),
    [
      'import redis',
      'from locksmith import lock',
      '',
      'r = redis.Redis()',
      '',
      '',
      'def rebuild_report(report_id):',
      '    with lock(r, f"lock:report:{report_id}", ttl_ms=30000):',
      '        build(report_id)',
      '',
    ].join('\n'),
  );
  git(scratch, 'add', '.');
  const safe = await commit('a safe lock');
  assert.equal(safe.status, 0, safe.output);
  assert.match(safe.output, /^Redis Locksmith\.+Passed$/m);
  writeFileSync(join(scratch, 'README.md'), '# scratch\n');
  git(scratch, 'add', 'README.md');
  const other = await commit('no code');
  assert.equal(other.status, 0, other.output);
  assert.match(other.output, /^Redis Locksmith\.+\(no files to check\)Skipped$/m);
});

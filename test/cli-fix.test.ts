// `lint --fix` and `--fix-dry-run` as child processes on copies of the shop project: the unsafe
// locks of two files become calls of one lock helper created for both, the files check clean
// afterwards and the report is what remains; the dry run changes nothing and prints a diff that
// `git apply` turns into exactly what --fix writes; an outdated helper is updated (LOCK008); busy
// retry loops become the helper's waiting acquire (LOCK010); Windows line breaks and byte order
// marks are kept.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { unifiedDiff } from '../server/src/cli/diff';
import { writeFixes } from '../server/src/cli/fix';
import { checkHelperFile, renderHelper } from '../snippets/helper';
import { copyFixture, ensureCli, removeCopies, runCli } from '../harness/cli';

before(ensureCli);
after(removeCopies);

const pack = loadPack();

/** Every file of a folder with its text, paths relative to it. */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') visit(path);
      } else files.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  visit(root);
  return files;
}

const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');

/** A copy of the shop project, its files before, and the run of `lint` with `args` on it. */
function fixShop(args: string[]) {
  const run = { shop: '', original: new Map<string, string>(), fixed: { code: 0, stdout: '', stderr: '' } };
  before(async () => {
    run.shop = copyFixture('shop');
    run.original = snapshot(run.shop);
    run.fixed = await runCli(['lint', ...args], run.shop);
  });
  return run;
}

describe('--fix on the shop project: fixes only', () => {
  const run = fixShop(['--fix']);

  test('reports what it fixed and what remains, and exits 1 for what remains', () => {
    const lines = run.fixed.stdout.split('\n');
    assert.deepEqual(lines.slice(0, 3), [
      '',
      'Fixed src/api/orders.ts: LOCK004, created src/lib/locksmith.ts',
      'Fixed src/jobs/report.ts: LOCK001, LOCK006, LOCK003',
    ]);
    const remaining = lines.filter((line) => /^\s+\d+:\d+/.test(line)).map((line) => line.trim().split(/\s+/).at(-1));
    assert.deepEqual(remaining, ['LOCK007', 'LOCK002', 'LOCK009'], 'a lease where there was none is a suggestion');
    assert.match(
      run.fixed.stdout,
      /1 problem with suggestions that change behaviour: `--fix --fix-type suggestion`\.\n$/,
    );
    assert.equal(run.fixed.code, 1);
  });

  test("minimal edits in ioredis's own API and the helper's release; nothing else changes", () => {
    const after = snapshot(run.shop);
    const changed = (path: string) =>
      unifiedDiff(path, run.original.get(path), after.get(path)!)
        .split('\n')
        .filter((line) => /^[-+][^-+]/.test(line));
    assert.deepEqual(changed('src/jobs/report.ts'), [
      "+import { randomUUID } from 'node:crypto';",
      "+import { releaseLock } from '../lib/locksmith';",
      "-  const acquired = await redis.setnx('lock:nightly-report', 'locked');",
      '+  const token = randomUUID();',
      "+  const acquired = await redis.set('lock:nightly-report', token, 'EX', 600, 'NX');",
      "-  await redis.expire('lock:nightly-report', 600);",
      "-    await redis.del('lock:nightly-report');",
      "+    await releaseLock(redis, 'lock:nightly-report', token);",
    ]);
    assert.deepEqual(changed('src/api/orders.ts'), [
      "+import { releaseLock } from '../lib/locksmith';",
      '-    if ((await redis.get(key)) === token) await redis.del(key);',
      '+    await releaseLock(redis, key, token);',
    ]);
    const created = [...after.keys()].filter((path) => !run.original.has(path));
    assert.deepEqual(created, ['src/lib/locksmith.ts'], 'one lock helper for both files');
    const helper = checkHelperFile(after.get('src/lib/locksmith.ts')!, pack);
    assert.equal(helper?.header.client, 'ioredis');
    assert.equal(helper?.outdated, false);
    for (const path of run.original.keys())
      if (!/report\.ts|orders\.ts/.test(path))
        assert.equal(after.get(path), run.original.get(path), `${path} unchanged`);
  });

  test('the fixed files and the helper check clean but for the suggestion', async () => {
    const again = await runCli(['lint', '--format', 'json', 'src/jobs', 'src/api/orders.ts', 'src/lib'], run.shop);
    const report = JSON.parse(again.stdout) as { files: { path: string; problems: { rule: string }[] }[] };
    assert.deepEqual(
      report.files.flatMap((file) => file.problems.map((problem) => `${file.path} ${problem.rule}`)),
      ['src/api/orders.ts LOCK002'],
    );
  });

  test('a second --fix has nothing left to fix; each problem left says why it has no fix', async () => {
    const second = await runCli(['lint', '--fix', '--format', 'json'], run.shop);
    const report = JSON.parse(second.stdout) as {
      fixes: unknown[];
      files: { problems: { fixable: boolean; noFix?: { reason: string; message: string }; suggestions: string[] }[] }[];
    };
    assert.deepEqual(report.fixes, []);
    for (const problem of report.files.flatMap((file) => file.problems)) {
      assert.equal(problem.fixable, false);
      assert.ok(problem.noFix?.reason && problem.noFix.message, JSON.stringify(problem));
    }
  });
});

describe('--fix --fix-type fix,suggestion on the shop project', () => {
  const run = fixShop(['--fix', '--fix-type', 'fix,suggestion']);

  test('the suggestion too: a 30 s lease where the lock had none', () => {
    const lines = run.fixed.stdout.split('\n');
    assert.deepEqual(lines.slice(0, 3), [
      '',
      'Fixed src/api/orders.ts: LOCK002, LOCK004, created src/lib/locksmith.ts',
      'Fixed src/jobs/report.ts: LOCK001, LOCK006, LOCK003',
    ]);
    assert.match(read(run.shop, 'src/api/orders.ts'), /await redis\.set\(key, token, 'EX', 30, 'NX'\)\) !== 'OK'/);
    const remaining = lines.filter((line) => /^\s+\d+:\d+/.test(line)).map((line) => line.trim().split(/\s+/).at(-1));
    assert.deepEqual(remaining, ['LOCK007', 'LOCK009'], 'Lua and the renewal have no fix');
    assert.equal(run.fixed.code, 1);
  });
});

describe('--fix-dry-run', () => {
  test('changes nothing, reports as lint does, and its diff is exactly what --fix writes', async () => {
    const dry = copyFixture('shop');
    const untouched = snapshot(dry);
    const linted = await runCli(['lint'], dry);
    const { code, stdout } = await runCli(['lint', '--fix-dry-run', '--fix-type', 'fix,suggestion'], dry);
    assert.equal(code, 1);
    assert.deepEqual(snapshot(dry), untouched, 'no file written or created');
    const diff = stdout.slice(0, stdout.indexOf('\nWould fix'));
    assert.match(
      diff,
      /^diff --git a\/src\/lib\/locksmith\.ts b\/src\/lib\/locksmith\.ts\nnew file mode 100644\n--- \/dev\/null\n/m,
    );
    assert.match(diff, /^- {2}const acquired = await redis\.setnx\('lock:nightly-report', 'locked'\);$/m);
    assert.match(diff, /^\+import \{ releaseLock \} from '\.\.\/lib\/locksmith';$/m);
    assert.match(stdout, /^Would fix src\/jobs\/report\.ts: LOCK001, LOCK006, LOCK003$/m);
    assert.equal(
      stdout.slice(stdout.indexOf('\n\n', stdout.indexOf('Would fix')) + 1),
      linted.stdout,
      'the report is what lint reports: nothing was written',
    );

    const real = copyFixture('shop');
    await runCli(['lint', '--fix', '--fix-type', 'fix,suggestion'], real);
    execFileSync('git', ['apply', '-'], { cwd: dry, input: diff });
    assert.deepEqual(snapshot(dry), snapshot(real));
  });

  test('exits as lint does: 1 while the files still have the problems', async () => {
    const dry = copyFixture('shop');
    const { code, stdout } = await runCli(['lint', '--fix-dry-run', 'src/jobs'], dry);
    assert.match(
      stdout,
      /^Would fix src\/jobs\/report\.ts: LOCK001, LOCK006, LOCK003, created src\/lib\/locksmith\.ts$/m,
    );
    assert.match(stdout, /✖ 3 problems/);
    assert.equal(code, 1);
  });

  test('with json, the report goes to --output-file and the diff to stdout', async () => {
    const dry = copyFixture('shop');
    const { code, stdout } = await runCli(
      ['lint', '--fix-dry-run', '--fix-type', 'fix,suggestion', '--format', 'json', '-o', 'report.json'],
      dry,
    );
    assert.equal(code, 1);
    assert.match(stdout, /^diff --git /);
    const report = JSON.parse(read(dry, 'report.json')) as { fixes: { path: string; applied: boolean }[] };
    assert.deepEqual(
      report.fixes.map((fix) => [fix.path, fix.applied]),
      [
        ['src/api/orders.ts', false],
        ['src/jobs/report.ts', false],
      ],
    );
  });
});

test('with sarif, what --fix changed goes to stderr and the log holds what remains', async () => {
  const shop = copyFixture('shop');
  const { code, stdout, stderr } = await runCli(
    ['lint', '--fix', '--fix-type', 'fix,suggestion', '--format', 'sarif'],
    shop,
  );
  assert.equal(code, 1);
  assert.equal(
    stderr,
    'Fixed src/api/orders.ts: LOCK002, LOCK004, created src/lib/locksmith.ts\nFixed src/jobs/report.ts: LOCK001, LOCK006, LOCK003\n',
  );
  const results = (JSON.parse(stdout) as { runs: { results: { ruleId: string }[] }[] }).runs[0].results;
  assert.deepEqual(
    results.map((result) => result.ruleId),
    ['LOCK007', 'LOCK009'],
  );
});

test('LOCK008: --fix updates an outdated helper from the installed pack', async () => {
  const shop = copyFixture('shop');
  const current = renderHelper('ioredis', pack, { flavor: 'ts' }).text;
  const outdated = current.replace(pack.release.sha1, '0'.repeat(40));
  writeFileSync(join(shop, 'src', 'lock.ts'), outdated);
  const flagged = await runCli(['lint', '--format', 'json', 'src/lock.ts'], shop);
  assert.match(flagged.stdout, /"rule": "LOCK008"/);
  const { stdout } = await runCli(['lint', '--fix', 'src/lock.ts'], shop);
  assert.equal(stdout, '\nFixed src/lock.ts: LOCK008\n\n✔ No problems (1 file checked, 1 analysed)\n');
  assert.equal(read(shop, 'src/lock.ts'), current);
});

test('LOCK010: --fix turns busy retry loops into calls of the helper, and the files then check clean', async () => {
  const shop = copyFixture('shop');
  const fixture = (path: string) => readFileSync(join(__dirname, 'fixtures', 'lint', path), 'utf8');
  writeFileSync(
    join(shop, 'src', 'jobs', 'sitemap.ts'),
    fixture('typescript/LOCK010-positive-fix-wait-then-release.ts'),
  );
  mkdirSync(join(shop, 'tools'));
  writeFileSync(join(shop, 'tools', 'index_job.py'), fixture('python/LOCK010-positive-fix-wait-then-release.py'));
  const files = ['src/jobs/sitemap.ts', 'tools/index_job.py'];
  const flagged = await runCli(['lint', '--format', 'json', ...files], shop);
  assert.equal((flagged.stdout.match(/"rule": "LOCK010"/g) ?? []).length, 2);
  const { code, stdout } = await runCli(['lint', '--fix', ...files], shop);
  assert.equal(
    stdout,
    [
      '',
      'Fixed src/jobs/sitemap.ts: LOCK010, LOCK004, created src/lib/locksmith.ts',
      'Fixed tools/index_job.py: LOCK010, LOCK003, created tools/locksmith.py',
      '',
      '✔ No problems (2 files checked, 2 analysed)',
      '',
    ].join('\n'),
  );
  assert.equal(code, 0);
  assert.match(
    read(shop, 'src/jobs/sitemap.ts'),
    /^ {2}await withLock\(redis, `lock:sitemap:\$\{site\}`, \{ ttlMs: 20000 \}/m,
  );
  assert.match(read(shop, 'tools/index_job.py'), /^ {4}with lock\(r, "lock:search-index", ttl_ms=60000\):$/m);
  for (const file of files) assert.doesNotMatch(read(shop, file), /while|sleep\(0\.002\)|sleep\(1\)/, file);
  const again = await runCli(['lint', ...files, 'src/lib', 'tools'], shop);
  assert.equal(again.code, 0, again.stdout);
});

test('Windows line breaks and a byte order mark are kept', async () => {
  const shop = copyFixture('shop');
  const path = join(shop, 'src', 'jobs', 'report.ts');
  writeFileSync(path, `\uFEFF${readFileSync(path, 'utf8').replace(/\n/g, '\r\n')}`);
  const { code } = await runCli(['lint', '--fix', '--fix-type', 'fix,suggestion', 'src/jobs'], shop);
  assert.equal(code, 0);
  const text = readFileSync(path, 'utf8');
  assert.ok(text.startsWith('\uFEFFimport Redis'));
  assert.match(text, /releaseLock/);
  assert.doesNotMatch(text.replace(/\r\n/g, ''), /\n/, 'every line break is CRLF');
});

describe('bytes outside the fix are kept', () => {
  const JOB = [
    '# Rapport nocturne: caf\xe9, \xff\xfe (Latin-1 bytes, not UTF-8)',
    'import redis',
    '',
    'r = redis.Redis()',
    '',
    '',
    'def nightly(token):',
    '    if r.setnx("lock:nightly", token):  # r\xe9serv\xe9',
    '        r.expire("lock:nightly", 60)',
    '        return True',
    '    return False',
    '',
  ].join('\r\n');

  test('a file that is not UTF-8 is fixed byte for byte: only the fixed lines differ', async () => {
    const project = copyFixture('shop');
    const path = join(project, 'jobs.py');
    const original = Buffer.from(JOB, 'latin1');
    writeFileSync(path, original);
    const { code, stdout, stderr } = await runCli(['lint', '--fix', 'jobs.py'], project);
    assert.equal(stderr, '');
    assert.match(stdout, /^Fixed jobs\.py: LOCK001$/m);
    assert.equal(code, 0);
    const expected = Buffer.from(
      JOB.replace('r.setnx("lock:nightly", token)', 'r.set("lock:nightly", token, nx=True, ex=60)').replace(
        '        r.expire("lock:nightly", 60)\r\n',
        '',
      ),
      'latin1',
    );
    assert.ok(readFileSync(path).equals(expected), readFileSync(path).toString('latin1'));
  });

  test('a fix whose text the file cannot hold is not written: an error naming why, nothing changed', () => {
    const project = copyFixture('shop');
    const path = join(project, 'jobs.py');
    writeFileSync(path, Buffer.from(JOB, 'latin1'));
    const before = { text: JOB, bom: false, encoding: 'latin1' as const };
    const unwritten = writeFixes(new Map([[path, { path, before, after: `# \u65e5\n${JOB}` }]]));
    assert.equal(unwritten.length, 1);
    assert.match(unwritten[0].message, /not UTF-8 \(read as Latin-1, byte for byte\).*nothing was written/);
    assert.ok(readFileSync(path).equals(Buffer.from(JOB, 'latin1')));
  });

  test('a file changed on disk since it was read is not written', () => {
    const project = copyFixture('shop');
    const path = join(project, 'jobs.py');
    writeFileSync(path, 'changed meanwhile\n');
    const before = { text: JOB, bom: false, encoding: 'utf8' as const };
    const unwritten = writeFixes(new Map([[path, { path, before, after: 'fixed\n' }]]));
    assert.match(unwritten[0].message, /changed while it was being fixed/);
    assert.equal(read(project, 'jobs.py'), 'changed meanwhile\n');
  });
});

describe('unified diffs', () => {
  const cases: [string, string | undefined, string][] = [
    ['one change in the middle', 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n', 'a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n'],
    [
      'changes far apart: two hunks',
      'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\n',
      'L1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nL12\n',
    ],
    ['a last line without a line break', 'a\nb', 'a\nb\nc'],
    ['lines removed and added at the ends', 'x\na\nb\n', 'a\nb\ny\n'],
    ['a new file', undefined, 'new\nfile\n'],
  ];
  for (const [name, old, now] of cases) {
    test(`${name}: git apply gives the new text`, () => {
      const shop = copyFixture('shop');
      if (old !== undefined) writeFileSync(join(shop, 'f.txt'), old);
      execFileSync('git', ['apply', '-'], { cwd: shop, input: unifiedDiff('f.txt', old, now) });
      assert.equal(read(shop, 'f.txt'), now);
    });
  }

  test('two changes far apart make two hunks with three lines of context', () => {
    const diff = unifiedDiff('f.txt', cases[1][1], cases[1][2]);
    assert.deepEqual(diff.match(/^@@ .* @@$/gm), ['@@ -1,4 +1,4 @@', '@@ -9,4 +9,4 @@']);
  });
});

// Bad input to the lint CLI, as a child process: each mistake gets one line naming the cause and
// the fix; a usage error (unknown command, option, rule, severity or format) stops before
// anything is read (exit 2); a missing path or a broken settings file fails the run (exit 2)
// after the other files are checked; a skipped file (binary, over 10 MB, of no linted language)
// or one that does not parse is a warning and changes nothing else. Progress only on a terminal.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI, copyFixture, ensureCli, removeCopies, runCli, writeSettings } from '../harness/cli';

before(ensureCli);
after(removeCopies);

const REPORT_OF_JOBS = /src\/jobs\/report\.ts\n[\s\S]*✖ 3 problems \(0 errors, 3 warnings\)/;

describe('usage errors: exit 2, one line on stderr, nothing checked', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'an unknown rule',
      ['lint', '--rule', 'LOCK011=off'],
      /--rule LOCK011=off: unknown rule LOCK011 \(the rules are LOCK001 to LOCK010\)/,
    ],
    [
      'an unknown severity',
      ['lint', '--rule', 'LOCK006=silent'],
      /unknown severity silent \(use error, warning, information, hint or off\)/,
    ],
    [
      'a rule without a severity',
      ['lint', '--rule', 'LOCK006'],
      /--rule LOCK006: write RULE=severity, e\.g\. --rule LOCK006=off/,
    ],
    ['an unknown format', ['lint', '--format', 'xml'], /--format xml: unknown format \(use stylish, json or sarif\)/],
    ['a format without its name', ['lint', '--format'], /option --format needs a value/],
    ['an unknown option', ['lint', '--fixx'], /unknown option --fixx \(redis-locksmith lint --help lists them\)/],
    ['an unknown command', ['check', '.'], /unknown command check: the command is lint/],
    [
      'a bad --max-warnings',
      ['lint', '--max-warnings', 'ten'],
      /--max-warnings ten: give a whole number of warnings, or -1 for no limit/,
    ],
    ['no analysis threads', ['lint', '--jobs', '0'], /--jobs 0: give a number of threads, 1 or more/],
    ['--fix with --fix-dry-run', ['lint', '--fix', '--fix-dry-run'], /--fix and --fix-dry-run together: choose one/],
    [
      'an unknown --fix-type',
      ['lint', '--fix', '--fix-type', 'layout'],
      /--fix-type layout: unknown type \(use fix or suggestion, or both: fix,suggestion\)/,
    ],
    ['--fix-type without --fix', ['lint', '--fix-type', 'suggestion'], /give --fix or --fix-dry-run with it/],
    [
      'a dry run whose json would mix with the diff',
      ['lint', '--fix-dry-run', '--format', 'json'],
      /send the json report to a file with --output-file/,
    ],
  ];
  for (const [name, args, message] of cases) {
    test(name, async () => {
      const shop = copyFixture('shop');
      const { code, stdout, stderr } = await runCli(args, shop);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, message);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
    });
  }

  test('a report file in a folder that does not exist', async () => {
    const shop = copyFixture('shop');
    const { code, stderr } = await runCli(['lint', '-o', 'missing/report.txt', 'src/jobs'], shop);
    assert.equal(code, 2);
    assert.match(stderr, /cannot write the report to .*missing\/report\.txt \(ENOENT\): check that its folder exists/);
  });

  test('--help and --version', async () => {
    const help = await runCli(['lint', '--help'], process.cwd());
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: redis-locksmith lint \[options\] \[paths\.\.\.\]/);
    assert.match(help.stdout, /Exit codes: 0 /);
    const version = await runCli(['--version'], process.cwd());
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});

describe('a missing path', () => {
  test('is an error naming the path; the other paths are still checked; exit 2', async () => {
    const shop = copyFixture('shop');
    const { code, stdout, stderr } = await runCli(['lint', 'src/jobs', 'src/nope', 'scripts/gone.lua'], shop);
    assert.match(stdout, REPORT_OF_JOBS);
    assert.equal(
      stderr,
      `error: src/nope: no such file or folder: check the path (relative to ${shop})\n` +
        `error: scripts/gone.lua: no such file or folder: check the path (relative to ${shop})\n`,
    );
    assert.equal(code, 2);
  });

  test('alone: no "No problems" next to the error, and exit 2', async () => {
    const shop = copyFixture('shop');
    const { code, stdout, stderr } = await runCli(['lint', 'nope/'], shop);
    assert.equal(stdout, '\n✖ 1 error in the run (on stderr); 0 files checked, 0 analysed\n');
    assert.match(stderr, /^error: nope: no such file or folder/);
    assert.equal(code, 2);
  });

  test('is in the SARIF log as a failed invocation', async () => {
    const shop = copyFixture('shop');
    const { stdout } = await runCli(['lint', '--format', 'sarif', 'src/jobs', 'src/nope'], shop);
    const invocation = (
      JSON.parse(stdout) as {
        runs: { invocations: { executionSuccessful: boolean; toolExecutionNotifications: { level: string }[] }[] }[];
      }
    ).runs[0].invocations[0];
    assert.equal(invocation.executionSuccessful, false);
    assert.deepEqual(
      invocation.toolExecutionNotifications.map((notification) => notification.level),
      ['error'],
    );
  });
});

describe('files that are skipped, with a warning, while the others are checked', () => {
  test('binary, over 10 MB, or named on the command line but of no linted language', async () => {
    const shop = copyFixture('shop');
    writeFileSync(join(shop, 'src', 'jobs', 'blob.ts'), Buffer.from([0x72, 0x65, 0x64, 0x69, 0x73, 0, 1, 2, 3, 0]));
    writeFileSync(join(shop, 'src', 'jobs', 'bundle.js'), `// redis\n${'x'.repeat(10 * 1024 * 1024 + 10)}\n`);
    writeFileSync(join(shop, 'notes.md'), 'redis.setnx is unsafe\n');
    const { code, stdout, stderr } = await runCli(['lint', 'src/jobs', 'notes.md'], shop);
    assert.match(stdout, REPORT_OF_JOBS);
    assert.equal(
      stderr,
      [
        'warning: notes.md: skipped: not a file of a linted language (.js .mjs .cjs .jsx .ts .mts .cts .tsx .py .java .go .php .cs .rb .lua)',
        'warning: src/jobs/blob.ts: skipped: binary content (a NUL byte in its first 8000 bytes), not source text; list it in .gitignore to silence this',
        'warning: src/jobs/bundle.js: skipped: 10.0 MB, over the 10 MB limit for a source file (generated or bundled code?); list it in .gitignore to silence this',
        '',
      ].join('\n'),
    );
    assert.equal(code, 1, 'the findings of report.ts decide the exit code, not the skipped files');
  });

  test('a skipped file alone does not fail the run, and the json report lists it', async () => {
    const shop = copyFixture('shop');
    writeFileSync(join(shop, 'src', 'blob.py'), Buffer.from([0, 0, 0]));
    const { code, stdout } = await runCli(['lint', '--format', 'json', 'src/blob.py', 'src/cache.ts'], shop);
    assert.equal(code, 0);
    const report = JSON.parse(stdout) as { notices: { path: string; message: string }[] };
    assert.deepEqual(
      report.notices.map((notice) => notice.path),
      ['src/blob.py'],
    );
  });
});

test('a file that does not parse is checked as far as it parses, with a warning at the syntax error', async () => {
  const shop = copyFixture('shop');
  mkdirSync(join(shop, 'src', 'broken'));
  writeFileSync(
    join(shop, 'src', 'broken', 'half.py'),
    [
      'import redis',
      'r = redis.Redis()',
      '',
      'def take_lock(key):',
      '    r.set(key, "1", nx=True)',
      '',
      'def oops(:',
      '    return 1',
      '',
    ].join('\n'),
  );
  const { code, stdout, stderr } = await runCli(['lint', 'src/broken', 'src/jobs'], shop);
  assert.match(stdout, /src\/broken\/half\.py\n {2}5:7 {2}warning {2}Lock key is taken with NX but no expiry/);
  assert.match(stdout, /src\/jobs\/report\.ts/, 'the next file is checked too');
  assert.match(
    stderr,
    /^warning: src\/broken\/half\.py:7:\d+: a syntax error: the file is checked as far as it parses, so findings after this point may be missing; fix the syntax \(or the file's extension, if it is another language\)\n$/,
  );
  assert.equal(code, 1);
});

describe('a broken .vscode/settings.json', () => {
  test('not JSON: an error with its line and column; the files are checked with the defaults; exit 2', async () => {
    const shop = copyFixture('shop');
    writeSettings(shop, '{\n  "redisLocksmith.lint.rules": { "LOCK006": "off" }\n  "x": 1\n}\n');
    const { code, stdout, stderr } = await runCli(['lint', 'src/jobs'], shop);
    assert.match(stdout, REPORT_OF_JOBS, 'LOCK006 still reported: the broken file turned nothing off');
    assert.equal(
      stderr,
      'error: .vscode/settings.json:3:3: not valid JSON (CommaExpected): fix the file, or VS Code ignores it too\n',
    );
    assert.equal(code, 2);
  });

  test('an unknown rule, a severity that is not one, an unknown setting: each named where it is', async () => {
    const shop = copyFixture('shop');
    writeSettings(
      shop,
      '{\n  "redisLocksmith.lint.rules": { "LOCK011": "off", "LOCK006": "of", "LOCK003": "error" },\n  "redisLocksmith.lint.rule": {}\n}\n',
    );
    const { code, stdout, stderr } = await runCli(['lint', '--format', 'json', 'src/jobs'], shop);
    assert.deepEqual(stderr.trim().split('\n'), [
      'error: .vscode/settings.json:2:34: unknown rule LOCK011 (the rules are LOCK001 to LOCK010)',
      'error: .vscode/settings.json:2:63: LOCK006: "of" is not a severity (error, warning, information, hint, off)',
      'error: .vscode/settings.json:3:3: unknown setting redisLocksmith.lint.rule (the lint settings are enable, rules, languages)',
    ]);
    // The valid entry still applies.
    assert.match(stdout, /"rule": "LOCK003",\n\s+"severity": "error"/);
    assert.equal(code, 2);
  });
});

const ESC = String.fromCharCode(27);

test('progress on stderr when it is a terminal (under script(1)), none otherwise', async () => {
  const shop = copyFixture('shop');
  const onTerminal = spawnSync('script', ['-qec', `"${process.execPath}" "${CLI}" lint src/jobs`, '/dev/null'], {
    cwd: shop,
    encoding: 'utf8',
    env: { ...process.env, TERM: 'xterm' },
  });
  assert.equal(onTerminal.status, 1, onTerminal.stderr);
  assert.ok(
    /\r(.)\[Kredis-locksmith: (finding files|checking)/.exec(onTerminal.stdout)?.[1] === ESC,
    'a progress line',
  );
  assert.ok(onTerminal.stdout.includes(`${ESC}[33mwarning${ESC}[39m`), 'colours on a terminal');
  const piped = await runCli(['lint', 'src/jobs'], shop);
  assert.equal(piped.stderr, '');
  assert.ok(!piped.stdout.includes(ESC), 'no colours in a pipe');
});

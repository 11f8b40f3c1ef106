// The lint CLI's reports, run as a child process on a copy of a small project
// (test/fixtures/cli/shop): the stylish report exactly, the JSON report's shape, the SARIF log
// validated against the published SARIF 2.1.0 schema, exit codes and --max-warnings, --rule and
// .vscode/settings.json (JSONC), .gitignore, and `npx redis-locksmith` from the checkout.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import Ajv from 'ajv-draft-04';
import { RULE_CODES, RULE_TITLES } from '../server/src/catalogue';
import { githubAnchor } from '../server/src/cli/about';
import { copyFixture, ensureCli, removeCopies, runCli, writeSettings } from '../harness/cli';
import { ROOT } from '../harness/vsix';

before(ensureCli);
after(removeCopies);

const STYLISH = [
  '',
  'scripts/unlock.lua',
  '  3:4  warning  GET uses variable key, which does not hold a KEYS entry, not a key from KEYS: Redis Cluster routes a script by its declared keys, so this key may live on another node (CROSSSLOT errors), and scripts that hide keys break replication tooling. Pass the key in KEYS. This script has 1 more call like it (related information)  LOCK007',
  '',
  'src/api/orders.ts',
  '   7:20  warning  Lock key is taken with NX but no expiry: if the holder crashes or hangs, the lock stays forever. Set the lease in the same command: SET key token NX PX ttl                                                LOCK002',
  "  11:55  warning  GET, compare, then DEL of key is not atomic: the lease can expire between the GET and the DEL, and the DEL then removes the next holder's lock. Compare and delete in one Lua script (the pack's release)  LOCK004",
  '',
  'src/jobs/report.ts',
  "   6:32  warning  SETNX and EXPIRE on 'lock:nightly-report' are two commands: if the process dies between them, the lock never expires and nobody can take it again. Take the lock and its lease in one command: SET key token NX PX ttl  LOCK001",
  "   6:32  warning  Lock 'lock:nightly-report' holds the constant 'locked': the value does not say who owns the lock, so no release can check it is still yours. Store a unique token per holder (host:pid:random)                          LOCK006",
  "  12:17  warning  DEL 'lock:nightly-report' releases the lock without checking who holds it: if this holder's lease expired, it deletes the next holder's lock. Release with compare-and-delete (the pack's release script)               LOCK003",
  '',
  'src/legacy/kept.gen.ts',
  '  8:17  warning  The renewal of lockKey ignores its reply: when the lease already expired (or another holder took the lock), the renewal fails and this holder keeps working as if it still held the lock. Check the reply and stop the work when it says the lock is gone  LOCK009',
  '',
  '✖ 7 problems (0 errors, 7 warnings)',
  '  4 problems fixable with the `--fix` option.',
  '  1 problem with suggestions that change behaviour: `--fix --fix-type suggestion`.',
  '',
].join('\n');

/** `path:line:rule` of each problem in a JSON report. */
function problemsOf(stdout: string): string[] {
  const report = JSON.parse(stdout) as {
    files: { path: string; problems: { line: number; rule: string; severity: string }[] }[];
  };
  return report.files.flatMap((file) =>
    file.problems.map((problem) => `${file.path}:${problem.line}:${problem.rule}:${problem.severity}`),
  );
}

describe('reports of the shop project', () => {
  let shop: string;
  before(() => {
    shop = copyFixture('shop');
  });

  test('stylish (the default): files, line:column, severity, message, rule, aligned; then the summary', async () => {
    const { code, stdout, stderr } = await runCli(['lint'], shop);
    assert.equal(stdout, STYLISH);
    assert.equal(stderr, '', 'nothing skipped, and no progress line when stderr is not a terminal');
    assert.equal(code, 1);
  });

  test('json: every file with problems, each problem located, fixable or not, with its help link; the counts', async () => {
    const { code, stdout } = await runCli(['lint', '--format', 'json'], shop);
    assert.equal(code, 1);
    const report = JSON.parse(stdout) as Record<string, unknown> & {
      files: { path: string; language: string; problems: Record<string, unknown>[] }[];
    };
    assert.deepEqual(Object.keys(report), ['tool', 'files', 'errors', 'notices', 'fixes', 'summary']);
    assert.deepEqual(
      report.files.map((file) => [file.path, file.language]),
      [
        ['scripts/unlock.lua', 'lua'],
        ['src/api/orders.ts', 'typescript'],
        ['src/jobs/report.ts', 'typescript'],
        ['src/legacy/kept.gen.ts', 'typescript'],
      ],
    );
    const orders = report.files[1].problems[0];
    assert.deepEqual(orders, {
      rule: 'LOCK002',
      severity: 'warning',
      message:
        'Lock key is taken with NX but no expiry: if the holder crashes or hangs, the lock stays forever. Set the lease in the same command: SET key token NX PX ttl.',
      line: 7,
      column: 20,
      endLine: 7,
      endColumn: 41,
      fixable: false,
      suggestions: [
        'Add a 30 s lease (the lock never expired before: work longer than that loses it)',
        "Replace with a call of the project's lock helper (ioredis), adding ../lib/locksmith.ts",
      ],
      noFix: {
        reason: 'changes-behaviour',
        message:
          'a lease where the lock had none changes what happens to work that runs longer: a suggestion, never applied by --fix alone',
      },
      help: `https://github.com/redis-locksmith/redis-locksmith/blob/HEAD/docs/rules.md#${githubAnchor(`LOCK002: ${RULE_TITLES.LOCK002}`)}`,
    });
    assert.equal(report.files[0].problems[0].fixable, false, 'LOCK007 in Lua has no fix');
    assert.deepEqual(report.files[0].problems[0].suggestions, []);
    assert.deepEqual(report.files[0].problems[0].noFix, {
      reason: 'script-interface',
      message: "passing the key in KEYS changes the script's interface: every caller's EVAL must change with it",
    });
    assert.equal(report.files[2].problems[0].rule, 'LOCK001');
    assert.equal(report.files[2].problems[0].fixable, true, 'SETNX then EXPIRE: the lease moves into a SET');
    assert.deepEqual(report.summary, {
      checked: 6,
      analysed: 5,
      errors: 0,
      warnings: 7,
      infos: 0,
      hints: 0,
      fixable: 4,
      onlySuggestions: 1,
    });
    assert.deepEqual([report.errors, report.notices, report.fixes], [[], [], []]);
  });

  test('sarif: valid against the SARIF 2.1.0 schema, with rule metadata, help links and located results', async () => {
    const { code, stdout } = await runCli(['lint', '--format', 'sarif'], shop);
    assert.equal(code, 1);
    const log = JSON.parse(stdout) as SarifLog;
    assertValidSarif(log);
    const run = log.runs[0];
    assert.equal(run.tool.driver.name, 'Redis Locksmith');
    const page = readFileSync(join(ROOT, 'docs', 'rules.md'), 'utf8');
    const anchors = new Set(
      page.split('\n').flatMap((line) => (line.startsWith('#') ? [githubAnchor(line.replace(/^#+ /, ''))] : [])),
    );
    assert.deepEqual(
      run.tool.driver.rules.map((rule) => rule.id),
      [...RULE_CODES],
    );
    for (const rule of run.tool.driver.rules) {
      assert.equal(rule.shortDescription.text, RULE_TITLES[rule.id as keyof typeof RULE_TITLES]);
      assert.match(rule.name, /^[A-Z][A-Za-z0-9]+$/);
      assert.ok(rule.fullDescription.text.length > 80, `${rule.id}: the race, from docs/rules.md`);
      assert.doesNotMatch(rule.fullDescription.text, /Fix:|\n/, `${rule.id}: the race alone, on one line`);
      assert.match(rule.help.text, /^.*\n.*\nFix: /, `${rule.id}: help is the rule's section, the race then the fix`);
      const anchor = new URL(rule.helpUri).hash.slice(1);
      assert.ok(anchors.has(anchor), `${rule.id}: ${rule.helpUri} links its heading in docs/rules.md`);
    }
    assert.equal(run.results.length, 7);
    const result = run.results.find((each) => each.ruleId === 'LOCK003')!;
    assert.deepEqual(result.locations[0].physicalLocation, {
      artifactLocation: { uri: 'src/jobs/report.ts', uriBaseId: '%SRCROOT%' },
      region: { startLine: 12, startColumn: 17, endLine: 12, endColumn: 43 },
    });
    assert.equal(run.tool.driver.rules[result.ruleIndex].id, 'LOCK003');
    assert.equal(result.level, 'warning');
  });

  test('the schema check is real: a log with a level SARIF does not have fails it', async () => {
    const { stdout } = await runCli(['lint', '--format', 'sarif'], shop);
    const log = JSON.parse(stdout) as SarifLog;
    (log.runs[0].results[0] as { level: string }).level = 'fatal';
    assert.throws(() => assertValidSarif(log), /level/);
  });

  test('exit codes: 0 clean, 1 findings; --max-warnings allows that many warnings, -1 any', async () => {
    const clean = await runCli(['lint', 'src/cache.ts', 'src/format.ts'], shop);
    assert.deepEqual(clean, { code: 0, stdout: '\n✔ No problems (2 files checked, 1 analysed)\n', stderr: '' });
    assert.equal((await runCli(['lint'], shop)).code, 1);
    assert.equal((await runCli(['lint', '--max-warnings', '7'], shop)).code, 0);
    assert.equal((await runCli(['lint', '--max-warnings', '6'], shop)).code, 1);
    assert.equal((await runCli(['lint', '--max-warnings', '-1'], shop)).code, 0);
    // An error fails the run whatever the warnings allowance.
    assert.equal((await runCli(['lint', '--max-warnings', '-1', '--rule', 'LOCK009=error'], shop)).code, 1);
    // Information and hints are reported and never fail it.
    const quiet = await runCli(
      [
        'lint',
        '--rule',
        'LOCK001=hint,LOCK002=hint,LOCK003=information',
        '--rule',
        'LOCK004=hint',
        '--rule',
        'LOCK006=hint',
        '--rule',
        'LOCK007=information',
        '--rule',
        'LOCK009=hint',
      ],
      shop,
    );
    assert.equal(quiet.code, 0);
    assert.match(quiet.stdout, /✖ 7 problems \(0 errors, 0 warnings, 2 infos, 5 hints\)/);
  });

  test('--rule sets severities and turns rules off', async () => {
    const { code, stdout } = await runCli(
      ['lint', '--format', 'json', '--rule', 'LOCK007=off', '--rule', 'lock003=error', '--rule', 'LOCK006:off'],
      shop,
    );
    assert.equal(code, 1);
    assert.deepEqual(problemsOf(stdout), [
      'src/api/orders.ts:7:LOCK002:warning',
      'src/api/orders.ts:11:LOCK004:warning',
      'src/jobs/report.ts:6:LOCK001:warning',
      'src/jobs/report.ts:12:LOCK003:error',
      'src/legacy/kept.gen.ts:8:LOCK009:warning',
    ]);
  });

  test('.gitignore: ignored files and folders are not checked, a negated pattern brings a file back, also from a subfolder of the repository', async () => {
    const { stdout } = await runCli(['lint', '--format', 'json'], shop);
    const paths = problemsOf(stdout).map((problem) => problem.split(':')[0]);
    assert.ok(!paths.includes('build/bundle.js'), 'build/ is ignored');
    assert.ok(!paths.includes('src/api/client.gen.ts'), '*.gen.ts is ignored');
    assert.ok(paths.includes('src/legacy/kept.gen.ts'), '!kept.gen.ts re-includes it');
    // From src/ in a git repository, the top folder's .gitignore still applies.
    await promisify(execFile)('git', ['init', '-q'], { cwd: shop });
    const fromSrc = await runCli(['lint', '--format', 'json', '.'], join(shop, 'src'));
    const underSrc = problemsOf(fromSrc.stdout).map((problem) => problem.split(':')[0]);
    assert.deepEqual([...new Set(underSrc)], ['api/orders.ts', 'jobs/report.ts', 'legacy/kept.gen.ts']);
    // A file named on the command line is checked even when .gitignore lists it.
    const named = await runCli(['lint', '--format', 'json', 'src/api/client.gen.ts'], shop);
    assert.deepEqual(problemsOf(named.stdout), [
      'src/api/client.gen.ts:7:LOCK002:warning',
      'src/api/client.gen.ts:7:LOCK006:warning',
    ]);
  });
});

describe('settings from .vscode/settings.json', () => {
  test('JSONC with comments and trailing commas, flat keys; the command line wins', async () => {
    const shop = copyFixture('shop');
    writeSettings(
      shop,
      `{
  // The team's lint settings.
  "editor.tabSize": 2,
  "redisLocksmith.lint.rules": {
    "LOCK006": "off", /* owner tokens come from the caller */
    "LOCK003": "error",
  },
}
`,
    );
    const fromSettings = await runCli(['lint', '--format', 'json', 'src/jobs'], shop);
    assert.deepEqual(problemsOf(fromSettings.stdout), [
      'src/jobs/report.ts:6:LOCK001:warning',
      'src/jobs/report.ts:12:LOCK003:error',
    ]);
    assert.equal(fromSettings.code, 1);
    const overridden = await runCli(['lint', '--format', 'json', '--rule', 'LOCK003=warning', 'src/jobs'], shop);
    assert.deepEqual(problemsOf(overridden.stdout), [
      'src/jobs/report.ts:6:LOCK001:warning',
      'src/jobs/report.ts:12:LOCK003:warning',
    ]);
  });

  test('nested keys, languages, and a subfolder whose own settings turn the linter off', async () => {
    const shop = copyFixture('shop');
    writeSettings(
      shop,
      '{ "redisLocksmith": { "lint": { "languages": ["typescript", "lua"], "rules": { "LOCK009": "off" } } } }',
    );
    writeSettings(join(shop, 'src', 'api'), '{ "redisLocksmith.lint.enable": false }');
    const { stdout } = await runCli(['lint', '--format', 'json'], shop);
    assert.deepEqual(problemsOf(stdout), [
      'scripts/unlock.lua:3:LOCK007:warning',
      'src/jobs/report.ts:6:LOCK001:warning',
      'src/jobs/report.ts:6:LOCK006:warning',
      'src/jobs/report.ts:12:LOCK003:warning',
    ]);
  });
});

test('analysis workers (--jobs 2, on a project big enough for them) report exactly what one thread reports', async () => {
  const shop = copyFixture('shop');
  const report = readFileSync(join(shop, 'src', 'jobs', 'report.ts'), 'utf8');
  const orders = readFileSync(join(shop, 'src', 'api', 'orders.ts'), 'utf8');
  for (let i = 0; i < 120; i++) {
    mkdirSync(join(shop, 'src', 'many', String(i)), { recursive: true });
    writeFileSync(join(shop, 'src', 'many', String(i), i % 2 ? 'report.ts' : 'orders.py.ts'), i % 2 ? report : orders);
  }
  const one = await runCli(['lint', '--format', 'json', '--jobs', '1'], shop);
  const two = await runCli(['lint', '--format', 'json', '--jobs', '2'], shop);
  assert.equal(two.stdout, one.stdout);
  assert.equal(two.code, one.code);
  assert.equal((JSON.parse(two.stdout) as { summary: { analysed: number } }).summary.analysed, 125);
});

test("npx redis-locksmith lint runs the checkout's own bin", async () => {
  const shop = copyFixture('shop');
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const env = { ...process.env };
  delete env.FORCE_COLOR;
  const viaNpx = await promisify(execFile)(
    npx,
    ['--offline', 'redis-locksmith', 'lint', '--max-warnings', '-1', shop],
    { cwd: ROOT, env },
  );
  const direct = await runCli(['lint', '--max-warnings', '-1', shop], ROOT);
  assert.equal(viaNpx.stdout, direct.stdout);
  assert.match(viaNpx.stdout, /✖ 7 problems \(0 errors, 7 warnings\)/);
});

interface SarifLog {
  runs: {
    tool: {
      driver: {
        name: string;
        rules: {
          id: string;
          name: string;
          shortDescription: { text: string };
          fullDescription: { text: string };
          help: { text: string };
          helpUri: string;
        }[];
      };
    };
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      locations: { physicalLocation: unknown }[];
    }[];
  }[];
}

const schemaPath = createRequire(__filename).resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
// The published schema's `language` pattern has a stray `]`, legal only without the `u` flag.
const validate = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false }).compile(
  JSON.parse(readFileSync(schemaPath, 'utf8')) as object,
);

function assertValidSarif(log: unknown): void {
  if (validate(log)) return;
  throw new Error(
    `not valid SARIF 2.1.0: ${(validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''} ${JSON.stringify(error.params)}`).join('; ')}`,
  );
}

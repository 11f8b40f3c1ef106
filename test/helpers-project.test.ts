// One helper per client library per project, as `lint --fix` writes it in scratch projects: a
// JavaScript and a TypeScript file share one ioredis helper whichever is fixed first (and the
// TypeScript importer type-checks against it), a Python file gets its own client's helper, a file
// in another folder finds the project's helper; and where a file of the user's is named like the
// helper, the outcome is said (the helper at the next place, or the inline lock, whose Lua is the
// pack's byte for byte), never silent.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { readHelperHeader } from '../snippets/header';
import { check, LITERALS, strictTsconfig } from './golden-support';
import { ensureCli, runCli } from '../harness/cli';

before(ensureCli);
const pack = loadPack();
const scratch = mkdtempSync(join(tmpdir(), 'locksmith-helper-project-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const JS_LOCK = `const Redis = require('ioredis');

const redis = new Redis();

async function nightlyReport(build) {
  await redis.setnx('lock:nightly-report', 'locked');
  await redis.expire('lock:nightly-report', 600);
  try {
    await build();
  } finally {
    await redis.del('lock:nightly-report');
  }
}

module.exports = { nightlyReport };
`;

const TS_LOCK = `import Redis from 'ioredis';

const redis = new Redis();

export async function syncOrders(sync: () => Promise<void>): Promise<void> {
  await redis.setnx('lock:orders', 'locked');
  await redis.expire('lock:orders', 60);
  try {
    await sync();
  } finally {
    await redis.del('lock:orders');
  }
}
`;

const PY_LOCK = `import redis

r = redis.Redis()


def run_cleanup():
    r.setnx("lock:cleanup", "1")
    r.expire("lock:cleanup", 600)
    try:
        print("cleaning")
    finally:
        r.delete("lock:cleanup")
`;

/** Writes a scratch project and returns its folder. */
function project(name: string, files: Record<string, string>): string {
  const root = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** Every file of the project with its text, paths relative to it. */
function files(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else found.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  visit(root);
  return found;
}

/** The helper files of a project by client. */
function helpers(root: string): Map<string, string[]> {
  const byClient = new Map<string, string[]>();
  for (const [path, text] of files(root)) {
    const client = readHelperHeader(text)?.client;
    if (client) byClient.set(client, [...(byClient.get(client) ?? []), path]);
  }
  return byClient;
}

const PACKAGE = JSON.stringify({ name: 'mixed', private: true, dependencies: { ioredis: '^5.4.0' } });

describe('a JavaScript and a TypeScript file of one project share one helper', () => {
  test('JavaScript fixed first: src/lib/locksmith.js, imported by both; the TypeScript file type-checks against it', async () => {
    const root = project('js-first', {
      'package.json': PACKAGE,
      'src/jobs/report.js': JS_LOCK,
      'svc/orders.ts': TS_LOCK,
      'tools/cleanup.py': PY_LOCK,
      'requirements.txt': 'redis\n',
    });
    const result = await runCli(['lint', '--fix'], root);
    assert.match(result.stdout, /^Fixed src\/jobs\/report\.js: .*, created src\/lib\/locksmith\.js$/m, result.stdout);
    assert.match(result.stdout, /^Fixed svc\/orders\.ts: /m);
    assert.deepEqual(Object.fromEntries(helpers(root)), {
      ioredis: ['src/lib/locksmith.js'],
      'redis-py': ['tools/locksmith.py'],
    });
    const after = files(root);
    // The fixes' helper functions (releaseLock here), from the one helper.
    assert.match(after.get('src/jobs/report.js')!, /^const \{ \w+ \} = require\('\.\.\/lib\/locksmith'\);$/m);
    assert.match(after.get('svc/orders.ts')!, /^import \{ \w+ \} from '\.\.\/src\/lib\/locksmith';$/m);
    await check(process.execPath, ['--check', join(root, 'src/jobs/report.js')]);
    // allowJs: TypeScript reads the JavaScript helper's exports, as a mixed project compiles.
    const tsconfig = JSON.parse(strictTsconfig(['svc/orders.ts'])) as { compilerOptions: Record<string, unknown> };
    Object.assign(tsconfig.compilerOptions, { allowJs: true, module: 'commonjs', moduleResolution: 'node10' });
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(tsconfig));
    await check(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', root]);
  });

  test('TypeScript fixed first: src/lib/locksmith.ts, and the JavaScript files of src/ and web/ find it', async () => {
    const root = project('ts-first', {
      'package.json': PACKAGE,
      'src/api/orders.ts': TS_LOCK,
      'src/z/report.js': JS_LOCK,
      'web/report.js': JS_LOCK,
    });
    const result = await runCli(['lint', '--fix'], root);
    assert.match(result.stdout, /^Fixed src\/api\/orders\.ts: .*, created src\/lib\/locksmith\.ts$/m, result.stdout);
    assert.deepEqual(Object.fromEntries(helpers(root)), { ioredis: ['src/lib/locksmith.ts'] });
    const after = files(root);
    assert.match(after.get('src/z/report.js')!, /require\('\.\.\/lib\/locksmith'\)/);
    assert.match(after.get('web/report.js')!, /require\('\.\.\/src\/lib\/locksmith'\)/);
  });

  test('a Python file in another folder finds the helper of a parent folder', async () => {
    const root = project('python', {
      'pyproject.toml': '[project]\nname = "jobs"\ndependencies = ["redis"]\n',
      'jobs/cleanup.py': PY_LOCK,
      'jobs/nightly/report.py': PY_LOCK.replace(/cleanup/g, 'report'),
    });
    await runCli(['lint', '--fix'], root);
    assert.deepEqual(Object.fromEntries(helpers(root)), { 'redis-py': ['jobs/locksmith.py'] });
    assert.match(files(root).get('jobs/nightly/report.py')!, /^from jobs\.locksmith import \w+$/m);
  });
});

describe("a file of the user's named like the helper", () => {
  test('at the first usual place: the helper goes to the next, and the report says why', async () => {
    const root = project('own-lib', {
      'package.json': PACKAGE,
      'src/lib/locksmith.ts': 'export const locksmith = "our own module";\n',
      'src/jobs/orders.ts': TS_LOCK,
    });
    const result = await runCli(['lint', '--fix'], root);
    assert.match(
      result.stdout,
      /^Fixed src\/jobs\/orders\.ts: .*, created src\/jobs\/locksmith\.ts; wrote the helper at src\/jobs\/locksmith\.ts: src\/lib\/locksmith\.ts is a file of yours, not a Locksmith helper$/m,
      result.stdout,
    );
    assert.equal(
      readFileSync(join(root, 'src/lib/locksmith.ts'), 'utf8'),
      'export const locksmith = "our own module";\n',
    );
  });

  test("at every usual place: the inline lock, said in the report, its Lua the pack's byte for byte", async () => {
    const own = 'export const locksmith = "our own module";\n';
    const root = project('own-both', {
      'package.json': PACKAGE,
      'src/lib/locksmith.ts': own,
      'src/jobs/locksmith.ts': own,
      'src/jobs/orders.ts': TS_LOCK,
    });
    // With no helper, the release has no fix: the inline lock is a suggestion (it waits where the code did not).
    const result = await runCli(['lint', '--fix', '--fix-type', 'suggestion', '--format', 'json'], root);
    const report = JSON.parse(result.stdout) as { fixes: unknown[] };
    assert.deepEqual(report.fixes, [
      {
        path: 'src/jobs/orders.ts',
        rules: ['LOCK001', 'LOCK006', 'LOCK003'],
        created: [],
        notes: [
          'wrote the lock inline, no helper file: src/lib/locksmith.ts and src/jobs/locksmith.ts are files of yours, not a Locksmith ioredis helper',
        ],
        applied: true,
      },
    ]);
    assert.equal(helpers(root).size, 0, 'no helper written');
    const fixed = readFileSync(join(root, 'src/jobs/orders.ts'), 'utf8');
    const scripts = LITERALS.js(fixed).filter((literal) => literal.startsWith('-- @script '));
    assert.deepEqual(
      scripts.map((literal) => createHash('sha1').update(literal).digest('hex')),
      [pack.acquire.sha1, pack.release.sha1],
      'the vetted scripts, not re-indented',
    );
  });
});

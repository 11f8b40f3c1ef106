// The fixes of Valkey GLIDE lock code (test/fixtures/fix/*/glide-*, Glide*.java): each shape gets
// exactly its edit in its binding's idiom (the expiry joins the SET's own options; the release is
// the GLIDE helper's, on the code's own client), and where there is none, the reason; then
// `lint --fix` on a Node project type-checked against GLIDE for Node's own declarations, and a
// Python lock before and after its fix run with GLIDE for Python against a real Valkey: a holder
// whose lease ran out no longer deletes the next holder's lock.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import ts from 'typescript';
import { loadPack } from '../pack/pack';
import { AnalyzedDocument } from '../server/src/analysis';
import { checkText } from '../server/src/check';
import { planRemedies } from '../server/src/fixes/plan';
import type { FindingRemedies, Remedy } from '../server/src/fixes/remedy';
import { applyEdits } from '../server/src/lockFix';
import { checkHelperFile } from '../snippets/helper';
import { ensureCli, runCli } from '../harness/cli';
import { npmPackages, pypiPython } from '../harness/toolchains';
import { FIX_FIXTURES, LINT_FIXTURES } from './fix-fixtures';
import { useRedis } from './helpers';

const run = promisify(execFile);
const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-fix-glide-'));
after(() => rmSync(work, { recursive: true, force: true }));

const LANGUAGE: Record<string, string> = {
  py: 'python',
  ts: 'typescript',
  js: 'javascript',
  java: 'java',
  go: 'go',
};
/** Each binding's manifest, as a project that uses GLIDE has it. */
const MANIFEST: Record<string, { name: string; text: string }> = {
  python: { name: 'requirements.txt', text: 'valkey-glide==2.5.3\n' },
  typescript: { name: 'package.json', text: '{ "dependencies": { "@valkey/valkey-glide": "2.5.3" } }\n' },
  javascript: { name: 'package.json', text: '{ "dependencies": { "@valkey/valkey-glide": "2.5.3" } }\n' },
  java: {
    name: 'pom.xml',
    text: '<project><dependencies><dependency><artifactId>valkey-glide</artifactId></dependency></dependencies></project>\n',
  },
  go: {
    name: 'go.mod',
    text: 'module example.com/app\n\ngo 1.26\n\nrequire github.com/valkey-io/valkey-glide/go/v2 v2.5.3\n',
  },
};

const fixture = (path: string) =>
  readFileSync(join(path.startsWith('lint/') ? LINT_FIXTURES : FIX_FIXTURES, path.replace(/^lint\//, '')), 'utf8');

async function remediesOf(path: string, text = fixture(path)): Promise<FindingRemedies[]> {
  const languageId = LANGUAGE[path.slice(path.lastIndexOf('.') + 1)];
  const analysis = new AnalyzedDocument(languageId);
  const checked = await checkText(analysis, text, pack).finally(() => analysis.dispose());
  const manifest = MANIFEST[languageId];
  return planRemedies(languageId, text, checked.findings, {
    pack,
    file: join(work, 'shapes', path),
    root: join(work, 'shapes'),
    manifests: [{ ...manifest, path: manifest.name }],
    readFile: () => undefined,
    canCreateFiles: true,
  });
}

/** The remedy's edits of the file itself, applied to `text`. */
function applied(remedy: Remedy, path: string, text: string): string {
  const file = join(work, 'shapes', path);
  return applyEdits(
    text,
    remedy.changes().flatMap((change) => ('edits' in change && change.path === file ? change.edits : [])),
  );
}

/** `text` with each `[from, to]` made once; every `from` must be there exactly once. */
function edited(text: string, replacements: [string, string][]): string {
  return replacements.reduce((out, [from, to]) => {
    assert.equal(out.split(from).length, 2, `exactly one ${JSON.stringify(from)}`);
    return out.replace(from, () => to);
  }, text);
}

interface Shape {
  file: string;
  code: string;
  /** Text on the finding's line. */
  at: string;
  title: RegExp;
  edits: [string, string][];
}

const SHAPES: Shape[] = [
  {
    file: 'python/glide-lease-then-expire.py',
    code: 'LOCK001',
    at: 'conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST)',
    title: /^Take the lock and its lease in one command \(SET NX EX\), without the EXPIRE$/,
    edits: [
      [
        'from glide import ConditionalChange, GlideClient',
        'from glide import ConditionalChange, GlideClient, ExpirySet, ExpiryType',
      ],
      [
        'conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST)',
        'conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST, expiry=ExpirySet(ExpiryType.SEC, 90))',
      ],
      ['    await client.expire(lock_key, 90)\n', ''],
    ],
  },
  {
    file: 'python/glide-lease-then-expire.py',
    code: 'LOCK003',
    at: 'await client.delete([lock_key])',
    title: /^Release with compare-and-delete of owner \(the lock helper's release\), adding locksmith\.py$/,
    edits: [
      [
        'from glide import ConditionalChange, GlideClient\n',
        'from glide import ConditionalChange, GlideClient\nfrom locksmith import release_lock\n',
      ],
      ['await client.delete([lock_key])', 'await release_lock(client, lock_key, owner)'],
    ],
  },
  {
    file: 'python/glide-get-compare-delete.py',
    code: 'LOCK004',
    at: 'await self.client.delete([self.key])',
    title: /^Compare and delete in one step \(the lock helper's release of self\.token\), adding locksmith\.py$/,
    edits: [
      ['GlideClient\n', 'GlideClient\nfrom locksmith import release_lock\n'],
      [
        [
          '        current = await self.client.get(self.key)',
          '        if current is not None and current.decode() == self.token:',
          '            await self.client.delete([self.key])  # expect: LOCK004 fix',
        ].join('\n'),
        '        await release_lock(self.client, self.key, self.token)',
      ],
    ],
  },
  {
    file: 'typescript/glide-lease-then-expire.ts',
    code: 'LOCK001',
    at: "{ conditionalSet: 'onlyIfDoesNotExist' }",
    title: /^Take the lock and its lease in one command \(SET NX PX\), without the EXPIRE$/,
    edits: [
      [
        "import { GlideClient } from '@valkey/valkey-glide';",
        "import { GlideClient, TimeUnit } from '@valkey/valkey-glide';",
      ],
      [
        "{ conditionalSet: 'onlyIfDoesNotExist' }",
        "{ conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 25_000 } }",
      ],
      ['  await client.pexpire(lockKey, 25_000);\n', ''],
    ],
  },
  {
    file: 'typescript/glide-lease-then-expire.ts',
    code: 'LOCK003',
    at: 'await client.del([lockKey]);',
    title: /^Release with compare-and-delete of holder \(the lock helper's release\), adding locksmith\.ts$/,
    edits: [
      [
        "import { GlideClient } from '@valkey/valkey-glide';\n",
        "import { GlideClient } from '@valkey/valkey-glide';\nimport { releaseLock } from './locksmith';\n",
      ],
      ['await client.del([lockKey]);', 'await releaseLock(client, lockKey, holder);'],
    ],
  },
  {
    file: 'javascript/glide-require-lease.js',
    code: 'LOCK001',
    at: "{ conditionalSet: 'onlyIfDoesNotExist' }",
    title: /^Take the lock and its lease in one command \(SET NX EX\), without the EXPIRE$/,
    edits: [
      [
        "const { GlideClient } = require('@valkey/valkey-glide');",
        "const { GlideClient, TimeUnit } = require('@valkey/valkey-glide');",
      ],
      [
        "{ conditionalSet: 'onlyIfDoesNotExist' }",
        "{ conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Seconds, count: 60 } }",
      ],
      ['  await client.expire(lockKey, 60);\n', ''],
    ],
  },
  {
    file: 'lint/typescript/LOCK002-positive-glide-custom-command.ts',
    code: 'LOCK003',
    at: "customCommand(['DEL', lockKey])",
    title: /^Release with compare-and-delete of token \(the lock helper's release\), adding locksmith\.ts$/,
    edits: [
      [
        "import { GlideClient } from '@valkey/valkey-glide';\n",
        "import { GlideClient } from '@valkey/valkey-glide';\nimport { releaseLock } from './locksmith';\n",
      ],
      ["await client.customCommand(['DEL', lockKey]);", 'await releaseLock(client, lockKey, token);'],
    ],
  },
  {
    file: 'java/GlideLeaseThenExpire.java',
    code: 'LOCK001',
    at: 'conditionalSetOnlyIfNotExist().build()',
    title: /^Take the lock and its lease in one command \(SET NX EX\), without the EXPIRE$/,
    edits: [
      [
        'SetOptions.builder().conditionalSetOnlyIfNotExist().build()',
        'SetOptions.builder().conditionalSetOnlyIfNotExist().expiry(SetOptions.Expiry.Seconds(120L)).build()',
      ],
      ['        client.expire(lockKey, 120).get();\n', ''],
    ],
  },
  {
    // The DEL and the get() that waits for its future go together: the helper's release answers a boolean.
    file: 'java/GlideLeaseThenExpire.java',
    code: 'LOCK003',
    at: 'client.del(new String[] {lockKey}).get();',
    title: /^Release with compare-and-delete of owner \(the lock helper's release\), adding Locksmith\.java$/,
    edits: [['client.del(new String[] {lockKey}).get();', 'Locksmith.releaseLock(client, lockKey, owner);']],
  },
  {
    file: 'lint/java/LOCK004-positive-glide-get-compare-del.java',
    code: 'LOCK004',
    at: 'client.del(new String[] {key}).get();',
    title: /^Compare and delete in one step \(the lock helper's release of token\), adding Locksmith\.java$/,
    edits: [
      [
        [
          '        String holder = client.get(key).get();',
          '        if (token.equals(holder)) {',
          '            client.del(new String[] {key}).get(); // expect: LOCK004 fix',
          '        }',
        ].join('\n'),
        '        Locksmith.releaseLock(client, key, token);',
      ],
    ],
  },
  {
    file: 'go/glide-lease-then-expire.go',
    code: 'LOCK001',
    at: '*options.NewSetOptions().SetOnlyIfDoesNotExist())',
    title: /^Take the lock and its lease in one command \(SET NX EX\), without the EXPIRE$/,
    edits: [
      [
        '*options.NewSetOptions().SetOnlyIfDoesNotExist())',
        '*options.NewSetOptions().SetOnlyIfDoesNotExist().SetExpiry(options.NewExpiryIn(45*time.Second)))',
      ],
      ['\tif _, err := client.Expire(ctx, lockKey, 45*time.Second); err != nil {\n\t\treturn err\n\t}\n', ''],
    ],
  },
  {
    file: 'go/glide-lease-then-expire.go',
    code: 'LOCK003',
    at: 'defer client.Del(ctx, []string{lockKey})',
    title:
      /^Release with compare-and-delete of owner \(the lock helper's release\), adding \.\.\/internal\/locksmith\/locksmith\.go$/,
    edits: [
      [
        '\tglide "github.com/valkey-io/valkey-glide/go/v2"\n',
        '\t"example.com/app/internal/locksmith"\n\tglide "github.com/valkey-io/valkey-glide/go/v2"\n',
      ],
      ['defer client.Del(ctx, []string{lockKey})', 'defer locksmith.ReleaseLock(ctx, client, lockKey, owner)'],
    ],
  },
  {
    // The future's get() goes with the EXPIRE: the helper's extend answers the boolean the loop tests.
    file: 'java/GlideRenewal.java',
    code: 'LOCK009',
    at: 'client.expire(lockKey, 30).get();',
    title:
      /^Renew with compare-and-extend \(the lock helper's extend of token\); when the lease is lost, stop renewing/,
    edits: [
      [
        '            client.expire(lockKey, 30).get(); // expect: LOCK009 fix',
        '            if (!Locksmith.extendLock(client, lockKey, token, 30000)) {\n                break;\n            } // expect: LOCK009 fix',
      ],
    ],
  },
  {
    file: 'python/glide-renewal.py',
    code: 'LOCK009',
    at: 'await self.client.pexpire(self.lock_key, 15_000)',
    title:
      /^Renew with compare-and-extend \(the lock helper's extend of self\.token\); when the lease is lost, stop renewing/,
    edits: [
      ['GlideClient\n', 'GlideClient\nfrom locksmith import extend_lock\n'],
      [
        '            await self.client.pexpire(self.lock_key, 15_000)  # expect: LOCK009 fix',
        '            if not await extend_lock(self.client, self.lock_key, self.token, 15_000):\n                break  # expect: LOCK009 fix',
      ],
    ],
  },
];

const lineOf = (text: string, at: number) => text.slice(text.lastIndexOf('\n', at) + 1, text.indexOf('\n', at));

describe('each GLIDE shape gets exactly its edit, in its binding’s idiom', () => {
  for (const shape of SHAPES) {
    test(`${shape.file} ${shape.code} at ${shape.at}`, async () => {
      const text = fixture(shape.file);
      const remedies = await remediesOf(shape.file, text);
      const found = remedies.find(
        (each) => each.finding.code === shape.code && lineOf(text, each.finding.start).includes(shape.at),
      );
      assert.ok(found, `a ${shape.code} finding on the line with ${shape.at}`);
      assert.ok(found.fix, `a fix: ${JSON.stringify(found.noFix)}`);
      assert.equal(found.fix.kind, 'fix');
      assert.match(found.fix.title, shape.title);
      assert.equal(applied(found.fix, shape.file, text), edited(text, shape.edits));
    });
  }

  test('no lease before: the expiry is only a suggestion, a 30 s one in the SET’s options', async () => {
    const path = 'python/glide-no-expiry.py';
    const text = fixture(path);
    const [set] = await remediesOf(path, text);
    assert.equal(set.finding.code, 'LOCK002');
    assert.equal(set.fix, undefined);
    assert.equal(set.noFix?.code, 'changes-behaviour');
    const lease = set.suggestions.find((each) => /^Add a 30 s lease/.test(each.title));
    assert.ok(lease, JSON.stringify(set.suggestions.map((each) => each.title)));
    assert.equal(
      applied(lease, path, text),
      edited(text, [
        [
          'from glide import ConditionalChange, GlideClient',
          'from glide import ConditionalChange, GlideClient, ExpirySet, ExpiryType',
        ],
        [
          'conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST) is None',
          'conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST, expiry=ExpirySet(ExpiryType.SEC, 30)) is None',
        ],
      ]),
    );
  });

  test('a lock taken with a custom command gets no lease edit: the raw command is not rewritten', async () => {
    const remedies = await remediesOf('python/glide-no-expiry.py');
    const custom = remedies.find(
      (each) =>
        each.finding.code === 'LOCK002' &&
        /custom_command/.test(lineOf(fixture('python/glide-no-expiry.py'), each.finding.start)),
    );
    assert.ok(custom);
    assert.equal(custom.fix, undefined);
    assert.deepEqual(
      custom.suggestions.filter((each) => /lease/.test(each.title)).map((each) => each.title),
      [],
    );
  });

  test('a try-lock in GLIDE for Python gets the helper’s try variant as `async with`', async () => {
    const path = 'python/glide-lease-then-expire.py';
    const text = fixture(path);
    const [acquire] = await remediesOf(path, text);
    const tried = acquire.suggestions.find((each) => /try variant/.test(each.title));
    assert.ok(tried, JSON.stringify(acquire.suggestions.map((each) => each.title)));
    assert.match(applied(tried, path, text), /^ {4}async with try_lock\(client, lock_key, ttl_ms=90000\) as lease:$/m);
  });
});

const NODE_JOB = `import { randomUUID } from 'node:crypto';
import { GlideClient } from '@valkey/valkey-glide';

export async function compactOnce(client: GlideClient, table: string, compact: () => Promise<void>): Promise<boolean> {
  const lockKey = \`lock:compact:\${table}\`;
  const token = randomUUID();
  if ((await client.set(lockKey, token, { conditionalSet: 'onlyIfDoesNotExist' })) === null) return false;
  await client.expire(lockKey, 20);
  try {
    await compact();
  } finally {
    await client.del([lockKey]);
  }
  return true;
}
`;

describe('lint --fix on a GLIDE for Node project', () => {
  const project = join(work, 'node-project');
  let report: { fixes: { path: string; rules: string[]; created?: string[] }[] };

  before(async () => {
    await ensureCli();
    mkdirSync(join(project, 'src'), { recursive: true });
    await run('git', ['init', '-q'], { cwd: project });
    writeFileSync(join(project, 'package.json'), MANIFEST.typescript.text);
    writeFileSync(join(project, 'src', 'compact.ts'), NODE_JOB);
    const result = await runCli(['lint', '--fix', '--format', 'json', '--max-warnings', '-1', '.'], project);
    assert.equal(result.code, 0, result.stderr);
    report = JSON.parse(result.stdout) as typeof report;
  });

  test('the expiry joins the SET, the EXPIRE goes, the DEL is the GLIDE helper’s release (src/lib/locksmith.ts)', () => {
    assert.deepEqual(
      report.fixes.map((fix) => fix.rules.sort()),
      [['LOCK001', 'LOCK003']],
    );
    assert.equal(
      readFileSync(join(project, 'src', 'compact.ts'), 'utf8'),
      edited(NODE_JOB, [
        [
          "import { GlideClient } from '@valkey/valkey-glide';\n",
          "import { GlideClient, TimeUnit } from '@valkey/valkey-glide';\nimport { releaseLock } from './lib/locksmith';\n",
        ],
        [
          "{ conditionalSet: 'onlyIfDoesNotExist' }",
          "{ conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Seconds, count: 20 } }",
        ],
        ['  await client.expire(lockKey, 20);\n', ''],
        ['await client.del([lockKey]);', 'await releaseLock(client, lockKey, token);'],
      ]),
    );
    assert.equal(
      checkHelperFile(readFileSync(join(project, 'src', 'lib', 'locksmith.ts'), 'utf8'), pack)?.header.client,
      'glide-node',
    );
  });

  test('a second --fix has nothing to fix', async () => {
    const again = await runCli(['lint', '--fix', '--format', 'json', '--max-warnings', '-1', '.'], project);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((JSON.parse(again.stdout) as typeof report).fixes, []);
  });

  test('the fixed file and the helper type-check (strict) against GLIDE for Node’s own declarations', async () => {
    symlinkSync(await npmPackages('glide'), join(project, 'node_modules'));
    const files = [join(project, 'src', 'compact.ts'), join(project, 'src', 'lib', 'locksmith.ts')];
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(__dirname, '..', 'node_modules', '@types')],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    assert.deepEqual(problems, []);
  });
});

const PYTHON_JOB = `import uuid

from glide import ConditionalChange, GlideClient


async def run_exclusive(client: GlideClient, lock_key: str, work) -> bool:
    token = uuid.uuid4().hex
    if await client.set(lock_key, token, conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST) is None:
        return False
    await client.pexpire(lock_key, 300)
    try:
        await work()
    finally:
        await client.delete([lock_key])
    return True
`;

/** A holder whose 300 ms lease runs out while it works; the next holder takes the lock meanwhile. Prints the key's value after the first one's release. */
const STALE_HOLDER = `import asyncio
import sys

from glide import ConditionalChange, ExpirySet, ExpiryType, GlideClient, GlideClientConfiguration, NodeAddress

from jobs import run_exclusive


async def main():
    configuration = GlideClientConfiguration([NodeAddress("127.0.0.1", int(sys.argv[1]))])
    slow = await GlideClient.create(configuration)
    next_holder = await GlideClient.create(configuration)

    async def outlives_its_lease():
        await asyncio.sleep(0.6)
        taken = await next_holder.set(
            "lock:nightly", "next-holder", conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST,
            expiry=ExpirySet(ExpiryType.SEC, 30),
        )
        print("next holder took it:", taken is not None)

    await run_exclusive(slow, "lock:nightly", outlives_its_lease)
    value = await slow.get("lock:nightly")
    print(value.decode() if value is not None else None)
    await slow.close()
    await next_holder.close()


asyncio.run(main())
`;

describe('a GLIDE for Python lock before and after lint --fix, against a real Valkey', () => {
  const fx = useRedis({ server: 'valkey' });

  async function runs(fixed: boolean): Promise<string[]> {
    const dir = join(work, `stale-${fixed ? 'fixed' : 'unfixed'}`);
    mkdirSync(dir, { recursive: true });
    await run('git', ['init', '-q'], { cwd: dir });
    writeFileSync(join(dir, 'requirements.txt'), MANIFEST.python.text);
    writeFileSync(join(dir, 'jobs.py'), PYTHON_JOB);
    if (fixed) {
      const result = await runCli(['lint', '--fix', 'jobs.py'], dir);
      assert.match(result.stdout, /^Fixed jobs\.py: LOCK001, LOCK003, created locksmith\.py$/m, result.stderr);
    }
    writeFileSync(join(dir, 'stale_holder.py'), STALE_HOLDER);
    await fx.redis.flushall();
    const { stdout } = await run(
      await pypiPython('glide/requirements.txt'),
      ['stale_holder.py', String(fx.server.port)],
      {
        cwd: dir,
        timeout: 60_000,
      },
    );
    return stdout.trim().split('\n');
  }

  test("unfixed, the stale holder's delete removes the next holder's lock; fixed, it is kept", async () => {
    await ensureCli();
    assert.deepEqual(await runs(false), ['next holder took it: True', 'None']);
    assert.deepEqual(await runs(true), ['next holder took it: True', 'next-holder']);
  });
});

// The lock fix as file changes: unsafe lock code becomes a call of the project's lock helper
// with its import, the helper created once and reused, a file of the user's own never
// overwritten, the inline lock outside a project; LOCK010's busy retry loop becomes the helper's
// waiting acquire (and is left alone where it cannot); and LOCK008 on an outdated helper.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { AnalyzedDocument, analyzeText } from '../server/src/analysis';
import { checkText } from '../server/src/check';
import { planRemedies } from '../server/src/fixes/plan';
import { applyEdits, lockFix, outdatedHelper, type FileChange } from '../server/src/lockFix';
import { ManifestCache } from '../server/src/manifests';
import { fixClient, renderFix } from '../server/src/quickFix';
import { CLIENTS } from '../snippets/clients';
import { renderHelper } from '../snippets/helper';
import { findClient } from '../snippets/render';

const pack = loadPack();
const root = mkdtempSync(join(tmpdir(), 'locksmith-fix-'));
after(() => rmSync(root, { recursive: true, force: true }));

const UNSAFE = `import socket
import time

import redis

r = redis.Redis()


def run_nightly_report():
    if not r.setnx("lock:nightly-report", socket.gethostname()):
        return
    r.expire("lock:nightly-report", 600)
    try:
        build_report()
    finally:
        r.delete("lock:nightly-report")


def build_report():
    time.sleep(5)
`;

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/** Writes the changes to disk as an editor would apply them. */
function apply(changes: FileChange[]): void {
  for (const change of changes) {
    if ('create' in change) {
      mkdirSync(dirname(change.path), { recursive: true });
      writeFileSync(change.path, change.create, { flag: 'wx' });
      continue;
    }
    let text = readFileSync(change.path, 'utf8');
    for (const edit of [...change.edits].sort((a, b) => b.start - a.start)) {
      text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
    }
    writeFileSync(change.path, text);
  }
}

async function fixFile(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  const findings = await analyzeText('python', text);
  const finding = findings.find((each) => each.fix);
  assert.ok(finding?.fix, `a fixable finding in ${path}`);
  return lockFix({
    client: findClient('redis-py'),
    languageId: 'python',
    plan: finding.fix,
    pack,
    text,
    file: path,
    root,
    manifests: [],
    readFile: read,
  });
}

describe('the lock fix calls the project helper', () => {
  test('the first fix adds the helper next to the file and leaves a short file that imports it', async () => {
    const file = join(root, 'jobs', 'report_job.py');
    const fix = await fixFile(file, UNSAFE);
    assert.equal(fix.title, "Replace with a call of the project's lock helper (redis-py), adding locksmith.py");
    const [created] = fix.changes;
    assert.ok('create' in created && created.path === join(root, 'jobs', 'locksmith.py'));
    apply(fix.changes);
    const fixed = readFileSync(file, 'utf8');
    assert.ok(fixed.split('\n').length <= 40, fixed);
    assert.match(fixed, /^import redis\nfrom locksmith import lock$/m);
    assert.match(fixed, /^ {4}with lock\(r, "lock:nightly-report", ttl_ms=600000\):\n {8}build_report\(\)$/m);
    assert.ok(!fixed.includes('redis.call'), 'no Lua in the fixed file');
    assert.deepEqual(await analyzeText('python', fixed), [], 'the fixed file has no findings');
    const helper = readFileSync(join(root, 'jobs', 'locksmith.py'), 'utf8');
    for (const name of ['acquire', 'release', 'extend'] as const) assert.ok(helper.includes(pack[name].sha1));
  });

  test('a second fix reuses the helper: still one copy of the Lua', async () => {
    const file = join(root, 'jobs', 'cleanup_job.py');
    const fix = await fixFile(file, UNSAFE.replace(/nightly-report/g, 'cleanup'));
    assert.equal(fix.changes.length, 1, 'no new file');
    apply(fix.changes);
    assert.match(readFileSync(file, 'utf8'), /^from locksmith import lock$/m);
  });

  test("a file of the user's own at the usual place is never overwritten: the inline lock instead", async () => {
    const dir = join(root, 'own');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'locksmith.py'), '# my own module\n');
    const fix = await fixFile(join(dir, 'job.py'), UNSAFE);
    // Never silent: the title says what it writes and why.
    assert.equal(
      fix.title,
      "Replace with Locksmith's vetted lock, inline (redis-py): own/locksmith.py is a file of yours, not a Locksmith redis-py helper",
    );
    assert.equal(readFileSync(join(dir, 'locksmith.py'), 'utf8'), '# my own module\n');
  });

  test('an unsaved file (no path) gets the inline lock', async () => {
    const [finding] = (await analyzeText('python', UNSAFE)).filter((each) => each.fix);
    const fix = lockFix({
      client: findClient('redis-py'),
      languageId: 'python',
      plan: finding.fix!,
      pack,
      text: UNSAFE,
      manifests: [],
      readFile: read,
    });
    assert.equal(fix.changes.length, 1);
    assert.ok(
      'edits' in fix.changes[0] && fix.changes[0].edits[0].text.includes('-- @script acquire'),
      'the inline lock embeds the scripts',
    );
  });
});

const FIXTURES = join(__dirname, 'fixtures', 'lint');

/** LOCK010 fixtures that get the fix: the file as the project holds it, and what the fixed file must say. */
const WAITING: {
  fixture: string;
  languageId: string;
  file: string;
  manifest?: [string, string];
  helper: string;
  call: RegExp;
  kept: RegExp;
  /** Gone from the fixed file besides the loop and the token (Go: the import only the token used). */
  dropped?: RegExp;
}[] = [
  {
    fixture: 'python/LOCK010-positive-fix-wait-then-release.py',
    languageId: 'python',
    file: 'search/index_job.py',
    helper: 'search/locksmith.py',
    call: /^ {4}with lock\(r, "lock:search-index", ttl_ms=60000\):\n {8}reindex_everything\(\)$/m,
    kept: /^from locksmith import lock$/m,
  },
  {
    fixture: 'typescript/LOCK010-positive-fix-wait-then-release.ts',
    languageId: 'typescript',
    file: 'web/src/sitemap.ts',
    manifest: ['web/package.json', '{ "dependencies": { "ioredis": "^5.4.0" } }'],
    helper: 'web/src/lib/locksmith.ts',
    call: /^ {2}await withLock\(redis, `lock:sitemap:\$\{site\}`, \{ ttlMs: 20000 \}, async \(\) => \{\n {4}await renderSitemap\(site\);\n {2}\}\);$/m,
    kept: /^import \{ withLock \} from '\.\/lib\/locksmith';$/m,
  },
  {
    fixture: 'javascript/LOCK010-positive-fix-forever-break.js',
    languageId: 'javascript',
    file: 'billing/invoices.js',
    helper: 'billing/locksmith.js',
    call: /^ {2}await withLock\(redis, 'lock:invoices', \{ ttlMs: 60000 \}, async \(\) => \{\n {4}await chargeBatch\(batchId\);\n {2}\}\);/m,
    kept: /^const \{ withLock \} = require\('\.\/locksmith'\);$/m,
  },
  {
    fixture: 'go/LOCK010-positive-fix-wait-then-release.go',
    languageId: 'go',
    file: 'ledger/jobs/compact.go',
    manifest: ['ledger/go.mod', 'module example.com/ledger\n\ngo 1.21\n'],
    helper: 'ledger/internal/locksmith/locksmith.go',
    call: /^\tlease, err := locksmith\.Acquire\(ctx, rdb, "lock:ledger:"\+ledger, 2\*time\.Minute\)\n\tif err != nil \{\n\t\treturn err\n\t\}\n\tdefer lease\.Release\(ctx\) \/\/ expect: LOCK003 fix\n\treturn compact\(ctx, ledger\)$/m,
    kept: /^\t"example\.com\/ledger\/internal\/locksmith"\n\t"github\.com\/redis\/go-redis\/v9"$/m,
    dropped: /google\/uuid/,
  },
  {
    fixture: 'ruby/LOCK010-positive-fix-until-set.rb',
    languageId: 'ruby',
    file: 'keys/rotate.rb',
    helper: 'keys/locksmith.rb',
    call: /^ {2}Locksmith\.with_lock\(REDIS, "lock:key-rotation", ttl_ms: 30000\) do \|_lease\|\n {4}rotate_all\n {2}end$/m,
    kept: /^require_relative 'locksmith'$/m,
  },
  {
    fixture: 'php/LOCK010-positive-fix-wait-then-release.php',
    languageId: 'php',
    file: 'feed/rebuild.php',
    helper: 'feed/Locksmith.php',
    // A PHP closure sees the function's variables only through `use`.
    call: /^ {4}Locksmith::withLock\(\$redis, "lock:feed:\$userId", 15000, function \(\$lease\) use \(&\$userId\) \{\n {8}renderFeed\(\$userId\);\n {4}\}\);$/m,
    kept: /^require_once __DIR__ \. '\/Locksmith\.php';$/m,
  },
  {
    fixture: 'csharp/LOCK010-positive-fix-delay-then-release.cs',
    languageId: 'csharp',
    file: 'media/ThumbnailJob.cs',
    helper: 'media/RedisLock.cs',
    call: /^ {8}await using var lease = await RedisLock\.AcquireAsync\(db, "lock:thumbs:" \+ album, TimeSpan\.FromSeconds\(30\)\);\n {8}await RenderAsync\(album\);$/m,
    kept: /^using Locksmith;$/m,
  },
  {
    fixture: 'java/LOCK010-positive-fix-spin-then-release.java',
    languageId: 'java',
    file: 'payouts/PayoutJob.java',
    helper: 'payouts/Locksmith.java',
    call: /^ {8}try \(Locksmith\.Lease lease = Locksmith\.acquire\(jedis, "lock:payouts", Locksmith\.ttlMs\(45000\)\)\) \{\n {12}payAll\(\);\n {8}\}$/m,
    kept: /^import redis\.clients\.jedis\.RedisClient;$/m,
  },
];

/** Writes a fixture into a project under `root` and applies the fix of its LOCK010 finding. */
async function fixWaiting(fixture: string, languageId: string, file: string, manifest?: [string, string]) {
  const text = readFileSync(join(FIXTURES, fixture), 'utf8');
  const path = join(root, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (manifest) writeFileSync(join(root, manifest[0]), manifest[1]);
  const finding = (await analyzeText(languageId, text)).find((each) => each.code === 'LOCK010');
  assert.ok(finding?.fix?.replacesRetryLoop, `${fixture}: LOCK010 offers the fix`);
  const manifests = new ManifestCache().forFile(path, root);
  const client = fixClient(languageId, text, manifests);
  assert.ok(client, `${fixture}: a client`);
  return lockFix({ client, languageId, plan: finding.fix, pack, text, file: path, root, manifests, readFile: read });
}

describe('LOCK010: the busy retry loop becomes a call of the helper, whose acquire waits', () => {
  for (const { fixture, languageId, file, manifest, helper, call, kept, dropped } of WAITING) {
    test(fixture, async () => {
      const fix = await fixWaiting(fixture, languageId, file, manifest);
      const [created, edited] = fix.changes;
      assert.ok('create' in created && created.path === join(root, helper), `creates ${helper}`);
      assert.ok('edits' in edited && edited.path === join(root, file), 'one edit of the file: one undo');
      apply(fix.changes);
      const fixed = readFileSync(join(root, file), 'utf8');
      assert.match(fixed, call);
      assert.match(fixed, kept);
      // The loop, its pause and the token only the lock used are gone; the rest of the file stays.
      assert.doesNotMatch(
        fixed,
        /\b(while|until|for \{|for \(;;\))|sleep\(0\.00|sleep 0\.001|usleep\(500\)|Sleep\(time\.Millisecond|Task\.Delay\(1\)|onSpinWait/,
      );
      assert.doesNotMatch(fixed, /\btoken\b/);
      if (dropped) assert.doesNotMatch(fixed, dropped);
      const findings = await analyzeText(languageId, fixed);
      assert.deepEqual(
        findings.map((each) => each.code),
        [],
        'the fixed file has no findings',
      );
    });
  }

  test('a second fix in the project reuses its helper: one module per project', async () => {
    const fix = await fixWaiting('python/LOCK010-positive-fix-wait-then-release.py', 'python', 'search/suggest_job.py');
    assert.equal(fix.changes.length, 1, 'no new file');
  });

  const unfixable = [
    ['python/LOCK010-positive-no-fix-deadline-loop.py', 'python', 'a loop that gives up with its own error'],
    ['typescript/LOCK010-positive-no-fix-loop-does-work.ts', 'typescript', 'a loop that does other work'],
    ['go/LOCK010-positive-no-fix-lock-unlock-split.go', 'go', 'acquire and release in different functions'],
    ['python/LOCK010-positive-no-fix-script-release.py', 'python', 'a release the linter does not see (EVAL)'],
    ['python/LOCK010-positive-busy-retry.py', 'python', 'an acquire that returns the token to its caller'],
    ['java/LOCK010-positive-spin-wait.java', 'java', 'an acquire that returns the token to its caller'],
  ];
  for (const [fixture, languageId, shape] of unfixable) {
    test(`no fix for ${shape}: ${fixture}, the diagnostic stays`, async () => {
      const findings = await analyzeText(languageId, readFileSync(join(FIXTURES, fixture), 'utf8'));
      assert.ok(findings.some((each) => each.code === 'LOCK010'));
      assert.deepEqual(
        findings.filter((each) => each.fix).map((each) => each.code),
        [],
      );
    });
  }
});

describe('LOCK008: an outdated lock helper', () => {
  const current = renderHelper('redis-py', pack, {}).text;

  test('an up-to-date helper has nothing to say', () => {
    assert.equal(outdatedHelper(current, pack), undefined);
  });

  test("a helper with another SHA1 in its header is flagged on its header, and the fix restores the pack's text", () => {
    const old = current.replace(pack.release.sha1, '0'.repeat(40));
    const finding = outdatedHelper(old, pack);
    assert.ok(finding);
    assert.equal(finding.code, 'LOCK008');
    assert.match(finding.message, /release\.lua is 000000000000; the pack's is /);
    assert.match(old.slice(finding.start, finding.end), /^# @locksmith-helper redis-py[\s\S]*@locksmith-digest \w+$/);
    assert.equal(finding.update, current);
  });
});

test('the inline lock does not declare again a key variable the user named like its own', () => {
  for (const client of CLIENTS) {
    for (const key of ['lockKey', 'lock_key', '$lockKey']) {
      const code = renderFix(client, { start: 0, end: 0, key, indent: '', body: 'work()', receiver: 'store' }, pack);
      const name = key.replace('$', '\\$');
      const selfAssignment = new RegExp(`^(?:(?:const|let|var|String) )?${name}\\s*:?=\\s*${name};?$`);
      const line = code.split('\n').find((each) => selfAssignment.test(each.trim()));
      assert.equal(line, undefined, `${client.id} with key ${key}`);
    }
  }
});

test("the busy branch stays out of the guarded code (Go's block holds a statement list)", async () => {
  const fixture = 'go/LOCK003-positive-defer-del.go';
  const text = readFileSync(join(FIXTURES, fixture), 'utf8');
  const path = join(root, 'locks/defer.go');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  writeFileSync(
    join(root, 'go.mod'),
    'module example.com/locks\n\ngo 1.21\n\nrequire github.com/redis/go-redis/v9 v9.5.1\n',
  );
  const finding = (await analyzeText('go', text)).find((each) => each.code === 'LOCK003');
  assert.ok(finding?.fix, `${fixture}: LOCK003 offers the fix`);
  const manifests = new ManifestCache().forFile(path, root);
  const client = fixClient('go', text, manifests);
  assert.ok(client, 'go-redis from the import');
  apply(
    lockFix({ client, languageId: 'go', plan: finding.fix, pack, text, file: path, root, manifests, readFile: read })
      .changes,
  );
  const fixed = readFileSync(path, 'utf8');
  assert.match(fixed, /defer lease\.Release\(ctx\)/);
  assert.doesNotMatch(fixed, /return ErrLocked/, 'the busy path is the helper’s error now');
  assert.match(fixed, /\n\treturn fn\(\)\n}/, 'the guarded call still runs');
});

describe("go-redis's try-lock (`if err != nil || !ok { return err }`, then a deferred Del)", () => {
  const fixture = 'go/try-lock-goredis.go';
  const text = readFileSync(join(__dirname, 'fixtures', 'fix', fixture), 'utf8');
  // Go 1.21: no rand.Text for a token in place, so the helper's calls are what is offered.
  const manifests = [{ name: 'go.mod', path: 'go.mod', text: 'module example.com/jobs\n\ngo 1.21\n' }];

  async function suggestions(): Promise<Map<string, string>> {
    const analysis = new AnalyzedDocument('go');
    const { findings } = await checkText(analysis, text, pack).finally(() => analysis.dispose());
    const file = join(root, 'jobs', 'compact.go');
    const env = { pack, file, root, manifests, readFile: () => undefined, canCreateFiles: true };
    const remedies = await planRemedies('go', text, findings, env);
    assert.ok(
      remedies.every((each) => !each.fix),
      'no fix: the token would need a new dependency',
    );
    const applied = new Map<string, string>();
    for (const remedy of remedies.flatMap((each) => each.suggestions)) {
      const own = remedy.changes().find((change) => change.path === file);
      assert.ok(own && 'edits' in own, remedy.title);
      applied.set(remedy.title.replace(/ \(.*$|,.*$/, ''), applyEdits(text, own.edits));
    }
    return applied;
  }

  test('the try variant changes only the two lock calls: the check, the lease and the code after stay as written', async () => {
    const tried = (await suggestions()).get("Replace with the lock helper's try variant");
    assert.ok(tried, 'the try variant is offered');
    assert.equal(
      tried,
      text
        .replace(
          '\n\t"github.com/redis/go-redis/v9"',
          '\n\t"example.com/jobs/internal/locksmith"\n\t"github.com/redis/go-redis/v9"',
        )
        .replace(
          'ok, err := rdb.SetNX(ctx, "lock:compact", "1", 2*time.Minute).Result()',
          'lease, ok, err := locksmith.TryAcquire(ctx, rdb, "lock:compact", 2*time.Minute)',
        )
        .replace('defer rdb.Del(ctx, "lock:compact")', 'defer lease.Release(ctx)'),
    );
  });

  test('the waiting rewrite leaves the code after the deferred release as it was, and imports the helper among the modules', async () => {
    const waiting = (await suggestions()).get("Replace with a call of the project's lock helper");
    assert.ok(waiting, 'the waiting rewrite is offered');
    assert.match(
      waiting,
      /\n\t"time"\n\n\t"example\.com\/jobs\/internal\/locksmith"\n\t"github\.com\/redis\/go-redis\/v9"\n\)\n/,
    );
    assert.match(
      waiting,
      /\n\tdefer lease\.Release\(ctx\)( \/\/ expect: LOCK003 fix)?\n\treturn compactSegments\(ctx\)\n}/,
    );
    assert.doesNotMatch(waiting, /critical section/);
  });
});

describe("Jedis's, Lettuce's and GLIDE for Java's try-locks get the helper's try variant, on the clients its calls take", () => {
  const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', 'fix', 'java', name), 'utf8');

  async function tryVariants(name: string): Promise<Map<string, string>> {
    const text = fixture(name);
    const analysis = new AnalyzedDocument('java');
    const { findings } = await checkText(analysis, text, pack).finally(() => analysis.dispose());
    const file = join(root, 'jobs', name);
    const env = { pack, file, root, manifests: [], readFile: () => undefined, canCreateFiles: true };
    const tried = new Map<string, string>();
    for (const { finding, suggestions } of await planRemedies('java', text, findings, env)) {
      const remedy = suggestions.find((each) => each.title.startsWith("Replace with the lock helper's try variant"));
      const own = remedy?.changes().find((change) => change.path === file);
      if (own && 'edits' in own)
        tried.set(`${finding.code}:${text.slice(0, finding.start).split('\n').length}`, applyEdits(text, own.edits));
    }
    return tried;
  }

  const section = (acquire: string, release: string) =>
    `Locksmith.Lease lease = ${acquire};\n        if (lease == null) {\n            return;\n        }\n        try {\n            ${release}`;

  test('Jedis on a RedisClient: the SET or the SETNX and EXPIRE become one tryAcquire, the DEL lease.release(); not on one Jedis connection', async () => {
    const tried = await tryVariants('JedisTryLockSkip.java');
    assert.deepEqual(
      [...tried.keys()],
      ['LOCK003:30', 'LOCK001:36', 'LOCK006:36', 'LOCK003:43'],
      'none for once(Jedis)',
    );
    const text = fixture('JedisTryLockSkip.java');
    assert.equal(
      tried.get('LOCK003:30'),
      text
        .replace(
          '        String token = UUID.randomUUID().toString();\n        if (!"OK".equals(jedis.set(key, token, SetParams.setParams().nx().px(30000)))) {',
          '        Locksmith.Lease lease = Locksmith.tryAcquire(jedis, key, Locksmith.ttlMs(30000));\n        if (lease == null) {',
        )
        .replace('jedis.del(key); // expect: LOCK003 fix', 'lease.release();'),
      'the imports once() uses stay',
    );
    const nightly = tried.get('LOCK001:36') ?? '';
    assert.equal(
      nightly,
      text.replace(
        /if \(jedis\.setnx[^]*?jedis\.del\(key\); \/\/ expect: LOCK003 suggest/,
        `${section('Locksmith.tryAcquire(jedis, key, Locksmith.ttlMs(60000))', 'build.run();')}\n        } finally {\n            lease.release();`,
      ),
      'the other section and the imports it uses stay',
    );
  });

  test('Lettuce on its synchronous commands gets it, not on the async commands', async () => {
    const tried = await tryVariants('LettuceTryLockSkip.java');
    assert.deepEqual([...tried.keys()], ['LOCK003:31']);
    assert.equal(
      tried.get('LOCK003:31'),
      fixture('LettuceTryLockSkip.java')
        .replace(
          '        String token = UUID.randomUUID().toString();\n        if (commands.set(key, token, SetArgs.Builder.nx().px(45000)) == null) {',
          '        Locksmith.Lease lease = Locksmith.tryAcquire(commands, key, Locksmith.ttlMs(45000));\n        if (lease == null) {',
        )
        .replace('commands.del(key); // expect: LOCK003 fix', 'lease.release();'),
      'asyncCatalogue() and the imports it uses stay',
    );
  });

  test("GLIDE for Java: the SET and the EXPIRE on the future's replies become one tryAcquire; `return true` after it stays", async () => {
    const tried = await tryVariants('GlideLeaseThenExpire.java');
    const text = fixture('GlideLeaseThenExpire.java');
    assert.equal(
      tried.get('LOCK001:20'),
      text
        .replace('import java.util.UUID;\n', '')
        .replace(
          /String owner = [^]*?client\.expire\(lockKey, 120\)\.get\(\);\n/,
          'Locksmith.Lease lease = Locksmith.tryAcquire(client, lockKey, Locksmith.ttlMs(120000));\n        if (lease == null) {\n            return false;\n        }\n',
        )
        .replace('client.del(new String[] {lockKey}).get(); // expect: LOCK003 fix', 'lease.release();'),
    );
  });
});

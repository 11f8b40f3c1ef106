// The fixes of Spring Data Redis lock code (test/fixtures/fix/java/Spring*.java): each shape gets
// exactly its edit, in the Spring helper's API on the code's own StringRedisTemplate, and the split
// the rules page names (a fix keeps what the code did; a lease where there was none is a
// suggestion); then `lint --fix` on a Maven project: one helper in the package, shared by its Spring
// files, CRLF and a byte order mark kept byte for byte, nothing left to fix on a second run, and the
// fixed code compiled with javac against the real Spring Data Redis jars; and the same fixes as the
// language server offers them to an editor (the fix preferred, the try variant not); and a lock
// class before and after its fix run against a real Redis: a stale holder's unlock no longer deletes
// the next holder's lock.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { loadPack } from '../pack/pack';
import { AnalyzedDocument } from '../server/src/analysis';
import { checkText } from '../server/src/check';
import { planRemedies } from '../server/src/fixes/plan';
import type { FindingRemedies, Remedy } from '../server/src/fixes/remedy';
import { applyEdits } from '../server/src/lockFix';
import { checkHelperFile, renderHelper } from '../snippets/helper';
import type { CodeAction } from 'vscode-languageserver-protocol';
import { ensureCli, runCli } from '../harness/cli';
import { applyEdits as applyLspEdits, LspClient } from '../harness/lsp';
import { javac, javaClasspath } from '../harness/toolchains';
import { FIX_FIXTURES } from './fix-fixtures';
import { useRedis } from './helpers';

const pack = loadPack();
const work = mkdtempSync(join(tmpdir(), 'locksmith-fix-spring-'));
after(() => rmSync(work, { recursive: true, force: true }));

const fixture = (name: string) => readFileSync(join(FIX_FIXTURES, 'java', name), 'utf8');

async function remediesOf(
  name: string,
  text = fixture(name),
  readFile: (path: string) => string | undefined = () => undefined,
): Promise<FindingRemedies[]> {
  const analysis = new AnalyzedDocument('java');
  const checked = await checkText(analysis, text, pack).finally(() => analysis.dispose());
  return planRemedies('java', text, checked.findings, {
    pack,
    file: join(work, 'shapes', name),
    root: join(work, 'shapes'),
    manifests: [],
    readFile,
    canCreateFiles: true,
  });
}

/** The remedy's edits of the file itself, applied to `text`. */
function applied(remedy: Remedy, name: string, text: string): string {
  const path = join(work, 'shapes', name);
  return applyEdits(
    text,
    remedy.changes().flatMap((change) => ('edits' in change && change.path === path ? change.edits : [])),
  );
}

/** `text` with each `[from, to]` made once; every `from` must be there exactly once. */
function edited(text: string, replacements: [string, string][]): string {
  return replacements.reduce((out, [from, to]) => {
    assert.equal(out.split(from).length, 2, `exactly one ${JSON.stringify(from)}`);
    return out.replace(from, () => to);
  }, text);
}

const I8 = ' '.repeat(8);
const I12 = ' '.repeat(12);

interface Shape {
  file: string;
  /** The finding's code and the text its line holds. */
  code: string;
  at: string;
  kind: 'fix' | 'suggestion';
  title: RegExp;
  edits: [string, string][];
}

const SHAPES: Shape[] = [
  {
    file: 'SpringTemplateLock.java',
    code: 'LOCK001',
    at: 'setIfAbsent(key, token);',
    kind: 'fix',
    title: /^Take the lock and its lease in one/,
    edits: [
      ['setIfAbsent(key, token);', 'setIfAbsent(key, token, 45, TimeUnit.SECONDS);'],
      [`${I8}redisTemplate.expire(key, 45, TimeUnit.SECONDS);\n`, ''],
    ],
  },
  {
    file: 'SpringTemplateLock.java',
    code: 'LOCK003',
    at: 'redisTemplate.delete(key);',
    kind: 'fix',
    title: /^Release with compare-and-delete of token \(the lock helper's release\), adding Locksmith\.java$/,
    edits: [['redisTemplate.delete(key);', 'new Locksmith(redisTemplate).releaseLock(key, token);']],
  },
  {
    file: 'SpringDurationRelease.java',
    code: 'LOCK003',
    at: '        template.delete(lockKey);',
    kind: 'fix',
    title: /compare-and-delete of owner/,
    edits: [[`${I8}template.delete(lockKey);`, `${I8}new Locksmith(template).releaseLock(lockKey, owner);`]],
  },
  {
    // Spring's delete answers a Boolean, as the helper's release does: the use of it stays as it was.
    file: 'SpringDurationRelease.java',
    code: 'LOCK003',
    at: 'this.template.delete(lockKey);',
    kind: 'fix',
    title: /compare-and-delete of owner/,
    edits: [['this.template.delete(lockKey);', 'new Locksmith(this.template).releaseLock(lockKey, owner);']],
  },
  {
    file: 'SpringGetCompareDelete.java',
    code: 'LOCK004',
    at: 'redis.delete(key);',
    kind: 'fix',
    title: /^Compare and delete in one step \(the lock helper's release of mine\)/,
    edits: [
      [
        [
          `${I12}String holder = redis.opsForValue().get(key);`,
          `${I12}if (mine.equals(holder)) {`,
          `${I12}    redis.delete(key); // expect: LOCK004 fix`,
          `${I12}}`,
        ].join('\n'),
        `${I12}new Locksmith(redis).releaseLock(key, mine);`,
      ],
    ],
  },
  {
    // No token reaches the release (it compares a prefix): the try variant is the fix, keeping the skip and the lease.
    file: 'SpringTryLockPrefix.java',
    code: 'LOCK004',
    at: 'redisTemplate.delete(key);',
    kind: 'fix',
    title:
      /^Replace with the lock helper's try variant \(one try, skips when busy as before\), adding Locksmith\.java$/,
    edits: [
      ['import java.time.Duration;\nimport java.util.UUID;\n', ''],
      [
        [
          `${I8}String holder = instance + ":" + UUID.randomUUID();`,
          `${I8}Boolean acquired = redisTemplate.opsForValue().setIfAbsent(key, holder, Duration.ofSeconds(15));`,
          `${I8}if (!Boolean.TRUE.equals(acquired)) {`,
        ].join('\n'),
        [
          `${I8}Locksmith.Lease lease = new Locksmith(redisTemplate).tryAcquire(key, Locksmith.ttlMs(15000));`,
          `${I8}if (lease == null) {`,
        ].join('\n'),
      ],
      [
        [
          `${I12}String current = redisTemplate.opsForValue().get(key);`,
          `${I12}if (current != null && current.startsWith(instance + ":")) {`,
          `${I12}    redisTemplate.delete(key); // expect: LOCK004 fix`,
          `${I12}}`,
        ].join('\n'),
        `${I12}lease.release();`,
      ],
    ],
  },
  {
    // The release's own fix comes first; the try variant, which also skips when busy, is a suggestion.
    file: 'SpringTryLockSkip.java',
    code: 'LOCK003',
    at: 'redisTemplate.delete(key);',
    kind: 'suggestion',
    title: /^Replace with the lock helper's try variant \(one try, skips when busy as before\)/,
    edits: [
      ['import java.time.Duration;\nimport java.util.UUID;\n', ''],
      [
        [
          `${I8}String token = UUID.randomUUID().toString();`,
          `${I8}if (!Boolean.TRUE.equals(redisTemplate.opsForValue().setIfAbsent(key, token, Duration.ofSeconds(20)))) {`,
        ].join('\n'),
        [
          `${I8}Locksmith.Lease lease = new Locksmith(redisTemplate).tryAcquire(key, Locksmith.ttlMs(20000));`,
          `${I8}if (lease == null) {`,
        ].join('\n'),
      ],
      ['redisTemplate.delete(key); // expect: LOCK003 fix', 'lease.release();'],
    ],
  },
  {
    // No lease before: one in Spring's own setIfAbsent is a suggestion, never applied by --fix alone.
    file: 'SpringNoExpiry.java',
    code: 'LOCK002',
    at: 'setIfAbsent(key, token);',
    kind: 'suggestion',
    title: /^Add a 30 s lease \(the lock never expired before/,
    edits: [
      [
        'import org.springframework.data.redis.core.StringRedisTemplate;\n',
        'import org.springframework.data.redis.core.StringRedisTemplate;\nimport java.time.Duration;\n',
      ],
      ['setIfAbsent(key, token);', 'setIfAbsent(key, token, Duration.ofSeconds(30));'],
    ],
  },
  {
    file: 'SpringRenewal.java',
    code: 'LOCK009',
    at: 'redisTemplate.expire(lockKey, 30',
    kind: 'fix',
    title: /^Renew with compare-and-extend \(the lock helper's extend of token\); when the lease is lost, return false/,
    edits: [
      ['import java.util.concurrent.TimeUnit;\n', ''],
      [
        `${I8}redisTemplate.expire(lockKey, 30, TimeUnit.SECONDS);`,
        `${I8}if (!new Locksmith(redisTemplate).extendLock(lockKey, token, 30000)) {\n${I12}return false;\n${I8}}`,
      ],
    ],
  },
  {
    file: 'SpringRenewal.java',
    code: 'LOCK009',
    at: 'redisTemplate.expire(lockKey, leaseTime)',
    kind: 'fix',
    title: /^Renew with compare-and-extend/,
    edits: [
      [
        `${I8}redisTemplate.expire(lockKey, leaseTime);`,
        `${I8}if (!new Locksmith(redisTemplate).extendLock(lockKey, token, leaseTime.toMillis())) {\n${I12}return false;\n${I8}}`,
      ],
    ],
  },
  {
    // A loop that only waits: the helper's waiting acquire (the call-site template), built on the template.
    file: 'SpringRetryWait.java',
    code: 'LOCK010',
    at: 'setIfAbsent(key, token, Duration.ofSeconds(25))',
    kind: 'fix',
    title: /^Replace with a call of the project's lock helper \(Spring Data Redis\)/,
    edits: [
      ['import java.time.Duration;\nimport java.util.UUID;\n', ''],
      [
        [
          `${I8}String token = UUID.randomUUID().toString();`,
          `${I8}while (!Boolean.TRUE.equals(redisTemplate.opsForValue().setIfAbsent(key, token, Duration.ofSeconds(25)))) { // expect: LOCK010 fix`,
          `${I12}Thread.sleep(1);`,
          `${I8}}`,
          `${I8}try {`,
        ].join('\n'),
        `${I8}try (Locksmith.Lease lease = new Locksmith(redisTemplate).acquire(key, Locksmith.ttlMs(25000))) {`,
      ],
      [`${I8}} finally {\n${I12}redisTemplate.delete(key); // expect: LOCK003 fix\n`, ''],
    ],
  },
];

describe('each Spring shape gets exactly its edit, on the code’s own template', () => {
  for (const shape of SHAPES) {
    test(`${shape.file} ${shape.code} at ${shape.at}: ${shape.kind}`, async () => {
      const text = fixture(shape.file);
      const remedies = await remediesOf(shape.file, text);
      const found = remedies.find(
        (each) =>
          each.finding.code === shape.code &&
          text
            .slice(text.lastIndexOf('\n', each.finding.start) + 1, text.indexOf('\n', each.finding.start))
            .includes(shape.at),
      );
      assert.ok(found, `a ${shape.code} finding on the line with ${shape.at}`);
      const remedy = shape.kind === 'fix' ? found.fix : found.suggestions[0];
      assert.ok(remedy, `a ${shape.kind}: ${JSON.stringify(found.noFix)}`);
      assert.equal(remedy.kind, shape.kind);
      assert.match(remedy.title, shape.title);
      assert.equal(applied(remedy, shape.file, text), edited(text, shape.edits));
    });
  }

  test('a template of another type than StringRedisTemplate gets no fix, and the reason names its type', async () => {
    const [release] = await remediesOf('SpringObjectTemplate.java');
    assert.equal(release.finding.code, 'LOCK003');
    assert.equal(release.fix, undefined);
    assert.equal(release.noFix?.code, 'spring');
    assert.match(release.noFix?.why ?? '', /StringRedisTemplate; redisTemplate is a RedisTemplate<String, Object>/);
  });

  test('a Jedis helper in the package takes the name Locksmith.java: no fix, and the reason says so', async () => {
    const jedisHelper = renderHelper('jedis', pack).text;
    const helperPath = join(work, 'shapes', 'Locksmith.java');
    const [release] = await remediesOf('SpringDurationRelease.java', undefined, (path) =>
      path === helperPath ? jedisHelper : undefined,
    );
    assert.equal(release.fix, undefined);
    assert.equal(release.noFix?.code, 'no-helper');
    assert.match(
      release.noFix?.why ?? '',
      /^Locksmith\.java is the Jedis helper, and the Spring Data Redis helper would take its name/,
    );
  });

  test('no lease before: no fix, only suggestions (a lease in setIfAbsent, or the try variant with one)', async () => {
    const acquire = (await remediesOf('SpringNoExpiry.java')).find((each) => each.finding.code === 'LOCK002');
    assert.equal(acquire?.fix, undefined);
    assert.equal(acquire?.noFix?.code, 'changes-behaviour');
    assert.deepEqual(
      acquire?.suggestions.map((each) => each.title.replace(/ \(.*$/, '')),
      ['Add a 30 s lease', "Replace with the lock helper's try variant"],
    );
    assert.match(acquire?.suggestions[1].title ?? '', /with a 30 s lease the lock did not have/);
  });
});

// A Maven project with two Spring files in one package: one with Windows line breaks and a byte
// order mark, one with Unix ones. Written here for this test.
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>billing</artifactId>
  <version>1.0.0</version>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-data-redis</artifactId>
    </dependency>
  </dependencies>
</project>
`;

const INVOICES = [
  'package com.example.billing;',
  '',
  'import java.util.UUID;',
  'import java.util.concurrent.TimeUnit;',
  '',
  'import org.springframework.data.redis.core.StringRedisTemplate;',
  '',
  '// Sends the month’s invoices once across instances.',
  'class InvoiceRun {',
  '    private final StringRedisTemplate redisTemplate;',
  '',
  '    InvoiceRun(StringRedisTemplate redisTemplate) {',
  '        this.redisTemplate = redisTemplate;',
  '    }',
  '',
  '    boolean send(String month, Runnable sending) {',
  '        String key = "lock:invoices:" + month;',
  '        String token = UUID.randomUUID().toString();',
  '        Boolean ok = redisTemplate.opsForValue().setIfAbsent(key, token);',
  '        if (!Boolean.TRUE.equals(ok)) {',
  '            return false;',
  '        }',
  '        redisTemplate.expire(key, 10, TimeUnit.MINUTES);',
  '        try {',
  '            sending.run();',
  '        } finally {',
  '            redisTemplate.delete(key);',
  '        }',
  '        return true;',
  '    }',
  '}',
  '',
].join('\r\n');

const DUNNING = `package com.example.billing;

import java.time.Duration;
import java.util.UUID;

import org.springframework.data.redis.core.StringRedisTemplate;

class DunningJob {
    private final StringRedisTemplate redis;
    private final String token = UUID.randomUUID().toString();

    DunningJob(StringRedisTemplate redis) {
        this.redis = redis;
    }

    boolean start(String account) {
        return Boolean.TRUE.equals(redis.opsForValue().setIfAbsent("lock:dunning:" + account, token, Duration.ofMinutes(5)));
    }

    void finish(String account) {
        redis.delete("lock:dunning:" + account);
    }
}
`;

describe('lint --fix on a Spring project', () => {
  const project = join(work, 'billing');
  const pkg = join(project, 'src', 'main', 'java', 'com', 'example', 'billing');
  const invoices = join(pkg, 'InvoiceRun.java');
  const dunning = join(pkg, 'DunningJob.java');
  let report: { fixes: { path: string; rules: string[]; created?: string[] }[] };

  before(async () => {
    await ensureCli();
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(project, 'pom.xml'), POM);
    writeFileSync(invoices, `\uFEFF${INVOICES}`);
    writeFileSync(dunning, DUNNING);
    const result = await runCli(['lint', '--fix', '--format', 'json', '--max-warnings', '-1', '.'], project);
    assert.equal(result.code, 0, result.stderr);
    report = JSON.parse(result.stdout) as typeof report;
  });

  test('one helper in the package, shared by both files; nothing else created', () => {
    assert.deepEqual(readdirSync(pkg).sort(), ['DunningJob.java', 'InvoiceRun.java', 'Locksmith.java']);
    const helper = readFileSync(join(pkg, 'Locksmith.java'), 'utf8');
    assert.equal(checkHelperFile(helper, pack)?.header.client, 'spring-data-redis');
    assert.match(helper, /^package com\.example\.billing;$/m);
    assert.deepEqual(report.fixes.map((fix) => fix.path.split('/').pop()).sort(), [
      'DunningJob.java',
      'InvoiceRun.java',
    ]);
  });

  test('the CRLF file keeps its byte order mark and line breaks; only the fixed lines differ', () => {
    const bytes = readFileSync(invoices);
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const expected = edited(INVOICES, [
      ['setIfAbsent(key, token);', 'setIfAbsent(key, token, 10, TimeUnit.MINUTES);'],
      ['        redisTemplate.expire(key, 10, TimeUnit.MINUTES);\r\n', ''],
      ['redisTemplate.delete(key);', 'new Locksmith(redisTemplate).releaseLock(key, token);'],
    ]);
    assert.equal(bytes.toString('utf8'), `\uFEFF${expected}`);
  });

  test('the LF file: the blind delete is the helper’s release of the field’s token', () => {
    assert.equal(
      readFileSync(dunning, 'utf8'),
      edited(DUNNING, [
        [
          'redis.delete("lock:dunning:" + account);',
          'new Locksmith(redis).releaseLock("lock:dunning:" + account, token);',
        ],
      ]),
    );
  });

  test('a second --fix has nothing to fix and leaves the helper alone', async () => {
    const helper = readFileSync(join(pkg, 'Locksmith.java'));
    const again = await runCli(['lint', '--fix', '--format', 'json', '--max-warnings', '-1', '.'], project);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((JSON.parse(again.stdout) as typeof report).fixes, []);
    assert.deepEqual(readFileSync(join(pkg, 'Locksmith.java')), helper);
  });

  test('the fixed files and the helper compile against the real Spring Data Redis jars', async () => {
    // javac refuses a byte order mark: the CRLF file is compiled from a copy without it.
    const sources = join(work, 'billing-javac', 'com', 'example', 'billing');
    mkdirSync(sources, { recursive: true });
    for (const name of readdirSync(pkg))
      writeFileSync(join(sources, name), readFileSync(join(pkg, name), 'utf8').replace(/^\uFEFF/, ''));
    const classpath = await javaClasspath();
    await promisify(execFile)(
      'javac',
      [
        '-proc:none',
        '-Xlint:none',
        '-d',
        join(work, 'billing-classes'),
        '-cp',
        classpath,
        ...readdirSync(sources).map((name) => join(sources, name)),
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string }) =>
      assert.fail(`javac: ${error.stdout ?? ''}${error.stderr ?? ''}`),
    );
  });
});

describe('in the editor: the language server offers the Spring fixes', () => {
  const folder = join(work, 'editor');
  let server: LspClient;
  before(async () => {
    mkdirSync(folder, { recursive: true });
    server = await LspClient.start({ folders: [folder], editor: true });
  });
  after(() => server.stop());

  test('a try-lock’s blind delete: the release is the preferred fix, the try variant a suggestion; CRLF kept', async () => {
    const text = fixture('SpringTryLockSkip.java').replace(/\n/g, '\r\n');
    const uri = pathToFileURL(join(folder, 'SpringTryLockSkip.java')).href;
    const diagnostics = await server.open(uri, 'java', text);
    const release = diagnostics.find((each) => each.code === 'LOCK003');
    assert.ok(release, diagnostics.map((each) => String(each.code)).join(', '));
    const actions = await server.codeActions(uri, release.range, [release]);
    await server.close(uri);
    assert.deepEqual(
      actions.map((action) => `${action.isPreferred ? '*' : ' '} ${action.title}`),
      [
        "* Release with compare-and-delete of token (the lock helper's release), adding Locksmith.java",
        "  Replace with the lock helper's try variant (one try, skips when busy as before), adding Locksmith.java",
        '  Explain LOCK003',
        '  Convert this lock class to the lock helper (its release, renewal and tokens)',
      ],
    );
    const fixed = applyLspEdits(text, editsOf(actions[0], uri));
    assert.equal(
      fixed,
      text.replace('redisTemplate.delete(key);', 'new Locksmith(redisTemplate).releaseLock(key, token);'),
    );
    const tried = applyLspEdits(text, editsOf(actions[1], uri));
    assert.match(
      tried,
      /\r\n {8}Locksmith\.Lease lease = new Locksmith\(redisTemplate\)\.tryAcquire\(key, Locksmith\.ttlMs\(20000\)\);\r\n/,
    );
    assert.doesNotMatch(tried.replace(/\r\n/g, ''), /\n/, 'every line break is CRLF');
  });
});

/** The edits an action makes to `uri`, whether as changes or as document changes (with a file it creates). */
function editsOf(action: CodeAction, uri: string) {
  return [
    ...(action.edit?.changes?.[uri] ?? []),
    ...(action.edit?.documentChanges ?? []).flatMap((change) =>
      'edits' in change && change.textDocument.uri === uri
        ? change.edits.flatMap((edit) => ('newText' in edit ? [edit] : []))
        : [],
    ),
  ];
}

// Drives SpringDurationRelease: takes the lock, then plays its lease running out and the next
// holder taking the lock, then unlocks; prints whether it took the lock with a lease, and what the
// key holds after the stale holder's unlock.
const STALE_HOLDER = `import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

public class StaleHolder {
    public static void main(String[] args) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(LettuceConnectionFactory.createRedisConfiguration(args[0]));
        factory.afterPropertiesSet();
        factory.start();
        try {
            StringRedisTemplate redis = new StringRedisTemplate(factory);
            String key = "lock:rebalance:shard-1";
            SpringDurationRelease lock = new SpringDurationRelease(redis, "shard-1");
            boolean took = lock.tryLock();
            long ttl = redis.getExpire(key);
            redis.delete(key);
            redis.opsForValue().set(key, "next-holder");
            lock.unlock();
            System.out.println(took + " " + (ttl > 0) + " " + redis.opsForValue().get(key));
        } finally {
            factory.destroy();
        }
    }
}
`;

describe('a Spring lock class before and after lint --fix, against a real Redis', () => {
  const fx = useRedis();

  /** The fixture in a folder of its own, fixed when `fixed`, compiled with the driver; what the driver prints. */
  async function runs(fixed: boolean): Promise<string> {
    const dir = join(work, `stale-${fixed ? 'fixed' : 'unfixed'}`);
    mkdirSync(dir, { recursive: true });
    await promisify(execFile)('git', ['init', '-q'], { cwd: dir });
    writeFileSync(join(dir, 'SpringDurationRelease.java'), fixture('SpringDurationRelease.java'));
    if (fixed) {
      const result = await runCli(['lint', '--fix', 'SpringDurationRelease.java'], dir);
      assert.match(
        result.stdout,
        /^Fixed SpringDurationRelease\.java: LOCK003, created Locksmith\.java$/m,
        result.stderr,
      );
    }
    writeFileSync(join(dir, 'StaleHolder.java'), STALE_HOLDER);
    const sources = readdirSync(dir).filter((name) => name.endsWith('.java'));
    const classpath = await javac(
      join(dir, 'build'),
      sources.map((name) => join(dir, name)),
      ['-proc:none'],
    );
    await fx.redis.flushall();
    const { stdout } = await promisify(execFile)('java', ['-cp', classpath, 'StaleHolder', fx.server.url], {
      timeout: 60_000,
    });
    return stdout.trim().split('\n').at(-1) ?? '';
  }

  test("unfixed, the stale holder's unlock deletes the next holder's lock; fixed, it is kept", async () => {
    await ensureCli();
    assert.equal(await runs(false), 'true true null');
    assert.equal(await runs(true), 'true true next-holder');
  });
});

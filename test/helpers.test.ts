// The lock helper generator without Redis: every client's helper carries a header naming the
// pack version and each embedded script's SHA1, which checkHelperFile reads back to tell current,
// outdated and hand-edited copies apart; options are checked; call sites stay within 8 lines and
// embed no Lua; the placements per ecosystem; the CLI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadPack, parseScript, SCRIPT_NAMES, type Pack } from '../pack/pack';
import { callSiteLines, DEFAULT_HELPER_IMPORT, renderCallSite, renderCallSiteSnippet } from '../snippets/callsite';
import { CLIENTS } from '../snippets/clients';
import { packVersion, readHelperHeader } from '../snippets/header';
import { KINDS, LOCK_KINDS, type Kind } from '../snippets/compose';
import {
  carriedKinds,
  checkHelperFile,
  helperKinds,
  helperWithKinds,
  refreshHelper,
  renderHelper,
  suggestedKinds,
  updatedHelper,
} from '../snippets/helper';
import { outdatedHelper } from '../server/src/lockFix';
import { PATTERNS } from '../snippets/patterns';
import { proposeHelperPlacements } from '../snippets/paths';
import { JS_FLAVORS } from '../snippets/template';

const pack = loadPack();

type ScriptName = (typeof SCRIPT_NAMES)[number];
/** The scripts every helper's core embeds: the plain lock, whose waiters poll. */
const CORE: ScriptName[] = ['acquire', 'extend', 'release'];
/**
 * The scripts each client's wakeups part adds: waiting in line (acquire_queued; its release takes
 * the queue) where the client queues, none where the release's wake-up alone is listened for.
 */
const WAKEUPS: Record<string, ScriptName[]> = {
  jedis: [],
  lettuce: [],
  'glide-java': [],
};
const wakeupScripts = (client: string): ScriptName[] => WAKEUPS[client] ?? ['acquire_queued'];
/** Each lock kind's scripts. */
const KIND_SCRIPTS: Record<Exclude<Kind, 'wakeups'>, ScriptName[]> = {
  reentrant: ['reentrant_acquire', 'reentrant_extend', 'reentrant_release'],
  'read-write': ['read_acquire', 'write_acquire', 'rw_extend', 'rw_release'],
  semaphore: ['semaphore_acquire', 'semaphore_extend', 'semaphore_release'],
  asyncio: [],
  'fenced-writes': ['guarded_set', 'fenced_set'],
  'replica-wait': [],
  multi: ['multi_acquire', 'multi_extend', 'multi_release'],
};
/** The clients whose helpers carry the lock kinds (the others get them by a kind file each). */
const WITH_KINDS = [
  'ioredis',
  'node-redis',
  'glide-node',
  'redis-py',
  'glide-python',
  'redigo',
  'go-redis',
  'phpredis',
  'redis-rb',
  'redis-rs',
  'jedis',
  'lettuce',
];

/** The pack with one script's text changed, as a newer pack would have it. */
function packWithChanged(name: (typeof SCRIPT_NAMES)[number]): Pack {
  const changed = { ...pack };
  changed[name] = parseScript(pack[name].path, `${pack[name].source}-- changed\n`);
  return changed;
}

describe('pack version', () => {
  test('is 12 hex digits, stable for one pack and different when any script changes', () => {
    assert.match(packVersion(pack), /^[0-9a-f]{12}$/);
    assert.equal(packVersion(loadPack()), packVersion(pack));
    for (const name of SCRIPT_NAMES) assert.notEqual(packVersion(packWithChanged(name)), packVersion(pack), name);
  });
});

test('the clients that carry lock kinds carry all three; the others none yet', () => {
  for (const client of CLIENTS) {
    const lockKinds = helperKinds(client.id).filter((kind) => (LOCK_KINDS as readonly Kind[]).includes(kind));
    assert.deepEqual(lockKinds, WITH_KINDS.includes(client.id) ? [...LOCK_KINDS] : [], client.id);
  }
});

for (const client of CLIENTS) {
  /** The variants of the client's helper: the core, each kind alone, all kinds; JavaScript in every flavor. */
  const kindSets: Kind[][] = [[], ...helperKinds(client.id).map((kind) => [kind]), helperKinds(client.id)];
  const flavors = client.extension === 'js' ? ['ts', 'esm', 'cjs'] : [undefined];
  const variants = [
    ...new Map(
      kindSets.flatMap((kinds) =>
        flavors.map((flavor) => {
          const options = { ...(flavor && { flavor }), ...(kinds.length && { kinds: kinds.join(',') }) };
          return [JSON.stringify(options), { kinds, options }] as const;
        }),
      ),
    ).values(),
  ];
  for (const { kinds, options } of variants) {
    const name = `${client.id} helper, ${kinds.length ? kinds.join(' + ') : 'core'}${options.flavor ? ` (${options.flavor})` : ''}`;
    describe(name, () => {
      const helper = renderHelper(client.id, pack, options);
      const embedded = [
        ...CORE,
        ...kinds.flatMap((kind) => (kind === 'wakeups' ? wakeupScripts(client.id) : KIND_SCRIPTS[kind])),
      ];

      test("its header names the client, its options and kinds, the pack version and each embedded script's SHA1", () => {
        const header = readHelperHeader(helper.text);
        assert.ok(header, 'has a header');
        assert.equal(header.client, client.id);
        assert.equal(header.options.kinds, kinds.length ? kinds.join(',') : undefined);
        assert.equal(header.packVersion, packVersion(pack));
        assert.deepEqual(
          [...header.scripts].sort(),
          [...embedded].sort().map((script) => [script, pack[script].sha1]),
        );
        assert.deepEqual(header.options, helper.options);
        assert.match(header.digest, /^[0-9a-f]{40}$/);
      });

      test("embeds each script's text once, byte for byte the pack's file, every marker filled", () => {
        for (const script of SCRIPT_NAMES) {
          const copies = embedded.includes(script) ? 1 : 0;
          assert.equal(helper.text.split(pack[script].source).length - 1, copies, `${script} embedded ${copies}x`);
        }
        assert.doesNotMatch(helper.text, /[«»]/);
      });

      test('LOCK008: a fresh copy is current; a newer pack makes it outdated, naming the script, and its update keeps the kinds', () => {
        assert.deepEqual(checkHelperFile(helper.text, pack), {
          header: readHelperHeader(helper.text),
          outdated: false,
          edited: false,
          reasons: [],
        });
        assert.equal(outdatedHelper(helper.text, pack), undefined);
        const newer = packWithChanged('extend');
        const check = checkHelperFile(helper.text, newer)!;
        assert.equal(check.outdated, true);
        assert.equal(check.edited, false);
        assert.equal(check.reasons.length, 2, check.reasons.join('; '));
        assert.match(check.reasons[0], /^written for pack [0-9a-f]{12}; the installed pack is [0-9a-f]{12}$/);
        assert.match(check.reasons[1], /^extend\.lua is [0-9a-f]{12}; the pack's is [0-9a-f]{12}$/);
        const finding = outdatedHelper(helper.text, newer)!;
        assert.equal(finding.code, 'LOCK008');
        assert.equal(finding.update, renderHelper(client.id, newer, options).text, 'same options and kinds');
      });

      test('an edit is told apart from an outdated copy; line endings are not an edit', () => {
        const edited = checkHelperFile(helper.text.replace(/\n$/, '\nextra\n'), pack)!;
        assert.deepEqual([edited.outdated, edited.edited], [false, true]);
        const crlf = checkHelperFile(helper.text.replace(/\n/g, '\r\n'), pack)!;
        assert.deepEqual([crlf.outdated, crlf.edited], [false, false]);
        const oldSha = helper.text.replace(pack.acquire.sha1, '0'.repeat(40));
        const stale = checkHelperFile(oldSha, pack)!;
        assert.deepEqual([stale.outdated, stale.edited], [true, true]);
        assert.match(stale.reasons.join('\n'), /^acquire\.lua is 000000000000; the pack's is/m);
      });
    });
  }
}

/** The lines a helper with its core alone may have: header, code and the pack's Lua it embeds. */
const CORE_LINES = 400;

describe('a helper carries what the project uses', () => {
  for (const client of CLIENTS) {
    test(`${client.id}: the core alone is at most ${CORE_LINES} lines, the pack's Lua included; each part adds its own`, (t) => {
      const lines = (text: string) => text.replace(/\n$/, '').split('\n').length;
      const helper = renderHelper(client.id, pack).text;
      const core = lines(helper);
      const embedded = new Set([...helper.matchAll(/@locksmith-script (\w+)/g)].map((match) => match[1] as ScriptName));
      const lua = [...embedded].reduce((sum, name) => sum + lines(pack[name].source), 0);
      t.diagnostic(`core ${core} lines, ${lua} of them the pack's Lua (${[...embedded].join(', ')})`);
      assert.ok(core <= CORE_LINES, `${core} lines`);
      for (const kind of helperKinds(client.id)) {
        const added = lines(renderHelper(client.id, pack, { kinds: kind }).text) - core;
        t.diagnostic(`+${kind} ${added} lines`);
        assert.ok(added > 0 && added < core, `${kind} adds ${added} lines`);
      }
    });
  }
});

describe('lock kinds', () => {
  test('adding a kind keeps the kinds and options the helper has; asking for one it has changes nothing', () => {
    const helper = renderHelper('phpredis', pack, { namespace: 'App\\Locks', kinds: 'reentrant' }).text;
    const added = helperWithKinds(helper, pack, ['semaphore'])!;
    assert.deepEqual(added.added, ['semaphore']);
    assert.deepEqual(added.helper.options, { namespace: 'App\\Locks', kinds: 'reentrant,semaphore' });
    assert.match(added.helper.text, /^namespace App\\Locks;$/m);
    assert.equal(carriedKinds(added.helper.text).join(), 'reentrant,semaphore');
    assert.deepEqual(refreshHelper(added.helper.text, pack, ['reentrant'])!, {
      text: undefined,
      added: [],
      reasons: [],
      edited: false,
    });
    const refreshed = refreshHelper(helper, pack, ['read-write'])!;
    assert.deepEqual(refreshed.reasons, ['it gains the read-write part']);
    assert.deepEqual(carriedKinds(refreshed.text!), ['reentrant', 'read-write']);
  });

  test('a header from before kinds were recorded (every kind in one file) keeps them all on update', () => {
    const all = renderHelper('redis-py', pack, { kinds: 'reentrant,read-write,semaphore' }).text;
    const old = all.replace(/^(# @locksmith-helper redis-py) kinds=\S+$/m, '$1');
    assert.equal(readHelperHeader(old)!.options.kinds, undefined);
    assert.deepEqual(carriedKinds(old), ['reentrant', 'read-write', 'semaphore']);
    assert.equal(updatedHelper(old, pack)!.text, all);
    const newer = packWithChanged('release');
    const kinds = { kinds: 'reentrant,read-write,semaphore' };
    assert.equal(outdatedHelper(old, newer)!.update, renderHelper('redis-py', newer, kinds).text);
  });

  // Written before wake-ups became the wakeups part (main at 25f7f92): the core had them, in line
  // (acquire_queued) or, for the JVM helpers, subscribed without a queue. redis-py's core had its
  // asyncio API then too: the asyncio part.
  for (const [client, file, had, core, woken] of [
    ['ioredis', 'ioredis-core-waiting-in-line.ts', [], ['wakeups'], /@locksmith-script acquire_queued /],
    [
      'redis-py',
      'redis-py-reentrant-waiting-in-line.py',
      ['reentrant'],
      ['wakeups', 'asyncio'],
      /@locksmith-script acquire_queued /,
    ],
    ['jedis', 'jedis-core-wake-ups.java', [], ['wakeups'], /ssubscribe/i],
    ['lettuce', 'lettuce-reentrant-wake-ups.java', ['reentrant'], ['wakeups'], /Options wakeups\(/],
    ['glide-java', 'glide-java-core-wake-ups.java', [], ['wakeups'], /Options wakeups\(/],
  ] as const) {
    test(`${client}: a helper whose core was woken keeps its wake-ups (the wakeups part) when a part is added or it is updated`, () => {
      const old = readFileSync(join(__dirname, 'fixtures', 'helpers', file), 'utf8');
      assert.deepEqual(carriedKinds(old), [...had, ...core]);
      const part = helperKinds(client).includes('semaphore') ? 'semaphore' : 'fenced-writes';
      const added = helperWithKinds(old, pack, [part])!;
      assert.deepEqual(added.added, [part]);
      assert.deepEqual(
        carriedKinds(added.helper.text),
        KINDS.filter((kind) => [...had, part, ...core].includes(kind)),
      );
      assert.match(added.helper.text, woken);
      assert.deepEqual(carriedKinds(updatedHelper(old, pack)!.text), [...had, ...core]);
    });
  }

  // What tells a helper written before the wakeups part, whose core subscribed: keep it true.
  test('no helper names SSUBSCRIBE without its wakeups part', () => {
    for (const client of CLIENTS.filter(({ id }) => helperKinds(id).includes('wakeups'))) {
      const kinds = helperKinds(client.id).filter((kind) => kind !== 'wakeups');
      const text = renderHelper(client.id, pack, kinds.length ? { kinds: kinds.join(',') } : {}).text;
      assert.doesNotMatch(text, /ssubscribe/i, client.id);
    }
  });

  test('a new redis-py helper for a file that imports redis.asyncio is offered its asyncio part; other files and clients none', () => {
    for (const text of [
      'import redis.asyncio as redis\n',
      'from redis.asyncio import Redis\n',
      'from redis import asyncio as aioredis\n',
    ])
      assert.deepEqual(suggestedKinds('redis-py', text), ['asyncio'], text);
    for (const text of [
      'import redis\n',
      'from redis import Redis\n',
      '# see redis.asyncio\n',
      'import redis_asyncio_shim\n',
    ])
      assert.deepEqual(suggestedKinds('redis-py', text), [], text);
    assert.deepEqual(suggestedKinds('glide-python', 'from redis.asyncio import Redis\n'), []);
  });

  test('a kind the client has no file for gets a message naming its kinds, and nothing is rendered', () => {
    assert.throws(() => renderHelper('stackexchange', pack, { kinds: 'semaphore' }), {
      message: /^the stackexchange helper has no semaphore; it can carry: /,
    });
    assert.throws(() => renderHelper('ioredis', pack, { kinds: 'fair' }), {
      message: `the ioredis helper has no fair lock; it can carry: ${helperKinds('ioredis').join(', ')}`,
    });
    assert.throws(() => renderHelper('ioredis', pack, { kinds: 'Semaphore' }), {
      message: /^kinds 'Semaphore' is not parts beyond the plain lock/,
    });
  });

  test('a JavaScript helper without the reentrant kind refuses reentrant: true (it would take a plain lock)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locksmith-kinds-'));
    try {
      const path = join(dir, 'locksmith.cjs');
      writeFileSync(path, renderHelper('node-redis', pack, { flavor: 'cjs' }).text);
      const script = `require(${JSON.stringify(path)}).acquire({}, 'lock:x', { ttlMs: 1000, reentrant: true })
        .then(() => console.log('taken'), (error) => console.log(error.name + ': ' + error.message));`;
      const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      assert.equal(result.stdout, 'TypeError: this helper has no reentrant lock: add the kind to it\n', result.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('kinds are recorded in one order whatever order they are asked in', () => {
    assert.equal(
      renderHelper('redis-rb', pack, { kinds: 'semaphore,reentrant' }).text,
      renderHelper('redis-rb', pack, { kinds: 'reentrant,semaphore' }).text,
    );
  });
});

describe('helper options', () => {
  test('JavaScript flavors: TypeScript by default, ES module and CommonJS on request', () => {
    assert.equal(renderHelper('ioredis', pack).fileName, 'locksmith.ts');
    assert.match(renderHelper('ioredis', pack).text, /^export async function withLock<T>\(/m);
    const esm = renderHelper('node-redis', pack, { flavor: 'esm' });
    assert.equal(esm.fileName, 'locksmith.js');
    assert.match(esm.text, /^export async function withLock\(/m);
    assert.doesNotMatch(esm.text, /: Promise<|interface /);
    const cjs = renderHelper('ioredis', pack, { flavor: 'cjs' });
    assert.match(
      cjs.text,
      /^module\.exports = \{\n {2}acquire,\n {2}tryAcquire,\n {2}releaseLock,\n {2}extendLock,\n {2}withLock,\n {2}Lease,/m,
    );
    assert.doesNotMatch(cjs.text, /^export /m);
  });

  test('the Java package, C# and PHP namespaces are declared and recorded', () => {
    const java = renderHelper('jedis', pack, { package: 'com.example.locks' });
    assert.match(java.text, /^package com\.example\.locks;$/m);
    assert.match(java.text, /@locksmith-helper jedis package=com\.example\.locks$/m);
    assert.doesNotMatch(renderHelper('lettuce', pack).text, /^package /m);
    assert.match(renderHelper('stackexchange', pack).text, /^namespace Locksmith;$/m);
    assert.match(renderHelper('predis', pack, { namespace: 'App\\Locks' }).text, /^namespace App\\Locks;$/m);
    const check = checkHelperFile(java.text, pack)!;
    assert.equal(check.outdated, false, check.reasons.join('; '));
  });

  test('bad options get a message naming the valid ones, and nothing is rendered', () => {
    assert.throws(() => renderHelper('ioredis', pack, { flavor: 'coffee' }), {
      message: "flavor 'coffee' is not the module flavor: ts, esm, cjs (TypeScript, ES module, CommonJS)",
    });
    assert.throws(() => renderHelper('redis-py', pack, { package: 'x' }), {
      message: "the redis-py helper has no option 'package'; its options: kinds",
    });
    assert.throws(() => renderHelper('jedis', pack, { package: 'com..x' }), {
      message: "package 'com..x' is not the Java package, e.g. com.example.locks",
    });
    assert.throws(() => renderHelper('jedi', pack), { message: /^unknown client 'jedi'; valid clients: ioredis, / });
  });

  test('a header naming an unknown client reads as outdated, with the reason', () => {
    const text = renderHelper('redis-py', pack).text.replace(
      '@locksmith-helper redis-py',
      '@locksmith-helper redis-java',
    );
    const check = checkHelperFile(text, pack)!;
    assert.equal(check.outdated, true);
    assert.match(check.reasons[0], /^cannot be rendered again: unknown client 'redis-java'/);
  });

  test('text without a header is no helper', () => {
    assert.equal(checkHelperFile('import redis\n', pack), undefined);
  });
});

describe("glide-node: the helper in Valkey GLIDE's idiom", () => {
  const flavors = JS_FLAVORS.map((flavor) => [flavor, renderHelper('glide-node', pack, { flavor }).text] as const);

  test('the scripts are GLIDE Script objects run with invokeScript (EVALSHA, loaded on NOSCRIPT): no SHA1 of its own', () => {
    for (const [flavor, text] of flavors) {
      assert.ok(text.includes('script = new Script(SCRIPTS[name]);'), flavor);
      assert.ok(text.includes('return await client.invokeScript(script, { keys, args: args.map(String) });'), flavor);
      assert.doesNotMatch(text, /createHash|evalSha|SHA1S/, flavor);
    }
  });

  test("NOSCRIPT after GLIDE's own reload (a flush between its SCRIPT LOAD and EVALSHA) sends EVAL once; other errors are thrown", () => {
    for (const [flavor, text] of flavors) {
      assert.match(
        text,
        /if \(!\(error instanceof Error\) \|\| !\/NoScript\/i\.test\(error\.message\)\) throw error;\n\s+return await client\.customCommand\(\['EVAL', SCRIPTS\[name\], String\(keys\.length\), \.\.\.keys, \.\.\.args\.map\(String\)\]\);/,
        flavor,
      );
    }
  });

  test('the wakeups part exports enableWakeups in every flavor; without it (and on a GlideClient) the waiters poll', () => {
    const woken = JS_FLAVORS.map((flavor) => renderHelper('glide-node', pack, { flavor, kinds: 'wakeups' }).text);
    const [ts = '', esm = '', cjs = ''] = woken;
    assert.match(
      ts,
      /^export function enableWakeups\(client: GlideClusterClient, configuration: GlideClusterClientConfiguration\): void \{$/m,
    );
    assert.match(esm, /^export function enableWakeups\(client, configuration\) \{$/m);
    assert.match(cjs, /^module\.exports = \{\n(?: {2}\w+,\n)* {2}enableWakeups,\n/m);
    for (const text of woken) {
      assert.match(text, /if \(configuration === undefined\) return POLLING;/);
      assert.match(text, /opened\.ssubscribe\(\[key\], 10_000\)/);
    }
    for (const [flavor, text] of flavors) assert.doesNotMatch(text, /enableWakeups|ssubscribe/, flavor);
  });
});

describe("glide-python: the helper in Valkey GLIDE's idiom", () => {
  const { text } = renderHelper('glide-python', pack);

  test('the scripts are GLIDE Script objects run with invoke_script (EVALSHA, loaded on NOSCRIPT): no SHA1 of its own', () => {
    assert.ok(text.includes('script = _scripts[lua] = Script(lua)'));
    assert.ok(text.includes('return await client.invoke_script(script, keys=list(keys), args=texts)'));
    assert.doesNotMatch(text, /hashlib|\.evalsha\(|script_load/);
  });

  test("NOSCRIPT after GLIDE's own reload (a flush between its SCRIPT LOAD and EVALSHA) sends EVAL once; other errors are raised", () => {
    assert.match(
      text,
      /if "noscript" not in str\(error\)\.lower\(\):\n\s+raise\n\s+return await client\.custom_command\(\["EVAL", lua, str\(len\(keys\)\), \*keys, \*texts\]\)/,
    );
  });

  test('asyncio only; the core polls; the wakeups part adds enable_wakeups, which takes a GlideClusterClient', () => {
    const woken = renderHelper('glide-python', pack, { kinds: 'wakeups' }).text;
    assert.doesNotMatch(woken, /import threading|time\.sleep\(/, 'no thread, no blocking sleep');
    assert.doesNotMatch(text, /enable_wakeups|ssubscribe|ACQUIRE_QUEUED/, 'the core has no wake-ups and no queue');
    assert.ok(text.includes('_lease_left(await client.pttl(key))'), "a waiter reads the holder's PTTL");
    assert.match(
      woken,
      /^def enable_wakeups\(client: GlideClusterClient, configuration: GlideClusterClientConfiguration\) -> None:$/m,
    );
    assert.match(woken, /configuration = _configurations\.get\(client\)\n\s+if configuration is not None:/);
    assert.ok(woken.includes('await (await self._subscriber).ssubscribe({key}, timeout_ms=10_000)'));
  });
});

describe("glide-go: the helper in Valkey GLIDE for Go's idiom", () => {
  const text = renderHelper('glide-go', pack).text;

  test('the scripts are GLIDE options.Script values run with InvokeScriptWithOptions (EVALSHA, loaded on NOSCRIPT): no SHA1 of its own', () => {
    assert.match(text, /^\tacquireScript = newScript\(`/m);
    assert.ok(text.includes('\tscript := redis.NewScript(source)\n'));
    assert.ok(
      text.includes(
        'client.InvokeScriptWithOptions(ctx, *script, *redis.NewScriptOptions().WithKeys(keys).WithArgs(values))',
      ),
    );
    assert.doesNotMatch(text, /crypto\/sha1|EVALSHA"|ScriptLoad/);
  });

  test("NOSCRIPT after GLIDE's own reload sends EVAL once, on either client; other errors are returned", () => {
    assert.ok(
      text.includes(
        'if err == nil || !strings.Contains(strings.ToLower(err.Error()), "noscript") {\n\t\treturn reply, err\n\t}',
      ),
    );
    assert.ok(
      text.includes(
        'eval := append(append([]string{"EVAL", sources[script], fmt.Sprint(len(keys))}, keys...), values...)',
      ),
    );
    assert.equal(text.match(/\.CustomCommand\(ctx, eval\)/g)?.length, 2, '*glide.Client and *glide.ClusterClient');
  });

  test('EnableWakeups (the wakeups part) takes a cluster client and its configuration; any other client polls', () => {
    const woken = renderHelper('glide-go', pack, { kinds: 'wakeups' }).text;
    assert.match(
      woken,
      /^func EnableWakeups\(client \*glide\.ClusterClient, configuration \*config\.ClusterClientConfiguration\) \{$/m,
    );
    assert.ok(woken.includes('\tcluster, ok := client.(*glide.ClusterClient)\n\tif !ok {\n\t\treturn w\n\t}'));
    assert.doesNotMatch(text, /EnableWakeups|SSubscribe/, 'the core alone polls');
  });
});

describe("glide-java: the helper in Valkey GLIDE for Java's idiom", () => {
  const { text } = renderHelper('glide-java', pack, { package: 'com.example.locks' });

  test('the scripts are GLIDE Script objects run with invokeScript (EVALSHA, loaded on NOSCRIPT): no SHA1 of its own', () => {
    assert.ok(text.includes('SCRIPTS.computeIfAbsent(lua, source -> new Script(source, false));'));
    assert.ok(text.includes('client.invokeScript(script, ScriptOptions.builder().keys(keys).args(args).build())'));
    assert.doesNotMatch(text, /MessageDigest|String sha1\(|\.evalsha\(/);
  });

  test("NOSCRIPT after GLIDE's own reload sends EVAL once, on either client type; other errors are thrown", () => {
    assert.match(
      text,
      /\} catch \(RequestException error\) \{\n\s+if \(!String\.valueOf\(error\.getMessage\(\)\)\.toLowerCase\(Locale\.ROOT\)\.contains\("noscript"\)\) throw error;\n\s+List<String> eval = new ArrayList<>\(List\.of\("EVAL", lua, String\.valueOf\(keys\.size\(\)\)\)\);/,
    );
    assert.match(text, /cluster\.customCommand\(command\)\.thenApply\(ClusterValue::getSingleValue\)/);
    assert.match(text, /: \(\(GlideClient\) client\)\.customCommand\(command\)\);/);
  });

  test('waiters poll; with the wakeups part and Options.wakeups on a cluster client they open a sharded subscriber per wait', () => {
    assert.doesNotMatch(text, /Wakeups|SHARDED|public Options wakeups/, 'the core alone polls');
    const woken = renderHelper('glide-java', pack, { kinds: 'wakeups' }).text;
    assert.match(woken, /wakeups = Wakeups\.listen\(options\.wakeups, key, Math\.min\(options\.retryMs, leftMs\)\);/);
    assert.match(woken, /\.subscription\(PubSubClusterChannelMode\.SHARDED, key\)/);
    assert.match(
      woken,
      /throw new IllegalArgumentException\("wakeups need a GlideClusterClient: GLIDE has sharded pub\/sub in cluster mode only"\);/,
    );
    assert.doesNotMatch(woken, /ACQUIRE_QUEUED/);
  });
});

describe("spring-data-redis: the helper in Spring's idiom", () => {
  const { text } = renderHelper('spring-data-redis', pack, { package: 'com.example.locks' });

  test('one Locksmith per StringRedisTemplate, made by its constructor (a bean, or new where needed)', () => {
    assert.match(text, /^ {4}public Locksmith\(StringRedisTemplate redis\) \{$/m);
    assert.doesNotMatch(
      text,
      /public static (Lease|boolean) /,
      'acquire, tryAcquire, releaseLock, extendLock are methods',
    );
    for (const signature of [
      'public Lease acquire(String key, Options options) throws InterruptedException',
      'public Lease tryAcquire(String key, Options options)',
      'public boolean releaseLock(String key, String token)',
      'public boolean extendLock(String key, String token, long ttlMs)',
      'public static final class Lease implements AutoCloseable',
    ]) {
      assert.ok(text.includes(signature), signature);
    }
  });

  test('the scripts are RedisScript<Long> constants the template runs (EVALSHA, EVAL on NOSCRIPT): no SHA1 of its own', () => {
    for (const name of ['ACQUIRE', 'EXTEND', 'RELEASE']) {
      assert.ok(text.includes(`    static final RedisScript<Long> ${name} = RedisScript.of("""\n-- @script`), name);
    }
    assert.ok(text.includes('redis.execute(script, keys, (Object[]) args)'));
    assert.doesNotMatch(text, /MessageDigest|\.evalsha\(/i);
  });
});

describe('call sites', () => {
  for (const client of CLIENTS) {
    for (const pattern of PATTERNS) {
      test(`${client.id} ${pattern}: at most 8 lines, import included, no Lua, tabstops on key, TTL and body`, () => {
        const site = renderCallSite(client.id, pattern, {}, { helperImport: DEFAULT_HELPER_IMPORT[client.id] });
        assert.ok(callSiteLines(site) <= 8, `${callSiteLines(site)} lines:\n${site.imports.join('\n')}\n${site.code}`);
        assert.doesNotMatch(site.code, /redis\.call|@script|[«»]/);
        assert.ok(site.code.includes(client.quote('lock:{order:42}')));
        assert.equal(site.code.includes(client.quote('fence:{order:42}')), pattern === 'fenced');
        const { body } = renderCallSiteSnippet(client.id, pattern, { helperImport: DEFAULT_HELPER_IMPORT[client.id] });
        const escape = (text: string) => text.replace(/[$}\\]/g, '\\$&');
        assert.ok(body.includes(`\${1:${escape(client.quote('lock:{order:42}'))}}`), 'key is tabstop 1');
        // Go, C# and Rust call sites take their lease as a duration, as code in those languages writes it.
        const lease = { go: '10*time.Second', cs: 'TimeSpan.FromSeconds(10)', rs: 'Duration::from_secs(10)' };
        assert.ok(
          body.includes(`\${2:${lease[client.extension as keyof typeof lease] ?? '10000'}}`),
          'TTL is tabstop 2',
        );
        assert.ok(body.includes(`:${escape(client.defaultBody)}}`), 'body is a tabstop');
        const literal = body.replace(/\$\{\d+:(?:[^}\\]|\\.)*\}/g, '').replace(/\\./g, '');
        assert.doesNotMatch(literal, /[$}]/, 'snippet syntax escaped outside tabstops');
      });
    }
  }

  test("the user's values and client expression fill the slots, multi-line bodies indented", () => {
    const site = renderCallSite(
      'redis-py',
      'guard',
      { key: 'f"lock:{job}"', ttl: '30_000', body: 'first()\nsecond()', client: 'self.redis' },
      { helperImport: 'app.locksmith' },
    );
    assert.deepEqual(site, {
      imports: ['from app.locksmith import lock'],
      code: 'with lock(self.redis, f"lock:{job}", ttl_ms=30_000):\n    first()\n    second()\n',
    });
  });

  test('imports follow the language and the JavaScript flavor', () => {
    const imports = (client: string, helperImport: string, flavor?: 'cjs') =>
      renderCallSite(client, 'guard', {}, { helperImport, flavor }).imports;
    assert.deepEqual(imports('ioredis', './lib/locksmith'), ["import { withLock } from './lib/locksmith';"]);
    assert.deepEqual(imports('node-redis', './locksmith', 'cjs'), ["const { withLock } = require('./locksmith');"]);
    assert.deepEqual(imports('jedis', 'com.example.locks'), ['import com.example.locks.Locksmith;']);
    assert.deepEqual(imports('lettuce', ''), []);
    assert.deepEqual(imports('spring-data-redis', 'com.example.locks'), ['import com.example.locks.Locksmith;']);
    assert.deepEqual(imports('redigo', 'example.com/app/internal/locksmith'), [
      'import "example.com/app/internal/locksmith"',
    ]);
    assert.deepEqual(imports('stackexchange', 'App.Locks'), ['using App.Locks;']);
    assert.deepEqual(imports('phpredis', '../lib/Locksmith.php'), ["require_once __DIR__ . '/../lib/Locksmith.php';"]);
    assert.deepEqual(imports('predis', 'App\\Locks\\Locksmith'), ['use App\\Locks\\Locksmith;']);
    assert.deepEqual(imports('redis-rb', '../lib/locksmith'), ["require_relative '../lib/locksmith'"]);
    assert.deepEqual(imports('redis-rs', 'crate::locksmith'), [
      'use crate::locksmith::Lease;',
      'use std::time::Duration;',
    ]);
    assert.throws(() => imports('ioredis', "x'; evil()"), { message: /has a quote, backslash or newline/ });
  });
});

describe('helper placements', () => {
  const manifests = [
    { path: 'package.json', text: '{ "type": "module" }' },
    { path: 'svc/go.mod', text: 'module example.com/svc\n\ngo 1.21\n' },
    { path: 'crate/Cargo.toml', text: '[package]\nname = "x"\n' },
    { path: 'Gemfile', text: "gem 'redis'\n" },
  ];
  const place = (client: string, path: string, text = '') =>
    proposeHelperPlacements(client, { file: { path, text }, manifests });

  test('JavaScript and TypeScript: src/lib/ under src, else next to the file, in the file flavor', () => {
    assert.deepEqual(
      place('ioredis', 'src/jobs/report.ts').map((p) => [p.path, p.helperImport, p.flavor]),
      [
        ['src/lib/locksmith.ts', '../lib/locksmith', 'ts'],
        ['src/jobs/locksmith.ts', './locksmith', 'ts'],
      ],
    );
    assert.deepEqual(
      place('node-redis', 'scripts/job.js').map((p) => [p.path, p.helperImport, p.options.flavor]),
      [['scripts/locksmith.js', './locksmith.js', 'esm']],
    );
  });

  test('Go: package locksmith under the module internal/, imported by module path', () => {
    assert.deepEqual(
      place('go-redis', 'svc/cmd/worker/main.go').map((p) => [p.path, p.helperImport]),
      [['svc/internal/locksmith/locksmith.go', 'example.com/svc/internal/locksmith']],
    );
    assert.deepEqual(place('redigo', 'elsewhere/main.go'), [], 'no go.mod: no proposal');
  });

  test('Java and C#: next to the file, in its package or namespace', () => {
    const [java] = place('jedis', 'src/main/java/com/acme/Job.java', 'package com.acme;\n');
    assert.deepEqual(
      [java.path, java.options, java.helperImport],
      ['src/main/java/com/acme/Locksmith.java', { package: 'com.acme' }, ''],
    );
    const [cs] = place('stackexchange', 'Jobs/Report.cs', 'namespace Acme.Jobs;\n');
    assert.deepEqual(
      [cs.path, cs.options, cs.helperImport],
      ['Jobs/RedisLock.cs', { namespace: 'Acme.Jobs' }, 'Acme.Jobs'],
    );
  });

  test('Python, PHP, Ruby and Rust', () => {
    assert.deepEqual(place('redis-py', 'app/jobs/report.py')[0].path, 'app/jobs/locksmith.py');
    assert.deepEqual(place('phpredis', 'web/job.php')[0].helperImport, 'Locksmith.php');
    assert.deepEqual(
      place('redis-rb', 'app/jobs/report.rb').map((p) => [p.path, p.helperImport]),
      [
        ['lib/locksmith.rb', '../../lib/locksmith'],
        ['app/jobs/locksmith.rb', 'locksmith'],
      ],
    );
    const [rust] = place('redis-rs', 'crate/src/bin/job.rs');
    assert.deepEqual(
      [rust.path, rust.helperImport, rust.also],
      ['crate/src/locksmith.rs', 'crate::locksmith', 'declare it in crate/src/main.rs or lib.rs: mod locksmith;'],
    );
  });
});

describe('npm run helper', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'snippets/helper-cli.ts', ...args], { encoding: 'utf8' });

  test('prints the module, its file name on stderr', () => {
    const result = cli('redis-py');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, renderHelper('redis-py', pack).text);
    assert.equal(result.stderr, '(locksmith.py)\n');
    assert.equal(cli('ioredis', '--flavor', 'cjs').stdout, renderHelper('ioredis', pack, { flavor: 'cjs' }).text);
  });

  test('an unknown client or option: a message and exit 2', () => {
    assert.deepEqual([cli('jedi').status, cli('jedi').stderr.split(';')[0]], [2, "unknown client 'jedi'"]);
    const bad = cli('redis-rb', '--flavor', 'ts');
    assert.deepEqual([bad.status, bad.stderr], [2, "the redis-rb helper has no option 'flavor'; its options: kinds\n"]);
    assert.match(cli().stderr, /^usage: npm run helper -- <client>/);
  });
});

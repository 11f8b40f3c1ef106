// The pack module: headers parsed into descriptors, malformed headers rejected, luacheck clean.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { defaultPackDir, loadPack, PackError, parseReplyShape, parseScript, SCRIPT_NAMES } from '../pack/pack';
import { checkedReply, ScriptReplyError } from '../pack/replies';

const ROOT = join(__dirname, '..');

describe('loadPack', () => {
  const pack = loadPack();

  test('finds scripts-lua/ from the sources', () => {
    assert.equal(defaultPackDir(), join(ROOT, 'scripts-lua'));
  });

  test('every .lua file in scripts-lua/ is in the pack', () => {
    const files = readdirSync(join(ROOT, 'scripts-lua')).filter((file) => file.endsWith('.lua'));
    assert.deepEqual(files.map((file) => file.replace(/\.lua$/, '')).sort(), [...SCRIPT_NAMES].sort());
  });

  test('the headers state the contract: KEYS and ARGV with name and format', () => {
    const shape = (name: (typeof SCRIPT_NAMES)[number]) => ({
      keys: pack[name].keys.map((key) => `${key.name}:${key.required ? 'required' : 'optional'}`),
      args: pack[name].args.map((arg) => `${arg.name}:${arg.format}`),
    });
    assert.deepEqual(shape('acquire'), {
      keys: ['lock:required', 'fence:optional'],
      args: ['token:token', 'ttl_ms:ms'],
    });
    assert.deepEqual(shape('release'), { keys: ['lock:required', 'waiters:optional'], args: ['token:token'] });
    assert.deepEqual(shape('acquire_queued'), {
      keys: ['lock:required', 'waiters:required', 'fence:optional'],
      args: ['token:token', 'ttl_ms:ms', 'queue_ms:ms'],
    });
    assert.deepEqual(shape('write_acquire'), {
      keys: ['lock:required'],
      args: ['token:token', 'ttl_ms:ms', 'wait_ms:ms'],
    });
    assert.deepEqual(shape('semaphore_acquire'), {
      keys: ['semaphore:required'],
      args: ['token:token', 'ttl_ms:ms', 'permits:count'],
    });
    assert.deepEqual(shape('extend'), { keys: ['lock:required'], args: ['token:token', 'ttl_ms:ms'] });
  });

  test('every script documents reply 0 as "not held", and its errors', () => {
    for (const name of SCRIPT_NAMES) {
      const zero = pack[name].replies.find((reply) => reply.value === '0' || reply.value.startsWith('{0,'));
      assert.ok(zero, `${name} documents reply 0`);
      assert.ok(
        pack[name].errors.some((error) => error.prefix === 'ERR'),
        `${name} documents ERR`,
      );
      assert.ok(pack[name].summary.length > 20);
      for (const spec of [...pack[name].keys, ...pack[name].args, ...pack[name].replies]) {
        assert.ok(spec.meaning.length > 5, `${name}: every entry has a meaning`);
      }
    }
  });

  test('every script that frees a lock, and only those, declares its wake-up on the lock key', () => {
    const signalling = SCRIPT_NAMES.filter((name) => pack[name].signals.length > 0);
    assert.deepEqual(signalling, [
      'release',
      'reentrant_release',
      'rw_release',
      'semaphore_release',
      'queue_release',
      'multi_release',
    ]);
    for (const name of signalling) {
      assert.equal(pack[name].signals[0].key, pack[name].keys[0].name);
      assert.match(pack[name].source, /redis\.pcall\('SPUBLISH', (lock|semaphore), /);
    }
  });

  test('descriptor SHA1 is over the exact file text', () => {
    const source = readFileSync(join(ROOT, 'scripts-lua', 'release.lua'), 'utf8');
    assert.equal(pack.release.source, source);
    assert.match(pack.release.sha1, /^[0-9a-f]{40}$/);
  });

  test('sources embed verbatim in raw string literals (Go, JS, Python, Rust): no backslash or backtick', () => {
    for (const name of SCRIPT_NAMES) assert.doesNotMatch(pack[name].source, /[\\`]/, name);
  });

  test('a folder without the pack gets a clear error', () => {
    assert.throws(() => defaultPackDir('/'), /no scripts-lua\/ folder found above \//);
  });
});

describe('reply shapes', () => {
  test('integers stand for themselves, N for 1 or more, W for 0 or more, P for ms left or -1', () => {
    assert.deepEqual(parseReplyShape('0'), { min: 0, max: 0 });
    assert.deepEqual(parseReplyShape('N'), { min: 1, max: Number.MAX_SAFE_INTEGER });
    assert.deepEqual(parseReplyShape('{0,P,W}'), [
      { min: 0, max: 0 },
      { min: -1, max: Number.MAX_SAFE_INTEGER },
      { min: 0, max: Number.MAX_SAFE_INTEGER },
    ]);
    assert.equal(parseReplyShape('M'), undefined);
  });

  test('checkedReply passes declared replies and names the script and the reply for any other', () => {
    const pack = loadPack();
    assert.equal(checkedReply(pack.reentrant_acquire, 1), 1, 'N includes 1 (a first take)');
    assert.deepEqual(checkedReply(pack.acquire_queued, [0, -1, 3]), [0, -1, 3]);
    for (const [script, reply, shown] of [
      ['extend', 2, '2'],
      ['extend', 'OK', '"OK"'],
      ['acquire', -1, '-1'],
      ['acquire_queued', [0, -2, 1], '[0, -2, 1]'],
      ['acquire_queued', [1, 0], '[1, 0]'],
      ['release', null, 'null'],
    ] as const) {
      assert.throws(
        () => checkedReply(pack[script], reply),
        (error: Error) => {
          assert.ok(error instanceof ScriptReplyError);
          assert.equal(error.script, script);
          assert.ok(
            error.message.startsWith(`${script}.lua replied ${shown}, which is none of the replies`),
            error.message,
          );
          return true;
        },
      );
    }
  });
});

describe('parseScript rejects malformed headers with file and line', () => {
  const header = (...lines: string[]) => [...lines, '', 'return 0', ''].join('\n');
  const good = ['-- @script demo', '-- @summary A script for the parser tests.', '-- @key lock required The lock key.'];
  const cases: [string, string, RegExp][] = [
    ['unknown tag', header(...good, '-- @flavour vanilla'), /demo\.lua:4: unknown header tag @flavour/],
    ['key kind', header(...good, '-- @key fence maybe x'), /demo\.lua:4: @key fence must be 'required' or 'optional'/],
    [
      'arg format',
      header(...good, '-- @arg ttl float x'),
      /demo\.lua:4: @arg ttl has format 'float'; use one of token, ms, count, integer, ticket, flag/,
    ],
    [
      'signal on no key',
      header(...good, '-- @signal queue x'),
      /demo\.lua:4: @signal names key 'queue', which no @key/,
    ],
    ['not a tag', header(...good, '-- just a comment'), /demo\.lua:4: header line must read '-- @tag value'/],
    ['name mismatch', header('-- @script other', ...good.slice(1)), /@script is 'other' but the file is demo\.lua/],
    ['no summary', header(good[0], good[2]), /demo\.lua: header has no @summary/],
    ['no key', header(good[0], good[1]), /demo\.lua: header has no @key/],
    [
      'reply value',
      header(...good, '-- @reply X Something.'),
      /demo\.lua:4: @reply 'X' is not an integer, one of N, W, P, T or an array/,
    ],
    [
      'a key after one that takes every key left',
      header(...good.slice(0, 2), '-- @key locks... required x', '-- @key fence optional y'),
      /demo\.lua:4: key fence follows locks\.\.\., which takes every key left/,
    ],
    ['nested array reply', header(...good, '-- @reply {0,{1}} Nested.'), /demo\.lua:4: @reply '\{0,\{1\}\}'/],
    [
      'required after optional',
      header(good[0], good[1], '-- @key fence optional x', '-- @key lock required y'),
      /demo\.lua:4: required key lock follows an optional key/,
    ],
  ];
  for (const [label, source, message] of cases) {
    test(label, () => {
      assert.throws(
        () => parseScript('/pack/demo.lua', source),
        (error: Error) => {
          assert.ok(error instanceof PackError);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  test('a well-formed header parses', () => {
    const script = parseScript(
      '/pack/demo.lua',
      header(...good, '-- @arg token token The owner.', '-- @reply 0 Not held.'),
    );
    assert.deepEqual(script.keys, [{ name: 'lock', required: true, meaning: 'The lock key.' }]);
    assert.deepEqual(script.args, [{ name: 'token', format: 'token', meaning: 'The owner.' }]);
    assert.deepEqual(script.replies, [{ value: '0', meaning: 'Not held.', shape: { min: 0, max: 0 } }]);
    const signalled = parseScript(
      '/pack/demo.lua',
      header(...good, '-- @arg n count Permits.', '-- @reply 0 Not held.', '-- @signal lock Wakes.'),
    );
    assert.deepEqual(signalled.signals, [{ key: 'lock', meaning: 'Wakes.' }]);
    assert.deepEqual(signalled.args, [{ name: 'n', format: 'count', meaning: 'Permits.' }]);
  });
});

test('luacheck runs clean on the pack', () => {
  const result = spawnSync('luacheck', ['--no-color', '--config', 'scripts-lua/.luacheckrc', 'scripts-lua'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.ok(!result.error, 'luacheck is not on PATH; install it with: sudo apt-get install -y lua-check');
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, new RegExp(`Total: 0 warnings / 0 errors in ${SCRIPT_NAMES.length} files`));
});

test('the Lua text lives only in scripts-lua/', () => {
  // A Redis call from Lua on KEYS or ARGV (redis.call, then a command name, then KEYS[n]).
  // The lint fixtures and the lint benchmark's corpus are user code the linter reads, not the product's scripts.
  const USER_CODE = [join(ROOT, 'test', 'fixtures'), join(ROOT, 'bench', 'lint-corpus.ts')];
  const LUA_CALL = /redis\.p?call\(\s*['"][A-Za-z]+['"]\s*,\s*(KEYS|ARGV)\[/;
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        // Dot folders hold no product code: .git, and what other test files write while this one
        // runs beside them (.test-artifacts, .build, the packaging locks), which may go mid-walk.
        if (
          !['node_modules', 'out', 'scripts-lua'].includes(entry.name) &&
          !entry.name.startsWith('.') &&
          !USER_CODE.includes(path)
        )
          walk(path);
      } else if (
        /\.(ts|js|mjs)$/.test(entry.name) &&
        !USER_CODE.includes(path) &&
        LUA_CALL.test(readFileSync(path, 'utf8'))
      ) {
        offenders.push(path);
      }
    }
  };
  walk(ROOT);
  assert.deepEqual(offenders, []);
});

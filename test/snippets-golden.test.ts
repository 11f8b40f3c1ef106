// Golden files for the snippets of the clients whose library this machine cannot run from the
// internet (jedis, lettuce, go-redis, stackexchange, predis, redis-rs): renderCode(client,
// pattern) must equal test/golden/<client>/<pattern>.<ext> byte for byte, so any change to a
// template or to the pack shows up as a diff someone reviewed. Each embedded Lua literal, read
// back by its language's raw-string rules, must be the pack's script. Where Debian packages a
// compiler, the snippets are compiled too (against small stubs of the client's API where the
// library itself is not packaged); Predis, which Debian packages, runs against a throwaway Redis.
// A check whose tool is missing is skipped with the apt package to install.
//
// After changing a template or the pack, regenerate the goldens deliberately and read the diff:
//   UPDATE_GOLDEN=1 node --import tsx --test test/snippets-golden.test.ts
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { loadPack, type ScriptName } from '../pack/pack';
import { findClient, renderCode } from '../snippets/render';
import { PATTERNS, type PatternId } from '../snippets/patterns';
import { useRedis } from './helpers';
import { indent } from './proofs/proof';

const run = promisify(execFile);
const pack = loadPack();
const GOLDEN_CLIENTS = ['jedis', 'lettuce', 'go-redis', 'stackexchange', 'predis', 'redis-rs'];
const SCRIPTS_USED: Record<PatternId, ScriptName[]> = {
  guard: ['acquire', 'release'],
  renew: ['acquire', 'extend', 'release'],
  fenced: ['acquire', 'release'],
};
const GOLDEN_DIR = join(__dirname, 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const REGENERATE = 'UPDATE_GOLDEN=1 node --import tsx --test test/snippets-golden.test.ts';

const goldenPath = (client: string, pattern: PatternId) =>
  join(GOLDEN_DIR, client, `${pattern}.${findClient(client).extension}`);

/** The first region where the two texts differ, with two lines of context: `-` golden, `+` rendered. */
function lineDiff(golden: string, rendered: string): string {
  const before = golden.split('\n');
  const now = rendered.split('\n');
  let start = 0;
  while (start < before.length && start < now.length && before[start] === now[start]) start++;
  let endBefore = before.length;
  let endNow = now.length;
  while (endBefore > start && endNow > start && before[endBefore - 1] === now[endNow - 1]) {
    endBefore--;
    endNow--;
  }
  const SHOWN = 12;
  const side = (sign: string, lines: string[]) => [
    ...lines.slice(0, SHOWN).map((line) => `${sign} ${line}`),
    ...(lines.length > SHOWN ? [`${sign} ... ${lines.length - SHOWN} more lines`] : []),
  ];
  return [
    `@@ line ${start + 1} @@`,
    ...before.slice(Math.max(0, start - 2), start).map((line) => `  ${line}`),
    ...side('-', before.slice(start, endBefore)),
    ...side('+', now.slice(start, endNow)),
    ...before.slice(endBefore, endBefore + 2).map((line) => `  ${line}`),
  ].join('\n');
}

describe('golden files', () => {
  for (const client of GOLDEN_CLIENTS) {
    for (const pattern of PATTERNS) {
      test(`${client} ${pattern}: renders exactly its golden file`, () => {
        const code = renderCode(client, pattern, pack);
        const path = goldenPath(client, pattern);
        if (UPDATE) {
          mkdirSync(join(GOLDEN_DIR, client), { recursive: true });
          writeFileSync(path, code);
          return;
        }
        const shown = relative(process.cwd(), path);
        assert.ok(existsSync(path), `${shown} is missing; write it with ${REGENERATE}`);
        const golden = readFileSync(path, 'utf8');
        if (golden !== code) {
          assert.fail(
            `${shown} differs from renderCode('${client}', '${pattern}') (- golden, + rendered):\n` +
              `${lineDiff(golden, code)}\nIf the change is intended, regenerate with ${REGENERATE} and review the diff.`,
          );
        }
      });
    }
  }

  test('every golden file belongs to one of those clients and patterns', () => {
    const expected = GOLDEN_CLIENTS.flatMap((client) => PATTERNS.map((pattern) => goldenPath(client, pattern)));
    const found = readdirSync(GOLDEN_DIR, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
    assert.deepEqual(
      found.filter((path) => !expected.includes(path)),
      [],
    );
  });
});

// Each language's raw-string literal, decoded as its compiler reads it. A trailing newline is the
// literal's syntax, not the script's (Java's closing """ on its own line keeps it, the others drop
// it), so the scripts compare without it.

/** Removes `indent` from the start of every line, as C# and PHP do for the closing line's indentation. */
function dedent(lines: string[], indent: string): string[] {
  return lines.map((line) => {
    if (line.trim() === '') return '';
    assert.ok(line.startsWith(indent), `line not indented like the closing delimiter: ${JSON.stringify(line)}`);
    return line.slice(indent.length);
  });
}

/** Java text blocks: incidental indentation (closing line included) and trailing spaces are stripped. */
function javaTextBlocks(code: string): string[] {
  return [...code.matchAll(/"""[ \t]*\n([\s\S]*?)"""/g)].map(([, content]) => {
    assert.doesNotMatch(content, /\\/, 'text block without escapes');
    const lines = content.split('\n');
    const significant = lines.filter((line, index) => line.trim() !== '' || index === lines.length - 1);
    const incidental = Math.min(...significant.map((line) => /^[ \t]*/.exec(line)![0].length));
    return lines.map((line) => line.slice(incidental).replace(/[ \t]+$/, '')).join('\n');
  });
}

/** C# raw string literals: the closing line's indentation comes off every line; no final newline. */
function csharpRawStrings(code: string): string[] {
  return [...code.matchAll(/"""[ \t]*\n([\s\S]*?)\n([ \t]*)"""/g)].map(([, content, indent]) =>
    dedent(content.split('\n'), indent).join('\n'),
  );
}

/** PHP nowdocs (7.3+): the closing marker's indentation comes off every line; no final newline. */
function phpNowdocs(code: string): string[] {
  return [...code.matchAll(/<<<'(\w+)'\n([\s\S]*?)\n([ \t]*)\1\b/g)].map(([, , content, indent]) =>
    dedent(content.split('\n'), indent).join('\n'),
  );
}

/** Go raw strings, verbatim; whole-line comments are skipped, since their `names` are not literals. */
function goRawStrings(code: string): string[] {
  const withoutComments = code.replace(/^[ \t]*\/\/.*$/gm, '');
  return [...withoutComments.matchAll(/`([^`]*)`/g)].map(([, content]) => content);
}

/** Rust raw strings r#"..."#, verbatim. */
function rustRawStrings(code: string): string[] {
  return [...code.matchAll(/r#"([\s\S]*?)"#/g)].map(([, content]) => content);
}

const LITERALS: Record<string, (code: string) => string[]> = {
  java: javaTextBlocks,
  cs: csharpRawStrings,
  php: phpNowdocs,
  go: goRawStrings,
  rs: rustRawStrings,
};

/** The scripts among the code's raw-string literals, by the name in their `-- @script` header line. */
function embeddedScripts(clientId: string, code: string): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const literal of LITERALS[findClient(clientId).extension](code)) {
    const name = /^-- @script (\w+)\n/.exec(literal)?.[1];
    if (name) scripts.set(name, literal);
  }
  return scripts;
}

describe('embedded Lua equals the pack', () => {
  for (const client of GOLDEN_CLIENTS) {
    for (const pattern of PATTERNS) {
      test(`${client} ${pattern}: each raw-string literal holds a pack script exactly`, () => {
        const scripts = embeddedScripts(client, renderCode(client, pattern, pack));
        assert.deepEqual([...scripts.keys()].sort(), [...SCRIPTS_USED[pattern]].sort());
        for (const [name, literal] of scripts) {
          assert.equal(literal.replace(/\n$/, ''), pack[name as ScriptName].source.replace(/\n$/, ''), name);
        }
      });
    }
  }

  // VS Code indents every line of a snippet inserted in an indented block: text blocks, raw string
  // literals and nowdocs strip that indentation again, so the script stays byte for byte the pack's.
  for (const client of GOLDEN_CLIENTS.filter((id) => ['java', 'cs', 'php'].includes(findClient(id).extension))) {
    test(`${client}: the scripts survive the snippet being inserted indented`, () => {
      const scripts = embeddedScripts(client, indent(renderCode(client, 'renew', pack), '        '));
      assert.deepEqual([...scripts.keys()].sort(), [...SCRIPTS_USED.renew].sort());
      for (const [name, literal] of scripts) {
        assert.equal(literal.replace(/\n$/, ''), pack[name as ScriptName].source.replace(/\n$/, ''), name);
      }
    });
  }
});

// Compile checks, as far as Debian's packages go. Jedis, Lettuce, go-redis v9, StackExchange.Redis
// and redis-rs are not packaged, so Java and Rust compile against stubs that declare just the API
// the snippets call, with the libraries' own signatures: that catches everything but a wrong
// signature in the stub itself.
const work = mkdtempSync(join(tmpdir(), 'locksmith-golden-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Why a check cannot run here (naming the Debian package to install), or false when it can. */
const missing = (path: string, aptPackage: string): string | false =>
  existsSync(path) ? false : `${path} is missing: apt-get install ${aptPackage}`;

/** Runs a command; on failure, an assertion error with its output. */
async function check(command: string, args: string[], options: { cwd?: string } = {}): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: 120_000, ...options });
    return stdout + stderr;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

/** The list after "Imports:" in a snippet's header comment, so the check also proves that list. */
function headerImports(code: string): string[] {
  const header = /^(?:\/\/.*\n)+/
    .exec(code)![0]
    .replace(/^\/\/ ?/gm, '')
    .replace(/\n/g, ' ');
  return /Imports: (.*?)\.(?:\s|$)/.exec(header)![1].split(/,\s*/);
}

const writeFiles = (root: string, files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
};

const UNSUPPORTED = '{ throw new UnsupportedOperationException(); }';
const JAVA_STUBS: Record<string, string> = {
  'redis/clients/jedis/Jedis.java': `package redis.clients.jedis;
import java.util.List;
public class Jedis implements java.io.Closeable {
    public String scriptLoad(String script) ${UNSUPPORTED}
    public Object evalsha(String sha1, List<String> keys, List<String> args) ${UNSUPPORTED}
    public Object eval(String script, List<String> keys, List<String> args) ${UNSUPPORTED}
    @Override public void close() {}
}
`,
  'redis/clients/jedis/JedisPool.java': `package redis.clients.jedis;
public class JedisPool {
    public Jedis getResource() ${UNSUPPORTED}
}
`,
  'redis/clients/jedis/exceptions/JedisException.java':
    'package redis.clients.jedis.exceptions;\npublic class JedisException extends RuntimeException {}\n',
  'redis/clients/jedis/exceptions/JedisDataException.java':
    'package redis.clients.jedis.exceptions;\npublic class JedisDataException extends JedisException {}\n',
  'redis/clients/jedis/exceptions/JedisNoScriptException.java':
    'package redis.clients.jedis.exceptions;\npublic class JedisNoScriptException extends JedisDataException {}\n',
  'io/lettuce/core/ScriptOutputType.java':
    'package io.lettuce.core;\npublic enum ScriptOutputType { BOOLEAN, INTEGER, MULTI, STATUS, VALUE }\n',
  'io/lettuce/core/RedisException.java':
    'package io.lettuce.core;\npublic class RedisException extends RuntimeException {}\n',
  'io/lettuce/core/RedisCommandExecutionException.java':
    'package io.lettuce.core;\npublic class RedisCommandExecutionException extends RedisException {}\n',
  'io/lettuce/core/RedisNoScriptException.java':
    'package io.lettuce.core;\npublic class RedisNoScriptException extends RedisCommandExecutionException {}\n',
  // Lettuce's RedisScriptingCommands, overloads included: the snippets must pick the right one.
  'io/lettuce/core/api/sync/RedisCommands.java': `package io.lettuce.core.api.sync;
import io.lettuce.core.ScriptOutputType;
@SuppressWarnings("unchecked") // generic varargs, as in Lettuce
public interface RedisCommands<K, V> {
    <T> T eval(String script, ScriptOutputType type, K... keys);
    <T> T eval(String script, ScriptOutputType type, K[] keys, V... values);
    <T> T evalsha(String digest, ScriptOutputType type, K... keys);
    <T> T evalsha(String digest, ScriptOutputType type, K[] keys, V... values);
    String digest(String script);
}
`,
};

/** The client variable each Java snippet assumes, declared as the wrapping method's parameter. */
const JAVA_CLIENT: Record<string, { imports: string[]; parameter: string }> = {
  jedis: { imports: ['redis.clients.jedis.JedisPool'], parameter: 'JedisPool pool' },
  lettuce: { imports: ['io.lettuce.core.api.sync.RedisCommands'], parameter: 'RedisCommands<String, String> redis' },
};

// Predis runs the snippets like test/proofs/: two processes around a non-atomic counter (with a
// SCRIPT FLUSH after every round, so the NOSCRIPT fallback runs too), a body that renews past 3x
// the TTL, and fencing tokens that strictly increase.
const PREDIS = '/usr/share/php/Predis/autoload.php';
const PREDIS_BODIES: Record<PatternId, string> = {
  guard: `if ($client->incr('proof:occupancy') !== 1) {
    throw new RuntimeException('two holders at once');
}
$client->set('proof:counter', (int) $client->get('proof:counter') + 1);
$client->decr('proof:occupancy');`,
  renew: `for ($step = 0; $step < 10; $step++) {
    usleep(100_000);
    if (!$lockRenew()) {
        throw new RuntimeException('renewal reported a loss');
    }
    if ($client->get($lockKey) !== $lockToken) {
        throw new RuntimeException('lease lost while renewing');
    }
}
$client->incr('proof:renewed');`,
  fenced: `$client->rpush('proof:tokens', [$fencingToken]);`,
};
const PREDIS_AFTER: Record<PatternId, string> = {
  guard: `$client->script('FLUSH');`,
  renew: `$client->set($lockKey, $lockToken);
usleep(3 * $lockTtlMs * 1000);
if ($client->pttl($lockKey) !== -1) {
    throw new RuntimeException('still renewing after release');
}
$client->del([$lockKey]);`,
  fenced: '',
};

function predisProgram(pattern: PatternId, ttl: number): string {
  const { quote } = findClient('predis');
  const snippet = renderCode('predis', pattern, pack, {
    key: quote('proof:lock'),
    fence: quote('proof:fence'),
    ttl: String(ttl),
    body: PREDIS_BODIES[pattern],
  });
  const path = join(work, `predis-${pattern}.php`);
  writeFileSync(
    path,
    `<?php
require '${PREDIS}';
$client = new Predis\\Client($argv[1]);
for ($round = 0; $round < (int) $argv[2]; $round++) {
${indent(snippet, '    ')}
${indent(PREDIS_AFTER[pattern], '    ')}
}
`,
  );
  return path;
}

const GO_WRAPPER = (code: string) => `package locked

func locked() error {
${indent(code, '\t')}
	return nil
}
`;

const RUST_STUBS = {
  redis: `use std::fmt;
#[derive(Debug)]
pub struct RedisError;
impl fmt::Display for RedisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str("stub") }
}
impl std::error::Error for RedisError {}
pub type RedisResult<T> = Result<T, RedisError>;
pub trait ToRedisArgs {}
impl ToRedisArgs for str {}
impl ToRedisArgs for String {}
impl ToRedisArgs for u64 {}
impl ToRedisArgs for i64 {}
impl<T: ToRedisArgs + ?Sized> ToRedisArgs for &T {}
pub trait FromRedisValue: Sized {}
impl FromRedisValue for i64 {}
pub trait ConnectionLike {}
pub struct Connection;
impl ConnectionLike for Connection {}
pub struct Client;
impl Client {
    pub fn get_connection(&self) -> RedisResult<Connection> { unimplemented!() }
}
#[derive(Clone)]
pub struct Script { code: String }
impl Script {
    pub fn new(code: &str) -> Script { Script { code: code.to_owned() } }
    pub fn key<T: ToRedisArgs>(&self, _key: T) -> ScriptInvocation<'_> { ScriptInvocation { script: self } }
}
pub struct ScriptInvocation<'a> { script: &'a Script }
impl<'a> ScriptInvocation<'a> {
    pub fn arg<'b, T: ToRedisArgs>(&'b mut self, _arg: T) -> &'b mut ScriptInvocation<'a> where 'a: 'b { self }
    pub fn key<'b, T: ToRedisArgs>(&'b mut self, _key: T) -> &'b mut ScriptInvocation<'a> where 'a: 'b { self }
    pub fn invoke<T: FromRedisValue>(&self, _con: &mut dyn ConnectionLike) -> RedisResult<T> {
        let _ = &self.script.code;
        unimplemented!()
    }
}
`,
  rand: `pub trait Standard: Sized { fn sample() -> Self; }
impl Standard for u64 { fn sample() -> Self { 4 } }
impl Standard for f64 { fn sample() -> Self { 0.5 } }
pub fn random<T: Standard>() -> T { T::sample() }
`,
};

describe('compile checks', () => {
  for (const client of ['jedis', 'lettuce']) {
    test(
      `${client}: every pattern compiles with javac (Java 17) against a stub of the library`,
      { skip: missing('/usr/bin/javac', 'openjdk-17-jdk-headless') },
      async () => {
        const dir = join(work, client);
        writeFiles(dir, JAVA_STUBS);
        const { imports, parameter } = JAVA_CLIENT[client];
        for (const pattern of PATTERNS) {
          const code = renderCode(client, pattern, pack);
          const className = `Locked${pattern[0].toUpperCase()}${pattern.slice(1)}`;
          writeFiles(dir, {
            [`${className}.java`]: `${[...headerImports(code), ...imports].map((name) => `import ${name};\n`).join('')}
class ${className} {
    static void locked(${parameter}) throws InterruptedException {
${indent(code, '        ')}
    }
}
`,
          });
        }
        const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) =>
          path.endsWith('.java'),
        );
        await check('/usr/bin/javac', ['-Xlint:all,-serial', '-Werror', '-d', join(dir, 'classes'), ...sources], {
          cwd: dir,
        });
      },
    );
  }

  test('predis: every pattern passes php -l', { skip: missing('/usr/bin/php', 'php-cli') }, async () => {
    for (const pattern of PATTERNS) {
      const path = join(work, `predis-lint-${pattern}.php`);
      writeFileSync(path, `<?php\n${renderCode('predis', pattern, pack)}`);
      await check('/usr/bin/php', ['-l', path]);
    }
  });

  // Debian's Go is 1.19 and the snippets need 1.21 (context.WithCancelCause, WithoutCancel), so
  // Go gets a syntax and formatting check only.
  test(
    'go-redis: every pattern parses and is gofmt-clean',
    { skip: missing('/usr/bin/gofmt', 'golang-go') },
    async () => {
      for (const pattern of PATTERNS) {
        const path = join(work, `go-redis-${pattern}.go`);
        writeFileSync(path, GO_WRAPPER(renderCode('go-redis', pattern, pack)));
        assert.equal(await check('/usr/bin/gofmt', ['-d', '-e', path]), '', `gofmt would change ${pattern}`);
      }
    },
  );

  test(
    'redis-rs: every pattern compiles with rustc against stubs of redis and rand',
    { skip: missing('/usr/bin/rustc', 'rustc') },
    async () => {
      const dir = join(work, 'redis-rs');
      mkdirSync(dir, { recursive: true });
      const externs: string[] = [];
      for (const [crate, source] of Object.entries(RUST_STUBS)) {
        writeFileSync(join(dir, `${crate}.rs`), source);
        await check('/usr/bin/rustc', [
          '--edition',
          '2021',
          '--crate-type',
          'lib',
          '--crate-name',
          crate,
          '--emit',
          'metadata',
          '-o',
          join(dir, `lib${crate}.rmeta`),
          join(dir, `${crate}.rs`),
        ]);
        externs.push('--extern', `${crate}=${join(dir, `lib${crate}.rmeta`)}`);
      }
      for (const pattern of PATTERNS) {
        const path = join(dir, `${pattern}.rs`);
        writeFileSync(
          path,
          `fn locked(client: redis::Client, mut con: redis::Connection) -> Result<(), Box<dyn std::error::Error>> {
${indent(renderCode('redis-rs', pattern, pack), '    ')}
    Ok(())
}

fn main() {}
`,
        );
        // Unused client, con or fencing_token are the body's business; every other warning fails.
        await check('/usr/bin/rustc', [
          '--edition',
          '2021',
          '--emit',
          'metadata',
          '-D',
          'warnings',
          '-A',
          'unused',
          '-o',
          join(dir, `${pattern}.rmeta`),
          ...externs,
          path,
        ]);
      }
    },
  );

  test(
    'stackexchange: not compiled',
    { skip: 'no C# 11 compiler in Debian (mono-mcs stops at C# 7, dotnet is not packaged)' },
    () => {},
  );

  describe(
    'predis against a real Redis',
    { skip: missing(PREDIS, 'php-predis') || missing('/usr/bin/php', 'php-cli') },
    () => {
      const fx = useRedis();
      const runPhp = (path: string, rounds: number) => check('/usr/bin/php', [path, fx.server.url, String(rounds)]);

      test('guard: two processes x 200 rounds around a non-atomic counter end exact, with SCRIPT FLUSH between rounds', async () => {
        await fx.redis.flushall();
        const path = predisProgram('guard', 5000);
        await Promise.all([runPhp(path, 200), runPhp(path, 200)]);
        assert.equal(await fx.redis.get('proof:counter'), '400');
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
      });

      test('renew: the lock outlives 3x its TTL while the body calls $lockRenew, and nothing renews after release', async () => {
        await fx.redis.flushall();
        await runPhp(predisProgram('renew', 300), 1);
        assert.equal(await fx.redis.get('proof:renewed'), '1');
        assert.equal(await fx.redis.exists('proof:lock'), 0);
      });

      test('fenced: tokens strictly increase across two contending processes', async () => {
        await fx.redis.flushall();
        const path = predisProgram('fenced', 5000);
        await Promise.all([runPhp(path, 50), runPhp(path, 50)]);
        const tokens = (await fx.redis.lrange('proof:tokens', 0, -1)).map(Number);
        assert.equal(tokens.length, 100);
        for (let i = 1; i < tokens.length; i++)
          assert.ok(tokens[i] > tokens[i - 1], `token ${tokens[i]} after ${tokens[i - 1]}`);
      });
    },
  );
});

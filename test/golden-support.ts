// What the golden tests share: a readable diff, each language's string literals decoded as its
// compiler reads them (to read the embedded Lua back), running a checker, and small stubs of the
// client libraries Debian does not package, declaring just the API the generated code calls
// with the libraries' own signatures.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { findClient } from '../snippets/render';

const run = promisify(execFile);

/** The clients whose library this machine cannot run: their generated code is pinned by golden files. */
export const GOLDEN_CLIENTS = ['jedis', 'lettuce', 'go-redis', 'stackexchange', 'predis', 'redis-rs'];
export const GOLDEN_DIR = join(__dirname, 'golden');
export const helperGoldenPath = (client: string) => join(GOLDEN_DIR, client, `helper.${findClient(client).extension}`);

/** The absolute path of a tool found on PATH (rustup's rustc, say), or undefined. */
export function onPath(tool: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, tool))
    .find((path) => existsSync(path));
}

export /** The first region where the two texts differ, with two lines of context: `-` golden, `+` rendered. */
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
export function javaTextBlocks(code: string): string[] {
  return [...code.matchAll(/"""[ \t]*\n([\s\S]*?)"""/g)].map(([, content]) => {
    assert.doesNotMatch(content, /\\/, 'text block without escapes');
    const lines = content.split('\n');
    const significant = lines.filter((line, index) => line.trim() !== '' || index === lines.length - 1);
    const incidental = Math.min(...significant.map((line) => /^[ \t]*/.exec(line)![0].length));
    return lines.map((line) => line.slice(incidental).replace(/[ \t]+$/, '')).join('\n');
  });
}

/** C# raw string literals: the closing line's indentation comes off every line; no final newline. */
export function csharpRawStrings(code: string): string[] {
  return [...code.matchAll(/"""[ \t]*\n([\s\S]*?)\n([ \t]*)"""/g)].map(([, content, indent]) =>
    dedent(content.split('\n'), indent).join('\n'),
  );
}

/** PHP nowdocs (7.3+): the closing marker's indentation comes off every line; no final newline. */
export function phpNowdocs(code: string): string[] {
  return [...code.matchAll(/<<<'(\w+)'\n([\s\S]*?)\n([ \t]*)\1\b/g)].map(([, , content, indent]) =>
    dedent(content.split('\n'), indent).join('\n'),
  );
}

/** Go raw strings, verbatim; whole-line comments are skipped, since their `names` are not literals. */
export function goRawStrings(code: string): string[] {
  const withoutComments = code.replace(/^[ \t]*\/\/.*$/gm, '');
  return [...withoutComments.matchAll(/`([^`]*)`/g)].map(([, content]) => content);
}

/** Rust raw strings r#"..."#, verbatim. */
export function rustRawStrings(code: string): string[] {
  return [...code.matchAll(/r#"([\s\S]*?)"#/g)].map(([, content]) => content);
}

export const LITERALS: Record<string, (code: string) => string[]> = {
  js: (code) => jsTemplateLiterals(code),
  py: (code) => pythonTripleQuoted(code),
  rb: (code) => rubySquigglyHeredocs(code),
  java: javaTextBlocks,
  cs: csharpRawStrings,
  php: phpNowdocs,
  go: goRawStrings,
  rs: rustRawStrings,
};

/** The scripts among the code's raw-string literals, by the name in their `-- @script` header line. */
export function embeddedScripts(clientId: string, code: string): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const literal of LITERALS[findClient(clientId).extension](code)) {
    const name = /^-- @script (\w+)\n/.exec(literal)?.[1];
    if (name) scripts.set(name, literal);
  }
  return scripts;
}

/** Why a check cannot run here (naming the Debian package to install), or false when it can. */
export const missing = (path: string, aptPackage: string): string | false =>
  existsSync(path) ? false : `${path} is missing: apt-get install ${aptPackage}`;

/** Runs a command; on failure, an assertion error with its output. */
export async function check(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: 120_000, ...options });
    return stdout + stderr;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

export const writeFiles = (root: string, files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
};

/** A tsconfig.json that type-checks `files` strictly against this repository's ioredis, node-redis and Node types. */
export function strictTsconfig(files: string[]): string {
  return JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      skipLibCheck: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      noImplicitReturns: true,
      noImplicitOverride: true,
      exactOptionalPropertyTypes: true,
      typeRoots: [join(process.cwd(), 'node_modules/@types')],
      types: ['node'],
      paths: {
        ioredis: [join(process.cwd(), 'node_modules/ioredis')],
        redis: [join(process.cwd(), 'node_modules/redis')],
      },
    },
    files,
  });
}

export const UNSUPPORTED = '{ throw new UnsupportedOperationException(); }';
export const JAVA_STUBS: Record<string, string> = {
  'redis/clients/jedis/Jedis.java': `package redis.clients.jedis;
import java.util.List;
public class Jedis implements java.io.Closeable {
    public Connection getConnection() ${UNSUPPORTED}
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
  'redis/clients/jedis/Connection.java': `package redis.clients.jedis;
public class Connection implements java.io.Closeable {
    @Override public void close() {}
}
`,
  // Jedis 4.4+'s sharded subscriptions: ssubscribe blocks until the listener unsubscribes.
  'redis/clients/jedis/JedisShardedPubSub.java': `package redis.clients.jedis;
public abstract class JedisShardedPubSub {
    public void onSMessage(String channel, String message) {}
    public void onSSubscribe(String channel, int subscribedChannels) {}
    public final void sunsubscribe() ${UNSUPPORTED}
    public final boolean isSubscribed() ${UNSUPPORTED}
    public final void proceed(Connection client, String... channels) ${UNSUPPORTED}
}
`,
  'redis/clients/jedis/JedisCluster.java': `package redis.clients.jedis;
public class JedisCluster extends UnifiedJedis {
    public void ssubscribe(JedisShardedPubSub jedisPubSub, String... channels) ${UNSUPPORTED}
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
  // Lettuce's RedisScriptingCommands, overloads included: the code must pick the right one.
  'io/lettuce/core/api/sync/RedisScriptingCommands.java': `package io.lettuce.core.api.sync;
import io.lettuce.core.ScriptOutputType;
@SuppressWarnings("unchecked") // generic varargs, as in Lettuce
public interface RedisScriptingCommands<K, V> {
    <T> T eval(String script, ScriptOutputType type, K... keys);
    <T> T eval(String script, ScriptOutputType type, K[] keys, V... values);
    <T> T evalsha(String digest, ScriptOutputType type, K... keys);
    <T> T evalsha(String digest, ScriptOutputType type, K[] keys, V... values);
    String digest(String script);
}
`,
  'io/lettuce/core/RedisFuture.java': `package io.lettuce.core;
public interface RedisFuture<V> extends java.util.concurrent.CompletionStage<V>, java.util.concurrent.Future<V> {}
`,
  // Lettuce 6.4+'s sharded pub/sub: the adapter's smessage and the async ssubscribe / sunsubscribe.
  'io/lettuce/core/pubsub/RedisPubSubAdapter.java': `package io.lettuce.core.pubsub;
public class RedisPubSubAdapter<K, V> {
    public void smessage(K shardChannel, V message) {}
}
`,
  'io/lettuce/core/pubsub/StatefulRedisPubSubConnection.java': `package io.lettuce.core.pubsub;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
public interface StatefulRedisPubSubConnection<K, V> {
    RedisPubSubAsyncCommands<K, V> async();
    void addListener(RedisPubSubAdapter<K, V> listener);
    void removeListener(RedisPubSubAdapter<K, V> listener);
}
`,
  'io/lettuce/core/pubsub/api/async/RedisPubSubAsyncCommands.java': `package io.lettuce.core.pubsub.api.async;
import io.lettuce.core.RedisFuture;
@SuppressWarnings("unchecked") // generic varargs, as in Lettuce
public interface RedisPubSubAsyncCommands<K, V> {
    RedisFuture<Void> ssubscribe(K... shardChannels);
    RedisFuture<Void> sunsubscribe(K... shardChannels);
}
`,
  'io/lettuce/core/api/sync/RedisCommands.java': `package io.lettuce.core.api.sync;
public interface RedisCommands<K, V> extends RedisScriptingCommands<K, V> {}
`,
  // Jedis 4+'s JedisPooled and JedisCluster share UnifiedJedis's scripting methods.
  'redis/clients/jedis/UnifiedJedis.java': `package redis.clients.jedis;
import java.util.List;
public class UnifiedJedis implements AutoCloseable {
    public Object evalsha(String sha1, List<String> keys, List<String> args) ${UNSUPPORTED}
    public Object eval(String script, List<String> keys, List<String> args) ${UNSUPPORTED}
    @Override public void close() {}
}
`,
};

export const RUST_STUBS = {
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
#[derive(Clone)]
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

/** go-redis v9's scripting API (Script, Scripter, Cmd), as package github.com/redis/go-redis/v9. */
export const GO_REDIS_STUB = `package redis

import "context"

type Cmd struct{}

func (cmd *Cmd) Int64() (int64, error)        { panic("stub") }
func (cmd *Cmd) Int64Slice() ([]int64, error) { panic("stub") }

type BoolSliceCmd struct{}
type StringCmd struct{}
type IntCmd struct{}

type Message struct {
	Channel string
	Payload string
}

type PubSub struct{}

func (c *PubSub) Receive(ctx context.Context) (interface{}, error) { panic("stub") }
func (c *PubSub) Channel() <-chan *Message                        { panic("stub") }
func (c *PubSub) Close() error                                    { panic("stub") }

type Scripter interface {
	Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd
	EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd
	ScriptExists(ctx context.Context, hashes ...string) *BoolSliceCmd
	ScriptLoad(ctx context.Context, script string) *StringCmd
}

type Client struct{}

func (c *Client) Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd {
	panic("stub")
}
func (c *Client) EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd {
	panic("stub")
}
func (c *Client) ScriptExists(ctx context.Context, hashes ...string) *BoolSliceCmd { panic("stub") }
func (c *Client) ScriptLoad(ctx context.Context, script string) *StringCmd        { panic("stub") }
func (c *Client) SSubscribe(ctx context.Context, channels ...string) *PubSub        { panic("stub") }
func (c *Client) ZRem(ctx context.Context, key string, members ...interface{}) *IntCmd {
	panic("stub")
}

type Script struct{ src string }

func NewScript(src string) *Script { return &Script{src: src} }

func (s *Script) Run(ctx context.Context, c Scripter, keys []string, args ...interface{}) *Cmd {
	panic("stub")
}
`;

/** JavaScript template literals, verbatim (the pack has no backtick, backslash or \${). */
export function jsTemplateLiterals(code: string): string[] {
  return [...code.matchAll(/`([^`]*)`/g)].map(([, content]) => content);
}

/** Python triple-quoted strings, verbatim (the pack has no backslash). */
export function pythonTripleQuoted(code: string): string[] {
  return [...code.matchAll(/"""([\s\S]*?)"""/g)].map(([, content]) => content);
}

/** Ruby squiggly heredocs <<~'LUA': the least indentation of the non-blank lines comes off. */
export function rubySquigglyHeredocs(code: string): string[] {
  return [...code.matchAll(/<<~'(\w+)'\n([\s\S]*?)\n[ \t]*\1\n/g)].map(([, , content]) => {
    const lines = content.split('\n');
    const least = Math.min(...lines.filter((line) => line.trim()).map((line) => /^[ \t]*/.exec(line)![0].length));
    return lines.map((line) => line.slice(least)).join('\n');
  });
}

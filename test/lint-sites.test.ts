// lockSites: the acquire sites of a document with their key as a matcher over live keys, for
// "Go to Code That Takes This Lock". Literals stay, holes (interpolations, variables, calls)
// become wildcards, constants of the same file are followed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { lockSites, type LockSite } from '../server/src/analysis';

const FIXTURES = join(__dirname, 'fixtures', 'lint');

/** Each site as `line: keyText -> glob`, lines 1-based. */
function describe(text: string, sites: LockSite[]): string[] {
  return sites.map((site) => `${text.slice(0, site.start).split('\n').length}: ${site.keyText} -> ${site.keyGlob}`);
}

test('JavaScript: template literals, concatenations and module constants', async () => {
  const text = [
    "const Redis = require('ioredis');",
    "const PREFIX = 'lock:invoice:';",
    'const redis = new Redis();',
    'async function a(id, token) {',
    "  await redis.set(`lock:order:${id}`, token, 'PX', 5000, 'NX');",
    "  await redis.set(PREFIX + id, token, 'PX', 5000, 'NX');",
    "  await redis.setnx('lock:nightly', token);",
    '  const key = `jobs:${id}:running`;',
    "  await redis.set(key, token, 'NX', 'EX', 60);",
    "  await redis.set(id, token, 'NX', 'EX', 60);",
    "  await redis.get('lock:order:1');",
    '}',
  ].join('\n');
  const sites = await lockSites('javascript', text);
  assert.deepEqual(describe(text, sites), [
    '5: `lock:order:${id}` -> lock:order:*',
    '6: PREFIX + id -> lock:invoice:*',
    "7: 'lock:nightly' -> lock:nightly",
    '9: key -> jobs:*:running',
    '10: id -> *',
  ]);
  const [order, invoice, nightly, running, any] = sites.map((site) => site.keyPattern);
  assert.ok(order.test('lock:order:42') && !order.test('lock:invoice:42') && !order.test('xlock:order:1'));
  assert.ok(invoice.test('lock:invoice:7'));
  assert.ok(nightly.test('lock:nightly') && !nightly.test('lock:nightly:2'));
  assert.ok(running.test('jobs:export:running') && !running.test('jobs:export'));
  assert.ok(any.test('anything'));
  // The reported range is the acquire call, from its method name.
  assert.match(text.slice(sites[0].start, sites[0].end), /^set\(`lock:order:\$\{id\}`/);
});

test('TypeScript: a fixture with a class field key', async () => {
  const text = readFileSync(join(FIXTURES, 'typescript', 'LOCK004-positive-class-unlock-check.ts'), 'utf8');
  const sites = await lockSites('typescript', text);
  assert.deepEqual(describe(text, sites), ['12: `lock:order:${this.orderId}` -> lock:order:*']);
});

test('Python: f-strings, %-formatting, str.format and constants', async () => {
  const text = [
    'import redis',
    'LOCK_KEY = "lock:reindex"',
    'r = redis.Redis()',
    'def f(name, token):',
    '    r.set(f"lock:{name}:run", token, nx=True, px=1000)',
    '    r.set("lock:%s" % name, token, nx=True, px=1000)',
    '    r.set("lock:{}:x".format(name), token, nx=True, px=1000)',
    '    r.setnx(LOCK_KEY, token)',
    '    r.set(f"cache:{name}", token, ex=10)',
  ].join('\n');
  assert.deepEqual(describe(text, await lockSites('python', text)), [
    '5: f"lock:{name}:run" -> lock:*:run',
    '6: "lock:%s" % name -> lock:*',
    '7: "lock:{}:x".format(name) -> lock:*:x',
    '8: LOCK_KEY -> lock:reindex',
  ]);
});

test('Go: Sprintf, concatenation and package constants; a fixture', async () => {
  const text = [
    'package x',
    'import "github.com/redis/go-redis/v9"',
    'const lockPrefix = "lock:partition:"',
    'func f(rdb *redis.Client, id string) {',
    '\trdb.SetNX(ctx, fmt.Sprintf("lock:user:%d", id), token, ttl)',
    '\trdb.SetNX(ctx, lockPrefix+id, token, ttl)',
    '\trdb.SetArgs(ctx, "lock:"+id+":x", token, redis.SetArgs{Mode: "NX", TTL: ttl})',
    '}',
  ].join('\n');
  assert.deepEqual(describe(text, await lockSites('go', text)), [
    '5: fmt.Sprintf("lock:user:%d", id) -> lock:user:*',
    '6: lockPrefix+id -> lock:partition:*',
    '7: "lock:"+id+":x" -> lock:*:x',
  ]);
  const fixture = readFileSync(join(FIXTURES, 'go', 'LOCK006-positive-token-once-per-process.go'), 'utf8');
  assert.deepEqual(describe(fixture, await lockSites('go', fixture)), [
    '14: "lock:partition:"+partition -> lock:partition:*',
  ]);
});

test('Java: static final constants, concatenation and String.format; a fixture', async () => {
  const text = [
    'import redis.clients.jedis.Jedis;',
    'class A {',
    '  private static final String KEY = "lock:scheduler";',
    '  void f(Jedis jedis, String id) {',
    '    jedis.setnx(KEY, "1");',
    '    jedis.set("lock:order:" + id, token, SetParams.setParams().nx().px(100));',
    '    jedis.set(String.format("lock:%s:run", id), token, SetParams.setParams().nx().px(100));',
    '  }',
    '}',
  ].join('\n');
  assert.deepEqual(describe(text, await lockSites('java', text)), [
    '5: KEY -> lock:scheduler',
    '6: "lock:order:" + id -> lock:order:*',
    '7: String.format("lock:%s:run", id) -> lock:*:run',
  ]);
  const fixture = readFileSync(join(FIXTURES, 'java', 'LOCK003-positive-helper-key-methods.java'), 'utf8');
  assert.deepEqual(describe(fixture, await lockSites('java', fixture)), ['19: getLockKey(orderId) -> orders:*:busy']);
});

test('no sites: other languages, Lua, a file without acquires', async () => {
  assert.deepEqual(await lockSites('kotlin', 'redis.setnx("lock:a", 1)'), []);
  assert.deepEqual(await lockSites('lua', "redis.call('SET', 'lock:a', ARGV[1], 'NX')"), []);
  assert.deepEqual(await lockSites('python', 'import redis\nr = redis.Redis()\nr.get("lock:a")\n'), []);
});

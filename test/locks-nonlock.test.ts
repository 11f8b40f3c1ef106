// Data that merely matches the lock patterns, on a real redis-server: lists, sets, sorted sets,
// streams, 1 MB strings, invalid UTF-8, hashes that are not Redisson locks. Discovery and the
// view show each with its type, size and an escaped or hex preview, and never pull a big value.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { LockEntry, OtherKey } from '../extension/src/locks/classify';
import { DEFAULT_LOCK_PATTERNS, discoverLocks } from '../extension/src/locks/discovery';
import { globMatches } from '../extension/src/locks/glob';
import { presentLock, type LockView } from '../extension/src/locks/present';
import { useRedis } from './helpers';

const fx = useRedis();

const MiB = 1024 * 1024;
// What discovery reads of a string (GETRANGE 0 1023) and the longest preview it shows (48 hex bytes).
const HEAD_BYTES = 1024;
const PREVIEW_MAX = 48 * 3 - 1 + 2;
const BINARY = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x5c, 0x41, 0x0a]); // not UTF-8: lone 0x80, bad continuation
const REDISSON = '8743c9c0-0795-4907-87fd-6c719a6b4586';

// Each key, what it holds, and what the view must make of it.
interface Expected {
  why: OtherKey['why'];
  type: string;
  size: number;
  description: string;
  icon: string;
  /** The preview exactly, or a check of it. */
  preview: string | RegExp;
}

const EXPECTED: Record<string, Expected> = {
  'lock:list': {
    why: 'type',
    type: 'list',
    size: 3,
    description: 'list · 3 entries',
    icon: 'list-ordered',
    preview: '',
  },
  'locks:set': { why: 'type', type: 'set', size: 2, description: 'set · 2 members', icon: 'symbol-array', preview: '' },
  'job-lock:zset': {
    why: 'type',
    type: 'zset',
    size: 1,
    description: 'zset · 1 member',
    icon: 'sort-precedence',
    preview: '',
  },
  'redlock:stream': {
    why: 'type',
    type: 'stream',
    size: 2,
    description: 'stream · 2 entries',
    icon: 'pulse',
    preview: '',
  },
  'lock:big-list': {
    why: 'type',
    type: 'list',
    size: 100_000,
    description: 'list · 100000 entries',
    icon: 'list-ordered',
    preview: '',
  },
  'lock:1mb-text': {
    why: 'long',
    type: 'string',
    size: MiB,
    description: 'string · 1.0 MiB',
    icon: 'symbol-string',
    preview: `${'x'.repeat(119)}…`,
  },
  // The 1024th byte is the first half of an `é`: the preview drops it and stays text, not hex.
  'lock:1mb-utf8': {
    why: 'long',
    type: 'string',
    size: 1 + 2 * 600_000,
    description: 'string · 1.1 MiB',
    icon: 'symbol-string',
    preview: `a${'é'.repeat(118)}…`,
  },
  'lock:1mb-binary': {
    why: 'long',
    type: 'string',
    size: MiB,
    description: 'string · 1.0 MiB',
    icon: 'symbol-string',
    preview: `${Array.from({ length: 48 }, (_, i) => (i % 256).toString(16).padStart(2, '0')).join(' ')} …`,
  },
  'lock:binary': {
    why: 'binary',
    type: 'string',
    size: BINARY.length,
    description: 'string · 9 B',
    icon: 'file-binary',
    preview: 'ff fe 00 80 c3 28 5c 41 0a',
  },
  'lock:control': {
    why: 'binary',
    type: 'string',
    size: 16,
    description: 'string · 16 B',
    icon: 'file-binary',
    preview: 'a\\nb\\x1b[31m\\x00\\u{202e}\\\\end',
  },
  'lock:empty': {
    why: 'empty',
    type: 'string',
    size: 0,
    description: 'string · 0 B',
    icon: 'symbol-string',
    preview: '',
  },
  'lock:300b': {
    why: 'long',
    type: 'string',
    size: 300,
    description: 'string · 300 B',
    icon: 'symbol-string',
    preview: `${'y'.repeat(119)}…`,
  },
  'app:lock:config': {
    why: 'hash',
    type: 'hash',
    size: 2,
    description: 'hash · 2 fields',
    icon: 'symbol-object',
    preview: /^(color=red size=xl|size=xl color=red)$/,
  },
  // A Redisson-looking field with a count that is not a count.
  'app:lock:almost': {
    why: 'hash',
    type: 'hash',
    size: 1,
    description: 'hash · 1 field',
    icon: 'symbol-object',
    preview: `${REDISSON}:1=several`,
  },
  'app:lock:binary-hash': {
    why: 'hash',
    type: 'hash',
    size: 1,
    description: 'hash · 1 field',
    icon: 'symbol-object',
    preview: 'ff 00=80 0a',
  },
  'app:lock:big-hash': {
    why: 'hash',
    type: 'hash',
    size: 10_000,
    description: 'hash · 10000 fields',
    icon: 'symbol-object',
    preview: /^field:\d+=value:\d+ field:\d+=value:\d+ .*…$/,
  },
};

const BINARY_KEY = Buffer.from([...Buffer.from('lock:'), 0xff, 0x0a, 0xe2, 0x80, 0xae]); // invalid UTF-8, a newline, U+202E

let entries: Map<string, LockEntry>;
let bytesSent: number;
let entryCount: number;

async function netOutputBytes(): Promise<number> {
  return Number(/total_net_output_bytes:(\d+)/.exec(await fx.redis.info('stats'))![1]);
}

describe('non-lock data matching the lock patterns', () => {
  before(async () => {
    const redis = fx.redis;
    await redis.flushall();
    await redis.rpush('lock:list', 'a', 'b', 'c');
    await redis.sadd('locks:set', 'a', 'b');
    await redis.zadd('job-lock:zset', 1, 'a');
    await redis.xadd('redlock:stream', '*', 'f', 'v');
    await redis.xadd('redlock:stream', '*', 'f', 'w');
    for (let i = 0; i < 100_000; i += 10_000)
      await redis.rpush('lock:big-list', ...Array.from({ length: 10_000 }, (_, j) => `item:${i + j}`));
    await redis.set('lock:1mb-text', 'x'.repeat(MiB));
    await redis.set('lock:1mb-utf8', `a${'é'.repeat(600_000)}`);
    await redis.set('lock:1mb-binary', Buffer.from(Array.from({ length: MiB }, (_, i) => i % 256)));
    await redis.set('lock:binary', BINARY);
    await redis.set('lock:control', 'a\nb\x1b[31m\x00\u202e\\end');
    await redis.set('lock:empty', '');
    await redis.set('lock:300b', 'y'.repeat(300));
    await redis.hset('app:lock:config', 'color', 'red', 'size', 'xl');
    await redis.hset('app:lock:almost', `${REDISSON}:1`, 'several');
    await redis.hset('app:lock:binary-hash', Buffer.from([0xff, 0x00]), Buffer.from([0x80, 0x0a]));
    for (let i = 0; i < 10_000; i += 1000) {
      await redis.hset(
        'app:lock:big-hash',
        Object.fromEntries(Array.from({ length: 1000 }, (_, j) => [`field:${i + j}`, `value:${i + j}`])),
      );
    }
    await redis.sadd(BINARY_KEY, 'member');
    await redis.set('unrelated:key', 'x'.repeat(MiB)); // matches no pattern

    const before = await netOutputBytes();
    const page = await discoverLocks(redis, { limit: Infinity });
    bytesSent = (await netOutputBytes()) - before;
    assert.equal(page.next, undefined);
    entries = new Map(page.entries.map((entry) => [entry.key.toString('latin1'), entry]));
    entryCount = page.entries.length;
  });

  test('every seeded key is found once, and only those', () => {
    const expected = [...Object.keys(EXPECTED), BINARY_KEY.toString('latin1')].sort();
    assert.deepEqual([...entries.keys()].sort(), expected);
    assert.equal(entryCount, expected.length, 'no key twice');
    for (const key of entries.keys())
      assert.ok(DEFAULT_LOCK_PATTERNS.some((pattern) => globMatches(Buffer.from(pattern), Buffer.from(key, 'latin1'))));
  });

  for (const [key, expected] of Object.entries(EXPECTED)) {
    test(`${key}: ${expected.description}, ${expected.preview === '' ? 'no preview' : 'a bounded preview'}`, () => {
      const entry = entries.get(key);
      assert.ok(entry, `${key} not found`);
      assert.equal(entry.kind, 'other', `${key} is not a lock`);
      const other = entry;
      assert.deepEqual([other.why, other.type, other.size], [expected.why, expected.type, expected.size]);
      if (typeof expected.preview === 'string') assert.equal(other.preview, expected.preview);
      else assert.match(other.preview, expected.preview);
      assert.ok(Array.from(other.preview).length <= PREVIEW_MAX, `preview of ${other.preview.length} characters`);

      const view: LockView = presentLock(entry, Date.now());
      assert.equal(view.label, key);
      assert.equal(view.description, expected.description);
      assert.equal(view.icon, expected.icon);
      assert.deepEqual([view.warning, view.contextValue], [false, 'lock.other'], 'view only: no Release or Extend');
      assert.match(view.tooltip, /^\*\*Not a lock\*\* /);
      assert.match(view.tooltip, new RegExp(`Type: ${expected.type}`));
      if (other.preview) assert.ok(view.tooltip.includes(other.preview), 'the tooltip shows the preview');
    });
  }

  test('the big hash is sampled (HSCAN), not read whole', () => {
    const entry = entries.get('app:lock:big-hash') as OtherKey;
    assert.ok(entry.value.type === 'hash');
    assert.ok(
      entry.value.fields.length > 0 && entry.value.fields.length < 100,
      `${entry.value.fields.length} fields read of 10000`,
    );
  });

  test('1 MB strings: only the first 1024 bytes travel (GETRANGE), STRLEN gives the size', () => {
    for (const key of ['lock:1mb-text', 'lock:1mb-utf8', 'lock:1mb-binary']) {
      const entry = entries.get(key) as OtherKey;
      assert.ok(entry.value.type === 'string');
      assert.equal(entry.value.head.length, HEAD_BYTES, key);
      assert.ok(entry.value.length > MiB - 1, key);
    }
    // Three 1 MB values and a 10,000-field hash are on the server; far less left it.
    assert.ok(bytesSent < 64 * 1024, `discovery received ${bytesSent} bytes`);
  });

  test('a binary key with a newline and a bidi override: escaped label, set shown with its size', () => {
    const entry = entries.get(BINARY_KEY.toString('latin1')) as OtherKey;
    assert.ok(entry.key.equals(BINARY_KEY), 'the exact key bytes are kept for commands');
    const view = presentLock(entry, Date.now());
    assert.equal(view.label, 'lock:\\xff\\x0a\\xe2\\x80\\xae');
    assert.equal(view.description, 'set · 1 member');
    assert.doesNotMatch(view.label + view.description, /[\n\u202e]/);
  });
});

// Property tests (fast-check) for what the Locks view makes of a key's bytes: classify.ts (kind,
// owner, timestamp, preview) and present.ts (label, description, tooltip) on arbitrary input.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  classifyKey,
  escapeBytes,
  shortOwner,
  unixTimeMs,
  type HashField,
  type KeySnapshot,
  type LockEntry,
  type ValueSample,
  isHeldByMany,
} from '../extension/src/locks/classify';
import { filterLocks, presentHolder, presentLock, sortLocks, type LockView } from '../extension/src/locks/present';

const RUNS = { numRuns: 2000 };

// 2001-01-01 and 2100-01-01, the range classify.ts reads as lock expiry times.
const MIN_S = Date.UTC(2001, 0, 1) / 1000;
const MAX_S = Date.UTC(2100, 0, 1) / 1000;
const MIN_MS = MIN_S * 1000;
const MAX_MS = MAX_S * 1000;

// What must never reach a label raw: C0 and C1 controls, DEL, bidi controls (incl. U+061C),
// zero-width characters, line and paragraph separators, and the BOM.
const RAW_UNSAFE = /[\p{Cc}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;
// The longest preview: 48 bytes as spaced hex and ` …` (text previews are cut at 120 characters).
const PREVIEW_MAX = 48 * 3 - 1 + 2;
const OWNER_MAX = 64;

const codePoints = (text: string) => Array.from(text).length;

// ---- arbitraries -----------------------------------------------------------------------------

const anyBytes = (maxLength: number) => fc.uint8Array({ maxLength }).map((bytes) => Buffer.from(bytes));

/** Bytes that are not UTF-8: a lone continuation byte, an overlong form, a surrogate, a cut sequence, 0xff. */
const invalidUtf8 = fc
  .tuple(
    anyBytes(40),
    fc.constantFrom(
      [0x80],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xe2, 0x82],
      [0xff],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ),
    anyBytes(40),
  )
  .map(([before, bad, after]) => Buffer.concat([before, Buffer.from(bad), after]));

/** Text with the characters that must be escaped, as UTF-8. */
const trickyText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom(
        '\n',
        '\r',
        '\t',
        '\0',
        '\x1b[31m',
        '\x7f',
        '\u0085',
        '\u061c',
        '\u200b',
        '\u200e',
        '\u2028',
        '\u2029',
        '\u202e',
        '\u2066',
        '\ufeff',
        '\\',
        '`',
        '``',
        '€',
        '😀',
      ),
    ),
    { maxLength: 12 },
  )
  .map((parts) => Buffer.from(parts.join(''), 'utf8'));

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));

/** Integers around and inside the 2001..2100 range, in seconds or ms, with optional decimals. */
const timestampLike = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: MIN_S - 1000, max: MAX_S + 1000 }),
      fc.integer({ min: MIN_MS - 1000, max: MAX_MS + 1000 }),
      fc.integer({ min: 1, max: MIN_S }),
      fc.integer({ min: MAX_S, max: MIN_MS }),
      fc.integer({ min: MAX_MS, max: Number.MAX_SAFE_INTEGER }),
    ),
    fc.option(digits(1, 6), { nil: undefined }),
  )
  .map(([n, decimals]) => (decimals === undefined ? String(n) : `${n}.${decimals}`));

const host = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9.\-_éü日本]{0,40}$/);
const randomPart = fc.stringMatching(/^[0-9A-Za-z_-]{1,64}$/);
/** A token as the pack's README and snippets make them: `host:pid:random`. */
const hostPidRandom = fc.tuple(host, digits(1, 10), randomPart);

const uuid = fc.uuid();

const value = fc.oneof(
  anyBytes(300),
  invalidUtf8,
  trickyText,
  digits(1, 300).map((text) => Buffer.from(text)),
  timestampLike.map((text) => Buffer.from(text)),
  hostPidRandom.map((parts) => Buffer.from(parts.join(':'))),
  uuid.map((text) => Buffer.from(text)),
);

/** A string sample: the head read and STRLEN, which may be far more (a 1 MB value, or absurd sizes). */
const stringSample: fc.Arbitrary<ValueSample> = fc
  .tuple(value, fc.oneof(fc.constant(0), fc.nat(2000), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 2000 })))
  .map(([head, extra]) => ({ type: 'string', head, length: head.length + extra }));

const fieldName = fc.oneof(
  anyBytes(60),
  invalidUtf8,
  trickyText,
  fc.constant(Buffer.from('mode')),
  fc
    .tuple(uuid, digits(1, 30), fc.boolean())
    .map(([id, thread, write]) => Buffer.from(`${id}:${thread}${write ? ':write' : ''}`)),
  fc.tuple(hostPidRandom, digits(1, 400)).map(([parts, thread]) => Buffer.from(`${parts.join(':')}:${thread}`)),
  fc
    .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 2000 }), digits(1, 5))
    .map(([name, thread]) => Buffer.from(`${name}:${thread}`)),
);
const fieldValue = fc.oneof(
  anyBytes(40),
  invalidUtf8,
  digits(1, 20).map((text) => Buffer.from(text)),
  fc.constantFrom(...['1', '2', '0', 'read', 'write'].map((text) => Buffer.from(text))),
);
const hashSample: fc.Arbitrary<ValueSample> = fc
  .tuple(fc.array(fc.tuple(fieldName, fieldValue), { maxLength: 20 }), fc.nat(1_000_000))
  .map(([pairs, extra]) => {
    const fields: HashField[] = pairs.map(([name, value]) => ({ name, value }));
    return { type: 'hash', fields, length: fields.length + extra };
  });

const key = fc.oneof(
  anyBytes(80).map((bytes) => Buffer.concat([Buffer.from('lock:'), bytes])),
  anyBytes(80),
  invalidUtf8,
  trickyText,
  fc
    .constantFrom('fence:{order:42}', 'redisson_lock_token:{x}', 'order:42:fence', 'a.lock.b')
    .map((text) => Buffer.from(text)),
);

const pttl = fc.oneof(fc.constant(-1), fc.nat(1_000_000_000_000));
const READ_AT = Date.UTC(2025, 0, 1, 12);

const snapshot: fc.Arbitrary<KeySnapshot> = fc
  .tuple(
    key,
    fc.oneof(
      stringSample.map((value) => ['string', value] as const),
      hashSample.map((value) => ['hash', value] as const),
      fc
        .tuple(fc.constantFrom('list', 'set', 'zset', 'stream'), fc.nat(Number.MAX_SAFE_INTEGER))
        .map(([type, length]) => [type, { type: 'collection', length }] as const),
      // Module types have 9-character names; `__proto__` is one too.
      fc
        .constantFrom('ReJSON-RL', 'MBbloom--', 'TSDB-TYPE', '__proto__', 'toString_')
        .map((type) => [type, { type: 'unread' }] as const),
    ),
    pttl,
    fc.option(
      fc.tuple(anyBytes(40), fc.bigInt({ min: 0n, max: 2n ** 64n })).map(([key, value]) => ({ key, value })),
      { nil: undefined },
    ),
  )
  .map(([key, [type, value], pttl, fence]) => ({
    key,
    type,
    pttl,
    readAt: READ_AT,
    value: value,
    ...(fence && { fence }),
  }));

const now = fc.integer({ min: READ_AT - 1_000_000_000, max: READ_AT + 1_000_000_000_000 });

/** A deep copy, so that "the same input" cannot mean "the same objects". */
function copy(snapshot: KeySnapshot): KeySnapshot {
  const value: ValueSample =
    snapshot.value.type === 'string'
      ? { ...snapshot.value, head: Buffer.from(snapshot.value.head) }
      : snapshot.value.type === 'hash'
        ? {
            ...snapshot.value,
            fields: snapshot.value.fields.map(({ name, value }) => ({
              name: Buffer.from(name),
              value: Buffer.from(value),
            })),
          }
        : { ...snapshot.value };
  return {
    ...snapshot,
    key: Buffer.from(snapshot.key),
    value,
    ...(snapshot.fence && { fence: { ...snapshot.fence, key: Buffer.from(snapshot.fence.key) } }),
  };
}

function views(entry: LockEntry, at: number): LockView[] {
  return [
    presentLock(entry, at),
    ...(isHeldByMany(entry) ? entry.holders.map((holder) => presentHolder(entry, holder, at)) : []),
  ];
}

// ---- properties ------------------------------------------------------------------------------

describe('classifyKey and presentLock on arbitrary input', () => {
  test('never throw, and the same bytes always give the same entry and the same view', () => {
    fc.assert(
      fc.property(snapshot, now, fc.string({ unit: 'binary', maxLength: 10 }), (input, at, filterText) => {
        const entry = classifyKey(input);
        assert.deepEqual(classifyKey(copy(input)), entry);
        assert.deepEqual(views(classifyKey(copy(input)), at), views(entry, at));
        // The list operations the tree applies must not throw either.
        filterLocks([entry], filterText);
        assert.equal(sortLocks([entry, classifyKey(copy(input))], 'ttl', at).length, 2);
        assert.equal(sortLocks([entry], 'key', at).length, 1);
      }),
      RUNS,
    );
  });

  test('previews and owners are bounded and hold no raw control or invisible characters', () => {
    fc.assert(
      fc.property(snapshot, (input) => {
        const entry = classifyKey(input);
        if (entry.kind === 'other') {
          assert.ok(
            codePoints(entry.preview) <= PREVIEW_MAX,
            `preview of ${codePoints(entry.preview)} characters: ${entry.preview}`,
          );
          assert.doesNotMatch(entry.preview, RAW_UNSAFE);
        }
        const owners =
          entry.kind === 'token'
            ? [entry.owner]
            : entry.kind === 'reentrant'
              ? entry.holders.map((holder) => holder.owner)
              : [];
        for (const owner of owners) {
          assert.ok(codePoints(owner) <= OWNER_MAX, `owner of ${codePoints(owner)} characters: ${owner}`);
          assert.doesNotMatch(owner, RAW_UNSAFE);
        }
      }),
      RUNS,
    );
  });

  test('labels, descriptions and icons are safe strings; tooltips hold no raw control character but their line breaks', () => {
    fc.assert(
      fc.property(snapshot, now, (input, at) => {
        for (const view of views(classifyKey(input), at)) {
          assert.doesNotMatch(view.label, RAW_UNSAFE);
          assert.doesNotMatch(view.description, RAW_UNSAFE);
          assert.ok(codePoints(view.description) <= 2 * OWNER_MAX + 80, view.description);
          assert.doesNotMatch(view.tooltip.replace(/\n/g, ''), RAW_UNSAFE);
          assert.equal(typeof view.icon, 'string');
          assert.match(view.icon, /^[a-z-]+$/);
        }
      }),
      RUNS,
    );
  });

  test('escapeBytes is injective on what it shows: different bytes never look the same', () => {
    fc.assert(
      fc.property(
        fc.oneof(anyBytes(30), invalidUtf8, trickyText),
        fc.oneof(anyBytes(30), invalidUtf8, trickyText),
        (a, b) => {
          if (!a.equals(b)) assert.notEqual(escapeBytes(a), escapeBytes(b));
        },
      ),
      // U+0085 in text against a lone byte 0x85; a literal backslash sequence against the byte it spells.
      {
        ...RUNS,
        examples: [
          [Buffer.from('\u0085'), Buffer.from([0x85])],
          [Buffer.from('\\xff'), Buffer.from([0xff])],
          [Buffer.from('\u202e'), Buffer.from([0xe2, 0x80, 0xae, 0xff])],
        ],
      },
    );
  });

  test('a key with many backtick runs still gets a tooltip (inline code fences)', () => {
    const key = Buffer.from(`lock:${'`a'.repeat(200_000)}`);
    const entry = classifyKey({
      key,
      type: 'string',
      pttl: -1,
      readAt: READ_AT,
      value: { type: 'string', head: Buffer.from('x'), length: 1 },
    });
    assert.match(presentLock(entry, READ_AT).tooltip, /^\*\*Token lock\*\* ``/);
  });
});

describe('timestamps', () => {
  test('whatever the text, a value read as a timestamp lies within 2001..2100', () => {
    fc.assert(
      fc.property(fc.oneof(timestampLike, digits(1, 40), fc.string({ unit: 'binary', maxLength: 30 })), (text) => {
        const ms = unixTimeMs(text);
        if (ms !== undefined) assert.ok(ms >= MIN_MS && ms <= MAX_MS, `${text} -> ${new Date(ms).toISOString()}`);
      }),
      RUNS,
    );
  });

  test('whole numbers outside 2001..2100 (in seconds and in ms) are not timestamps; inside they are, exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (n) => {
        const inSeconds = n >= MIN_S && n < MAX_S;
        const inMs = n >= MIN_MS && n < MAX_MS;
        const expected = inSeconds ? n * 1000 : inMs ? n : undefined;
        assert.equal(unixTimeMs(String(n)), expected);
        const entry = classifyKey({
          key: Buffer.from('lock.legacy'),
          type: 'string',
          pttl: -1,
          readAt: READ_AT,
          value: { type: 'string', head: Buffer.from(String(n)), length: String(n).length },
        });
        assert.equal(entry.kind, expected === undefined ? 'token' : 'timestamp', String(n));
        if (entry.kind === 'timestamp') assert.equal(entry.expiresAt, expected);
      }),
      {
        numRuns: 5000,
        examples: [[MIN_S - 1], [MIN_S], [MAX_S - 1], [MAX_S], [MIN_MS - 1], [MIN_MS], [MAX_MS - 1], [MAX_MS]],
      },
    );
  });

  test('numbers that only look like timestamps (sign, exponent, leading zero, spaces, separators) are not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_S, max: MAX_S - 1 }),
        fc.constantFrom(
          (t: string) => `-${t}`,
          (t: string) => `+${t}`,
          (t: string) => `0${t}`,
          (t: string) => ` ${t}`,
          (t: string) => `${t} `,
          (t: string) => `${t}.`,
          (t: string) => `${t}e0`,
          (t: string) => t.replace(/^(\d)/, '$1_'),
          (t: string) => `0x${t}`,
          (t: string) => `${t}\n`,
        ),
        (seconds, disguise) => {
          assert.equal(unixTimeMs(disguise(String(seconds))), undefined, disguise(String(seconds)));
        },
      ),
      RUNS,
    );
  });
});

describe('owners', () => {
  test('a host:pid:random token always yields host#pid, and the exact bytes as the token', () => {
    fc.assert(
      fc.property(hostPidRandom, pttl, (parts, ttl) => {
        const token = parts.join(':');
        const entry = classifyKey({
          key: Buffer.from('lock:job'),
          type: 'string',
          pttl: ttl,
          readAt: READ_AT,
          value: { type: 'string', head: Buffer.from(token), length: Buffer.byteLength(token) },
        });
        assert.equal(entry.kind, 'token');
        assert.equal(entry.owner, `${parts[0]}#${parts[1]}`);
        assert.ok(entry.token.equals(Buffer.from(token)));
        assert.equal(shortOwner(token), `${parts[0]}#${parts[1]}`);
        assert.match(
          presentLock(entry, READ_AT).description,
          new RegExp(`^${parts[0].replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}#${parts[1]} · `),
        );
      }),
      RUNS,
    );
  });

  test('a Redisson holder field <uuid>:<thread> yields <first 8 of uuid>#<thread> and its count', () => {
    fc.assert(
      fc.property(uuid, digits(1, 19), fc.integer({ min: 1, max: 1_000_000 }), (id, thread, count) => {
        const entry = classifyKey({
          key: Buffer.from('app:lock:stock'),
          type: 'hash',
          pttl: 30_000,
          readAt: READ_AT,
          value: {
            type: 'hash',
            fields: [{ name: Buffer.from(`${id}:${thread}`), value: Buffer.from(String(count)) }],
            length: 1,
          },
        });
        assert.equal(entry.kind, 'reentrant');
        if (entry.kind !== 'reentrant') return;
        assert.deepEqual(
          entry.holders.map((holder) => [holder.owner, holder.count]),
          [[`${id.slice(0, 8)}#${thread}`, count]],
        );
      }),
      RUNS,
    );
  });
});

// What a key is (classify) and how the Locks view shows it (present): pure, no Redis.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  classifyKey,
  escapeBytes,
  fenceKeyFor,
  linkSharedTokens,
  shortOwner,
  unixTimeMs,
  type KeySnapshot,
  type LockEntry,
  type OtherKey,
  type ReentrantLock,
  type TokenLock,
} from '../extension/src/locks/classify';
import {
  CONTEXT_VALUES,
  countdown,
  filterLocks,
  formatDuration,
  presentHolder,
  presentLock,
  remainingMs,
  sortLocks,
} from '../extension/src/locks/present';

const READ_AT = Date.UTC(2025, 0, 1, 12, 0, 0);
const UUID = '8743c9c0-0795-4907-87fd-6c719a6b4586';

function stringKey(key: string | Buffer, value: string | Buffer, pttl = 10_000, length?: number): LockEntry {
  const head = Buffer.from(value);
  return classifyKey({
    key: Buffer.from(key),
    type: 'string',
    pttl,
    readAt: READ_AT,
    value: { type: 'string', head, length: length ?? head.length },
  });
}

function hashKey(key: string, fields: Record<string, string>, pttl = 30_000, length?: number): LockEntry {
  const entries = Object.entries(fields).map(([name, value]) => ({
    name: Buffer.from(name),
    value: Buffer.from(value),
  }));
  const snapshot: KeySnapshot = {
    key: Buffer.from(key),
    type: 'hash',
    pttl,
    readAt: READ_AT,
    value: { type: 'hash', fields: entries, length: length ?? entries.length },
  };
  return classifyKey(snapshot);
}

describe('pack v3: hand-overs, queue tickets, multi-key locks', () => {
  const handed = (token: string): LockEntry =>
    classifyKey({
      key: Buffer.from('lock:{h}'),
      type: 'string',
      pttl: 40,
      readAt: READ_AT,
      value: { type: 'string', head: Buffer.from(token), length: token.length },
      waiters: {
        queued: 1,
        tickets: [
          { token: Buffer.from('api-1:11:aa'), state: 'hand', until: READ_AT + 40, ticket: 'aa.1' },
          { token: Buffer.from('api-1:12:bb'), state: 'wait', until: READ_AT + 900, claimMs: 50, ticket: 'bb.3' },
        ],
      },
    });

  test("the holder's ticket says hand: handed over, unconfirmed, with the claim's end", () => {
    const lock = handed('api-1:11:aa') as TokenLock;
    assert.deepEqual(lock.handoff, { claimEndsAt: READ_AT + 40 });
    const view = presentLock(lock, READ_AT);
    assert.match(view.description, /^handed to api-1#11, unconfirmed · /);
    assert.match(view.description, / · 1 waiting$/);
    assert.equal(view.icon, 'arrow-right');
    assert.equal((handed('api-1:12:bb') as TokenLock).handoff, undefined, "a waiting ticket is not the holder's");
  });

  test('the tickets hash and the waiters sorted set of a queue are the queue, not locks', () => {
    const tickets = hashKey('lock:{h}:tickets', { 'api-1:11:aa': 'wait 1 50 aa.1' }) as OtherKey;
    assert.deepEqual([tickets.kind, tickets.why, tickets.preview], ['other', 'queue', 'lock:{h}']);
    assert.match(presentLock(tickets, READ_AT).tooltip, /the tickets of the clients queued for/);
    assert.equal(hashKey('lock:{h}:other', { 'api-1:11:aa': 'wait 1 50 aa.1' }).kind, 'other');
  });

  test('linkSharedTokens: token locks holding the same token know each other', () => {
    const [a, b, c] = linkSharedTokens([
      stringKey('lock:{m}:a', 'api-2:7:cc'),
      stringKey('lock:{m}:b', 'api-2:7:cc'),
      stringKey('lock:c', 'api-3:8:dd'),
    ]) as TokenLock[];
    assert.deepEqual(a.heldWith?.map(String), ['lock:{m}:b']);
    assert.deepEqual(b.heldWith?.map(String), ['lock:{m}:a']);
    assert.equal(c.heldWith, undefined);
    const view = presentLock(a, READ_AT);
    assert.match(view.description, / · \+ 1 key, same token$/);
    assert.match(view.tooltip, /Held with `lock:\{m\}:b` by the same token/);
  });
});

describe('classifyKey', () => {
  test('a string with a printable value is a token lock; the exact value is the token', () => {
    const lock = stringKey('lock:a', 'api-1:4711:9f86d081884c7d65') as TokenLock;
    assert.equal(lock.kind, 'token');
    assert.equal(lock.owner, 'api-1#4711');
    assert.equal(lock.token.toString(), 'api-1:4711:9f86d081884c7d65');
  });

  test('a lock without TTL is still a token lock, with pttl -1', () => {
    const lock = stringKey('lock:a', 'worker-7', -1);
    assert.deepEqual([lock.kind, lock.pttl], ['token', -1]);
  });

  test('Unix times in s or ms, with or without decimals, within 2001..2100, are timestamp locks', () => {
    const cases: [string, number | undefined][] = [
      ['1735732800', Date.UTC(2025, 0, 1, 12)],
      ['1735732800.25', Date.UTC(2025, 0, 1, 12) + 250],
      ['1735732800000', Date.UTC(2025, 0, 1, 12)],
      ['1735732800000.7', Date.UTC(2025, 0, 1, 12) + 1],
      ['978307200', Date.UTC(2001, 0, 1)],
      ['978307199', undefined], // 2000: a plain number more likely
      ['4102444799', Date.UTC(2099, 11, 31, 23, 59, 59)],
      ['4102444800', undefined],
      ['1', undefined],
      ['4711', undefined], // a pid
      ['01735732800', undefined],
      ['1735732800.', undefined],
      ['-1735732800', undefined],
      ['1e12', undefined],
      ['17357328000', undefined], // between the ranges: neither s nor ms
    ];
    for (const [text, expected] of cases) {
      assert.equal(unixTimeMs(text), expected, text);
      assert.equal(stringKey('lock:t', text, -1).kind, expected === undefined ? 'token' : 'timestamp', text);
    }
  });

  test('a Redisson-style hash is a reentrant lock with its holders', () => {
    const lock = hashKey('app:lock:stock', { [`${UUID}:57`]: '2', [`${UUID}:58`]: '1' }) as ReentrantLock;
    assert.equal(lock.kind, 'reentrant');
    assert.equal(lock.holderCount, 2);
    assert.deepEqual(
      lock.holders.map(({ owner, count, field }) => [owner, count, field.toString()]),
      [
        ['8743c9c0#57', 2, `${UUID}:57`],
        ['8743c9c0#58', 1, `${UUID}:58`],
      ],
    );
  });

  test('a read-write lock hash keeps its mode out of the holders', () => {
    const lock = hashKey('rw:lock', { mode: 'write', [`${UUID}:1:write`]: '1' }) as ReentrantLock;
    assert.deepEqual(
      [lock.kind, lock.mode, lock.holderCount, lock.holders[0].owner],
      ['reentrant', 'write', 1, '8743c9c0#1'],
    );
  });

  test('a big hash sampled by HSCAN reports the full holder count', () => {
    const lock = hashKey('rw:lock', { mode: 'read', [`${UUID}:1`]: '1' }, 30_000, 40) as ReentrantLock;
    assert.deepEqual([lock.holders.length, lock.holderCount], [1, 39]);
  });

  test('hashes that are not holder maps are other data', () => {
    const notHolders: Record<string, string>[] = [
      { name: 'x' },
      { [`${UUID}:1`]: 'abc' },
      { [`${UUID}:1`]: '0' },
      {},
      { mode: 'read' },
    ];
    for (const fields of notHolders) {
      const entry = hashKey('lock:h', fields) as OtherKey;
      assert.deepEqual([entry.kind, entry.why], ['other', 'hash'], JSON.stringify(fields));
    }
    assert.equal((hashKey('lock:h', { name: 'x' }) as OtherKey).preview, 'name=x');
  });

  test('other strings: empty, too long, not UTF-8, control characters, fencing counters', () => {
    const why = (entry: LockEntry) => (entry as OtherKey).why;
    assert.equal(why(stringKey('lock:e', '')), 'empty');
    assert.equal(why(stringKey('lock:l', 'x'.repeat(257))), 'long');
    assert.equal(stringKey('lock:l', 'x'.repeat(256)).kind, 'token');
    assert.equal(why(stringKey('lock:l', 'x'.repeat(1024), 10_000, 1024 * 1024)), 'long');
    assert.equal(why(stringKey('lock:b', Buffer.from([0xff, 0xfe]))), 'binary');
    assert.equal(why(stringKey('lock:c', 'two\nlines')), 'binary');
    assert.equal(why(stringKey('redisson_lock_token:{a:lock:b}', '5', -1)), 'fence');
    assert.equal(why(stringKey('fence:lock:x', '5', -1)), 'fence');
  });

  test('previews: escaped text, hex for bytes, never a whole big value', () => {
    const preview = (entry: LockEntry) => (entry as OtherKey).preview;
    assert.equal(preview(stringKey('lock:b', Buffer.from([0xff, 0x00, 0x41]))), 'ff 00 41');
    assert.equal(preview(stringKey('lock:b', Buffer.alloc(100, 0xff))), `${'ff '.repeat(48).trim()} …`);
    assert.equal(preview(stringKey('lock:c', 'a\tb\\')), 'a\\tb\\\\');
    const text = Buffer.from('é'.repeat(512)).subarray(0, 1023); // cut inside the last character
    assert.match(preview(stringKey('lock:l', text, 10_000, 1024 * 1024)), /^é{119}…$/);
  });

  test('lists, sets, sorted sets, streams and module types are other data', () => {
    for (const type of ['list', 'set', 'zset', 'stream']) {
      const entry = classifyKey({
        key: Buffer.from('lock:x'),
        type,
        pttl: -1,
        readAt: READ_AT,
        value: { type: 'collection', length: 3 },
      });
      assert.deepEqual([entry.kind, (entry as OtherKey).size], ['other', 3]);
    }
    const module = classifyKey({
      key: Buffer.from('lock:x'),
      type: 'ReJSON-RL',
      pttl: -1,
      readAt: READ_AT,
      value: { type: 'unread' },
    });
    assert.deepEqual([module.kind, (module as OtherKey).size], ['other', undefined]);
  });
});

test('shortOwner: host#pid, the first 8 characters of random ids, or the text cut short', () => {
  assert.equal(shortOwner('api-1:4711:9f86d081884c7d65'), 'api-1#4711');
  assert.equal(shortOwner('ip-10-0-0-1.ec2.internal:12:AbC_d-9'), 'ip-10-0-0-1.ec2.internal#12');
  assert.equal(shortOwner(UUID), '8743c9c0');
  assert.equal(shortOwner('8743c9c007954907'), '8743c9c0'); // hex, as redlock and redis-py
  assert.equal(shortOwner('q8SfYh1Nz0k3T1xZrY2fhA=='), 'q8SfYh1N'); // base64, as redsync
  assert.equal(shortOwner('worker-7'), 'worker-7');
  assert.equal(shortOwner('1'), '1');
  assert.equal(shortOwner('ADDED:2025-01-01T12:00:00.000Z@api-1'), 'ADDED:2025-01-01T12:00:…');
  assert.equal(shortOwner('averyveryverylongwordwithoutdigits'), 'averyveryverylongwordwi…');
});

test('escapeBytes: UTF-8 as is; backslashes, control and invisible characters and non-UTF-8 bytes escaped', () => {
  assert.equal(escapeBytes(Buffer.from('lock:{order:42}')), 'lock:{order:42}');
  assert.equal(escapeBytes(Buffer.from('lock:é')), 'lock:é');
  assert.equal(escapeBytes(Buffer.from('a\\b\n\t\x00\x7f')), 'a\\\\b\\n\\t\\x00\\x7f');
  assert.equal(escapeBytes(Buffer.from('admin\u202eexe.txt')), 'admin\\u{202e}exe.txt');
  assert.equal(escapeBytes(Buffer.from([0x6c, 0xff, 0x5c, 0x0a, 0xc3])), 'l\\xff\\\\\\x0a\\xc3');
});

test('fenceKeyFor: the first lock segment becomes fence; Redisson hashes get their token key', () => {
  const fence = (key: string, type = 'string') => fenceKeyFor(Buffer.from(key), type)?.toString();
  assert.equal(fence('lock:{order:42}'), 'fence:{order:42}');
  assert.equal(fence('order:42:lock'), 'order:42:fence');
  assert.equal(fence('app:lock:x:lock'), 'app:fence:x:lock');
  assert.equal(fence('lock.a'), 'fence.a');
  assert.equal(fence('redlock:a'), undefined);
  assert.equal(fence('locks:a'), undefined);
  assert.equal(fence('lock:a', 'list'), undefined);
  assert.equal(fence('orders', 'hash'), 'redisson_lock_token:{orders}');
  assert.equal(fence('{orders}:lock', 'hash'), 'redisson_lock_token:{orders}:lock');
});

describe('presentLock', () => {
  const token = stringKey('lock:{order:42}', 'api-1:4711:9f86d081884c7d65', 5_000) as TokenLock;

  test('token lock: owner and a local countdown in whole seconds (the row changes once a second at most)', () => {
    const view = presentLock(token, READ_AT + 800);
    assert.equal(view.label, 'lock:{order:42}');
    assert.equal(view.description, 'api-1#4711 · 4 s');
    assert.equal(presentLock(token, READ_AT + 4_200).description, 'api-1#4711 · <1 s');
    assert.deepEqual([view.icon, view.warning, view.contextValue], ['lock', false, CONTEXT_VALUES.token]);
    assert.equal(presentLock(token, READ_AT + 5_000).description, 'api-1#4711 · expired');
  });

  test('token lock tooltip: full token, TTL in ms, type, fencing counter', () => {
    const fenced: LockEntry = { ...token, fence: { key: Buffer.from('fence:{order:42}'), value: 17n } };
    const { tooltip } = presentLock(fenced, READ_AT + 800);
    assert.match(tooltip, /Owner token: `api-1:4711:9f86d081884c7d65`/);
    assert.match(tooltip, /TTL: 4200 ms left \(PTTL 5000 ms, read 0\.8 s ago\)/);
    assert.match(tooltip, /Type: string/);
    assert.match(tooltip, /Fencing counter: 17 in `fence:\{order:42\}`/);
    assert.doesNotMatch(tooltip, /No TTL/);
  });

  test('no TTL: a warning icon and what it means', () => {
    const view = presentLock(stringKey('lock:a', 'api-1:4711:abc', -1), READ_AT + 60_000);
    assert.equal(view.description, 'api-1#4711 · no TTL');
    assert.deepEqual([view.icon, view.warning, view.contextValue], ['warning', true, CONTEXT_VALUES.token]);
    assert.match(view.tooltip, /No TTL\.\*\* If the owner crashed, this lock is held until someone deletes it/);
  });

  test('timestamp lock: expires in, expired N s ago', () => {
    const lock = stringKey('lock.legacy', String(READ_AT / 1000 + 30), -1);
    assert.equal(presentLock(lock, READ_AT).description, 'expires in 30 s');
    const view = presentLock(lock, READ_AT + 42_000);
    assert.equal(view.description, 'expired 12 s ago');
    assert.deepEqual([view.icon, view.warning, view.contextValue], ['history', true, CONTEXT_VALUES.timestamp]);
    assert.match(view.tooltip, /2025-01-01T12:00:30\.000Z/);
    assert.match(view.tooltip, /GETSET/);
  });

  test('reentrant lock: first holder, how many more, mode; holders as children', () => {
    const lock = hashKey('rw:lock', { mode: 'read', [`${UUID}:1`]: '2', [`${UUID}:2`]: '1' }) as ReentrantLock;
    const view = presentLock(lock, READ_AT + 1_000);
    assert.equal(view.description, 'read · 8743c9c0#1 +1 · 29 s');
    assert.deepEqual([view.icon, view.contextValue], ['lock', CONTEXT_VALUES.reentrant]);
    assert.match(view.tooltip, /Holders: 2\n- `8743c9c0-0795-4907-87fd-6c719a6b4586:1` entered 2×/);
    const holder = presentHolder(lock, lock.holders[0], READ_AT + 1_000);
    assert.deepEqual(
      [holder.label, holder.description, holder.icon, holder.contextValue],
      ['8743c9c0#1', 'entered 2×', 'symbol-field', CONTEXT_VALUES.releasableHolder],
    );
  });

  test('other data: type, size, preview; binary keys escaped', () => {
    const big = presentLock(stringKey(Buffer.from([0x6c, 0x3a, 0xff]), 'x'.repeat(1024), -1, 1024 * 1024), READ_AT);
    assert.equal(big.label, 'l:\\xff');
    assert.equal(big.description, 'string · 1.0 MiB');
    assert.deepEqual([big.icon, big.warning, big.contextValue], ['symbol-string', false, CONTEXT_VALUES.other]);
    assert.match(big.tooltip, /too long to be an owner token/);
    const list = classifyKey({
      key: Buffer.from('lock:q'),
      type: 'list',
      pttl: 2_000,
      readAt: READ_AT,
      value: { type: 'collection', length: 1 },
    });
    assert.equal(presentLock(list, READ_AT).description, 'list · 1 entry · 2 s');
    assert.equal(presentLock(stringKey('lock:b', Buffer.from([0xff])), READ_AT).icon, 'file-binary');
  });

  test('keys with backticks stay inside their code span', () => {
    const { tooltip } = presentLock(stringKey('lock:`a``b', 'h:1:x'), READ_AT);
    assert.ok(tooltip.includes('```lock:`a``b```'), tooltip);
    assert.ok(presentLock(stringKey('`lock`', 'h:1:x'), READ_AT).tooltip.includes('`` `lock` ``'));
  });
});

test('countdown: whole seconds, rounded down, so a row never shows more than is left and changes once a second at most', () => {
  const cases: [number, string][] = [
    [1, '<1 s'],
    [999, '<1 s'],
    [1_000, '1 s'],
    [4_999, '4 s'],
    [9_999, '9 s'],
    [10_000, '10 s'],
    [99_999, '99 s'],
    [100_000, '1 min'],
  ];
  for (const [ms, text] of cases) assert.equal(countdown(ms), text, String(ms));
});

test('formatDuration rounds down: a countdown never shows more than is left', () => {
  const cases: [number, string][] = [
    [0, '0.0 s'],
    [4_299, '4.2 s'],
    [9_999, '9.9 s'],
    [10_000, '10 s'],
    [99_999, '99 s'],
    [100_000, '1 min'],
    [7_199_999, '119 min'],
    [7_200_000, '2 h'],
    [172_800_000, '2 d'],
  ];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms), text, String(ms));
});

describe('sortLocks and filterLocks', () => {
  const soon = stringKey('lock:c', 'api-1:1:aa', 1_000);
  const later = stringKey('lock:a', 'api-2:2:bb', 60_000);
  const forever = stringKey('lock:b', 'Worker-7', -1);
  const stale = stringKey('lock:d', String(READ_AT / 1000 - 5), -1);
  const all = [forever, later, soon, stale];

  test('by TTL: soonest (or longest expired) first, no TTL last', () => {
    assert.deepEqual(
      sortLocks(all, 'ttl', READ_AT).map((lock) => lock.key.toString()),
      ['lock:d', 'lock:c', 'lock:a', 'lock:b'],
    );
    assert.equal(remainingMs(forever, READ_AT), undefined);
    assert.equal(remainingMs(soon, READ_AT + 400), 600);
  });

  test('by key bytes, and the input is left as it was', () => {
    assert.deepEqual(
      sortLocks(all, 'key', READ_AT).map((lock) => lock.key.toString()),
      ['lock:a', 'lock:b', 'lock:c', 'lock:d'],
    );
    assert.deepEqual(all, [forever, later, soon, stale]);
  });

  test('filter: substring of key or owner, ignoring case; empty keeps all', () => {
    assert.deepEqual(filterLocks(all, 'API-2'), [later]);
    assert.deepEqual(filterLocks(all, 'worker'), [forever]);
    assert.deepEqual(filterLocks(all, 'lock:c'), [soon]);
    assert.deepEqual(filterLocks(all, '  '), all);
    const reentrant = hashKey('app:stock', { [`${UUID}:57`]: '1' });
    assert.deepEqual(filterLocks([reentrant], '8743c9c0#57'), [reentrant]);
  });
});

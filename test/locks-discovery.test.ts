// Lock discovery against a real redis-server: what it finds, paging, abort, binary keys and
// values, and that no command it sends is slow on a big keyspace.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type Redis from 'ioredis';
import type { LockEntry, OtherKey, ReentrantLock, TimestampLock, TokenLock } from '../extension/src/locks/classify';
import {
  DEFAULT_LOCK_PATTERNS,
  discoverLocks,
  planScans,
  type DiscoverOptions,
  type DiscoveryCursor,
} from '../extension/src/locks/discovery';
import { globMatches } from '../extension/src/locks/glob';
import { presentLock } from '../extension/src/locks/present';
import { useRedis } from './helpers';

const fx = useRedis();

beforeEach(async () => {
  await fx.redis.flushall();
});

/** Every page until the scan is through; each page's size checked against `limit`. */
async function allPages(options: DiscoverOptions & { limit: number }): Promise<LockEntry[][]> {
  const pages: LockEntry[][] = [];
  let after: DiscoveryCursor | undefined;
  do {
    const page = await discoverLocks(fx.redis, { ...options, after });
    assert.ok(page.entries.length <= options.limit, `page of ${page.entries.length} > limit ${options.limit}`);
    pages.push(page.entries);
    after = page.next;
  } while (after);
  return pages;
}

const keyNames = (entries: readonly LockEntry[]) => entries.map((entry) => entry.key.toString('latin1')).sort();

function byKey<T extends LockEntry>(entries: readonly LockEntry[], key: string): T {
  const entry = entries.find((candidate) => candidate.key.toString() === key);
  assert.ok(entry, `${key} not found among ${keyNames(entries).join(', ')}`);
  return entry as T;
}

async function scanCalls(redis: Redis): Promise<number> {
  return Number(/cmdstat_scan:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
}

/** `count` string keys `<prefix>:<n>` holding `value:<n>`, made by the server in one command. */
async function populate(prefix: string, count: number): Promise<void> {
  await fx.redis.call('DEBUG', 'POPULATE', count, prefix);
}

describe('what discovery finds', () => {
  test('each kind of lock, with owner, TTL, kind and fencing counter', async () => {
    const now = Date.now();
    const redisson = '8743c9c0-0795-4907-87fd-6c719a6b4586';
    await fx.redis.set('lock:{order:42}', 'api-1:4711:9f86d081884c7d65', 'PX', 10_000);
    await fx.redis.set('fence:{order:42}', '17');
    await fx.redis.set('redlock:payments', '0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'PX', 30_000);
    await fx.redis.set('jobs:nightly:lock', 'worker-7'); // no TTL
    await fx.redis.set('lock.legacy', String(Math.floor(now / 1000) - 12));
    await fx.redis.set('locks:report', String(now + 60_000));
    await fx.redis.hset('app:lock:stock', `${redisson}:57`, '2');
    await fx.redis.pexpire('app:lock:stock', 30_000);
    await fx.redis.set('redisson_lock_token:{app:lock:stock}', '5');
    await fx.redis.rpush('lock:queue', 'a', 'b', 'c');

    const { entries, next } = await discoverLocks(fx.redis);
    assert.equal(next, undefined);
    assert.deepEqual(keyNames(entries), [
      'app:lock:stock',
      'jobs:nightly:lock',
      'lock.legacy',
      'lock:queue',
      'lock:{order:42}',
      'locks:report',
      'redisson_lock_token:{app:lock:stock}', // matches *:lock:*, shown as what it is
      'redlock:payments',
    ]);

    const token = byKey<TokenLock>(entries, 'lock:{order:42}');
    assert.equal(token.kind, 'token');
    assert.equal(token.owner, 'api-1#4711');
    assert.ok(token.pttl > 9_000 && token.pttl <= 10_000, `pttl ${token.pttl}`);
    assert.ok(Math.abs(token.readAt - Date.now()) < 5_000);
    assert.deepEqual(token.fence, { key: Buffer.from('fence:{order:42}'), value: 17n });
    assert.match(presentLock(token, token.readAt + 1_000).description, /^api-1#4711 · [89] s$/);

    assert.equal(byKey<TokenLock>(entries, 'redlock:payments').owner, '0f1e2d3c');
    const forever = byKey<TokenLock>(entries, 'jobs:nightly:lock');
    assert.equal(forever.kind, 'token');
    assert.equal(forever.pttl, -1);
    assert.equal(forever.fence, undefined);

    const stale = byKey<TimestampLock>(entries, 'lock.legacy');
    assert.equal(stale.kind, 'timestamp');
    assert.equal(presentLock(stale, now).description, 'expired 12 s ago');
    assert.equal(byKey<TimestampLock>(entries, 'locks:report').expiresAt, now + 60_000);

    const reentrant = byKey<ReentrantLock>(entries, 'app:lock:stock');
    assert.equal(reentrant.kind, 'reentrant');
    assert.deepEqual(
      reentrant.holders.map(({ owner, count }) => ({ owner, count })),
      [{ owner: '8743c9c0#57', count: 2 }],
    );
    assert.equal(reentrant.fence?.value, 5n);

    const counter = byKey<OtherKey>(entries, 'redisson_lock_token:{app:lock:stock}');
    assert.deepEqual([counter.kind, counter.why], ['other', 'fence']);
    const list = byKey<OtherKey>(entries, 'lock:queue');
    assert.deepEqual([list.kind, list.type, list.size], ['other', 'list', 3]);
  });

  test('sets, sorted sets, streams and empty strings are shown as other data', async () => {
    await fx.redis.sadd('lock:set', 'a', 'b');
    await fx.redis.zadd('lock:zset', 1, 'a');
    await fx.redis.xadd('lock:stream', '*', 'field', 'value');
    await fx.redis.set('lock:empty', '');
    const { entries } = await discoverLocks(fx.redis);
    const shape = (key: string) => {
      const entry = byKey<OtherKey>(entries, key);
      return [entry.kind, entry.type, entry.size, entry.why];
    };
    assert.deepEqual(shape('lock:set'), ['other', 'set', 2, 'type']);
    assert.deepEqual(shape('lock:zset'), ['other', 'zset', 1, 'type']);
    assert.deepEqual(shape('lock:stream'), ['other', 'stream', 1, 'type']);
    assert.deepEqual(shape('lock:empty'), ['other', 'string', 0, 'empty']);
  });

  test('keys that match no pattern are ignored, even those containing "lock"', async () => {
    for (const key of ['user:1', 'clock:tick', 'blocked:7', 'locksmith:x', 'mylock', 'lockfile', 'lock', 'x:locked']) {
      await fx.redis.set(key, 'host:1:abc');
    }
    await fx.redis.set('lock:real', 'host:1:abc');
    assert.deepEqual(keyNames((await discoverLocks(fx.redis)).entries), ['lock:real']);
  });

  test('custom patterns replace the defaults', async () => {
    await fx.redis.set('mutex:a', 'host:1:abc');
    await fx.redis.set('lock:b', 'host:1:abc');
    assert.deepEqual(keyNames((await discoverLocks(fx.redis, { patterns: ['mutex:*'] })).entries), ['mutex:a']);
  });

  test('a key matching several patterns is listed once, merged into one SCAN or not', async () => {
    await fx.redis.set('lock:lock', 't:1:a'); // lock:* and *:lock
    await fx.redis.set('lock:x:lock:y', 't:1:a'); // lock:* and *:lock:*
    await fx.redis.set('ab', 't:1:a');
    await fx.redis.set('abb', 't:1:a');
    await fx.redis.set('b', 't:1:a');
    assert.deepEqual(keyNames((await discoverLocks(fx.redis)).entries), ['lock:lock', 'lock:x:lock:y']);
    // No shared literal: three SCANs run side by side, and their results overlap.
    const patterns = ['a*', 'ab*', '*b'];
    assert.equal(planScans(patterns.map((p) => Buffer.from(p))).length, 3);
    assert.deepEqual(keyNames((await discoverLocks(fx.redis, { patterns })).entries), ['ab', 'abb', 'b']);
  });
});

describe('the pack v3 kinds', () => {
  test('a lock handed over by the one-hop queue and not confirmed yet, its waiters and its tickets key', async () => {
    const keys = ['lock:{h}', 'lock:{h}:waiters', 'lock:{h}:tickets'];
    await fx.locks.acquire('lock:{h}', 'holder', 60_000, { waitMs: 1 });
    for (const token of ['api-1:11:aa', 'api-1:12:bb']) {
      await fx.locks.run('queue_acquire', keys, [token, 60_000, 60_000, 60_000, `${token.slice(-2)}.1`, 0]);
    }
    assert.equal(await fx.locks.release('lock:{h}', 'holder'), true);
    const { entries } = await discoverLocks(fx.redis);
    const lock = byKey<TokenLock>(entries, 'lock:{h}');
    assert.equal(lock.kind, 'token');
    assert.equal(lock.owner, 'api-1#11');
    assert.ok(lock.handoff && lock.handoff.claimEndsAt > Date.now(), 'handed, unconfirmed, with its claim');
    assert.equal(lock.waiters?.queued, 1);
    const view = presentLock(lock, Date.now());
    assert.match(view.description, /^handed to api-1#11, unconfirmed · /);
    assert.match(view.tooltip, /Handed over by the previous holder's release/);
    assert.equal(view.icon, 'arrow-right');
    const tickets = byKey<OtherKey>(entries, 'lock:{h}:tickets');
    assert.deepEqual([tickets.kind, tickets.why, tickets.preview], ['other', 'queue', 'lock:{h}']);
    assert.match(presentLock(tickets, Date.now()).tooltip, /the tickets of the clients queued for `lock:\{h\}`/);
    assert.equal(byKey<OtherKey>(entries, 'lock:{h}:waiters').why, 'queue');

    // Confirmed by the waiter's next call: an ordinary token lock again.
    await fx.locks.run('queue_acquire', keys, ['api-1:11:aa', 60_000, 60_000, 60_000, 'aa.2', 0]);
    assert.equal(byKey<TokenLock>((await discoverLocks(fx.redis)).entries, 'lock:{h}').handoff, undefined);
  });

  test('a multi-key lock: each key a token lock, marked as held with the others by the same token', async () => {
    const keys = ['lock:{acct}:1', 'lock:{acct}:2', 'lock:{acct}:3'];
    assert.equal(await fx.locks.multi.acquire(keys, 'api-2:7:cc', 60_000), true);
    await fx.locks.acquire('lock:alone', 'api-3:8:dd', 60_000);
    const { entries } = await discoverLocks(fx.redis);
    for (const key of keys) {
      const lock = byKey<TokenLock>(entries, key);
      assert.deepEqual(
        lock.heldWith?.map((other) => other.toString()).sort(),
        keys.filter((other) => other !== key),
      );
      assert.match(presentLock(lock, Date.now()).description, /· \+ 2 keys, same token$/);
    }
    assert.equal(byKey<TokenLock>(entries, 'lock:alone').heldWith, undefined);
  });
});

describe('planScans', () => {
  test('the default patterns cost one SCAN over the keyspace', () => {
    const scans = planScans(DEFAULT_LOCK_PATTERNS.map((pattern) => Buffer.from(pattern)));
    assert.deepEqual(
      scans.map((scan) => [scan.match.toString(), scan.patterns?.length]),
      [['*lock*', DEFAULT_LOCK_PATTERNS.length]],
    );
  });

  test('patterns without a shared literal of 4 bytes keep their own SCAN; duplicates are dropped', () => {
    const scans = planScans(
      ['lock:*', 'mutex:*', '*:lock', 'mutex:*', 'a:*', 'b:*', 'l\\*ck?x*'].map((p) => Buffer.from(p)),
    );
    assert.deepEqual(
      scans.map((scan) => [scan.match.toString(), scan.patterns?.map(String)]),
      [
        ['*lock*', ['lock:*', '*:lock']],
        ['mutex:*', undefined],
        ['a:*', undefined],
        ['b:*', undefined],
        ['l\\*ck?x*', undefined],
      ],
    );
  });

  test('a shared literal with glob characters is escaped in the merged MATCH', async () => {
    const patterns = ['lock:a\\*b*', 'x:a\\*b*', 'y:a\\*b?'];
    const [scan] = planScans(patterns.map((p) => Buffer.from(p)));
    assert.equal(scan.match.toString(), '*:a\\*b*');
    await fx.redis.set('lock:a*bc', 'h:1:a');
    await fx.redis.set('x:a*b', 'h:1:a');
    await fx.redis.set('y:a*bz', 'h:1:a');
    await fx.redis.set('x:aXb', 'h:1:a');
    assert.deepEqual(keyNames((await discoverLocks(fx.redis, { patterns })).entries), ['lock:a*bc', 'x:a*b', 'y:a*bz']);
  });
});

test('the client-side glob matcher agrees with SCAN MATCH', async () => {
  const keys = [
    'lock:a',
    'lock:',
    'lock',
    'xlock:a',
    'a:lock',
    'a:lock:b',
    'lock.a',
    'LOCK:a',
    '',
    'a',
    'ab',
    'abc',
    'a*c',
    'a?c',
    'a[c',
    'a]c',
    'a\\c',
    'a-c',
    'a^c',
    'b',
    'c',
    '[',
    ']',
    '\\',
    'aaaaaaaaab',
    'aaaaaaaaaa',
    'x\xffy',
    'é:lock',
  ].map((key) => Buffer.from(key, 'latin1'));
  keys.push(Buffer.from([0x61, 0x00, 0x63]), Buffer.from([0x61, 0x80, 0x63]), Buffer.from([0xc3, 0xa9, 0x3a, 0x6c]));
  const patterns = [
    '*',
    '?',
    'lock:*',
    '*:lock',
    '*:lock:*',
    '*lock*',
    'a?c',
    'a*c',
    'a\\*c',
    'a\\?c',
    'a[bc]',
    'a[^b]c',
    'a[a-c]',
    'a[c-a]',
    'a[\\]]c',
    'a[]]c',
    'a[\\\\]c',
    'a[-]c',
    'a[^]c',
    'a[',
    'a[bc',
    '[',
    '\\',
    'a\\',
    '*a*a*a*a*b',
    'a**c',
    'x[\xff]y',
    'x[\\\xff]y',
    'x[\x80-\xff]y',
    'a[\x01-\xff]c',
    'a[\x00-\x7f]c',
    'a[\x7f-\x81]c',
    '?:l*',
    '*?*',
    'a[b-]c',
    'a[!b]c',
  ].map((pattern) => Buffer.from(pattern, 'latin1'));
  const pipe = fx.redis.pipeline();
  for (const key of keys) pipe.set(key, '1');
  await pipe.exec();
  for (const pattern of patterns) {
    const fromServer: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = (await fx.redis.callBuffer('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [
        Buffer,
        Buffer[],
      ];
      cursor = next.toString();
      fromServer.push(...found.map((key) => key.toString('hex')));
    } while (cursor !== '0');
    const here = keys.filter((key) => globMatches(pattern, key)).map((key) => key.toString('hex'));
    assert.deepEqual(here.sort(), fromServer.sort(), `pattern ${JSON.stringify(pattern.toString('latin1'))}`);
  }
});

describe('paging', () => {
  for (const [name, patterns] of [
    ['one merged SCAN', DEFAULT_LOCK_PATTERNS],
    ['several SCANs side by side', ['lock:*', 'mutex:*', 'sem:*']],
  ] as const) {
    test(`Load more goes on where the last page stopped and every lock comes exactly once (${name})`, async () => {
      const pipe = fx.redis.pipeline();
      const expected: string[] = [];
      for (let i = 0; i < 1200; i++) {
        const key = `${['lock:', 'mutex:', 'sem:'][i % 3]}${i}`;
        pipe.set(key, `h:${i}:abc`, 'PX', 60_000);
        if (patterns.some((pattern) => globMatches(Buffer.from(pattern), Buffer.from(key)))) expected.push(key);
      }
      await pipe.exec();
      await populate('user', 20_000);
      const pages = await allPages({ patterns, limit: 150 });
      assert.ok(pages.length >= Math.ceil(expected.length / 150), `${pages.length} pages`);
      assert.ok(
        pages.slice(0, -1).every((page) => page.length === 150),
        'every page but the last is full',
      );
      const keys = pages.flat().map((entry) => entry.key.toString());
      assert.equal(new Set(keys).size, keys.length, 'no key twice');
      assert.deepEqual(keys.sort(), expected.sort());
    });
  }

  test('a page stops scanning once it is full', async () => {
    await populate('lock', 2_000);
    await populate('user', 50_000);
    await fx.redis.config('RESETSTAT');
    const { entries, next } = await discoverLocks(fx.redis, { limit: 10 });
    assert.equal(entries.length, 10);
    assert.ok(next);
    assert.ok((await scanCalls(fx.redis)) <= 3, 'a few SCANs, not the whole keyspace');
  });

  test('an empty keyspace gives an empty last page', async () => {
    assert.deepEqual(await discoverLocks(fx.redis), { entries: [], next: undefined });
  });
});

describe('abort', () => {
  test('an aborted signal rejects before any command is sent', async () => {
    await fx.redis.config('RESETSTAT');
    await assert.rejects(discoverLocks(fx.redis, { signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(await scanCalls(fx.redis), 0);
  });

  test('aborting stops the scan at once; the last cursor can be used again', async () => {
    await populate('lock', 500);
    await populate('user', 100_000);
    const first = await discoverLocks(fx.redis, { limit: 100 });
    await fx.redis.config('RESETSTAT');
    const controller = new AbortController();
    const page = discoverLocks(fx.redis, { after: first.next, limit: Infinity, signal: controller.signal });
    while ((await scanCalls(fx.redis)) < 3) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await assert.rejects(page, { name: 'AbortError' });
    const atAbort = await scanCalls(fx.redis);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const later = await scanCalls(fx.redis);
    assert.ok(later - atAbort <= 1, `SCANs went on after abort: ${atAbort} then ${later}`);
    assert.ok(later < 50, `${later} SCANs: a full pass over 100k keys takes about 100`);

    const rest = await discoverLocks(fx.redis, { after: first.next, limit: Infinity });
    assert.equal(first.entries.length + rest.entries.length, 500);
    assert.equal(new Set([...first.entries, ...rest.entries].map((entry) => entry.key.toString())).size, 500);
  });
});

describe('errors', () => {
  test('a command the ACL user may not run fails the page, naming it', async () => {
    await fx.redis.set('lock:a', 'h:1:abc');
    await fx.redis.acl('SETUSER', 'viewer', 'on', '>secret', '~*', '+@all', '-getrange');
    const viewer = fx.server.client({ username: 'viewer', password: 'secret' });
    try {
      await assert.rejects(discoverLocks(viewer), /NOPERM.*getrange/i);
    } finally {
      viewer.disconnect();
      await fx.redis.acl('DELUSER', 'viewer');
    }
  });

  test('a limit below 1 is refused', async () => {
    await assert.rejects(discoverLocks(fx.redis, { limit: 0 }), RangeError);
  });
});

describe('binary safety', () => {
  test('binary keys keep their exact bytes: GET and release work with them', async () => {
    const key = Buffer.from([...Buffer.from('lock:'), 0xff, 0x00, 0x0a, 0x5c, 0xc3]);
    await fx.redis.set(key, 'api-1:4711:9f86d081884c7d65', 'PX', 10_000);
    const [entry] = (await discoverLocks(fx.redis)).entries as TokenLock[];
    assert.ok(entry.key.equals(key));
    assert.equal(presentLock(entry, Date.now()).label, 'lock:\\xff\\x00\\x0a\\\\\\xc3');
    assert.equal(await fx.redis.get(entry.key), 'api-1:4711:9f86d081884c7d65');
    assert.equal(await fx.locks.release(entry.key, entry.token), true);
    assert.equal(await fx.redis.exists(key), 0);
  });

  test('a binary token reads as data; its exact bytes are kept', async () => {
    const value = Buffer.from([0xff, 0xfe, 0x00, 0x01]);
    await fx.redis.set('lock:bin', value);
    const [entry] = (await discoverLocks(fx.redis)).entries as OtherKey[];
    assert.deepEqual([entry.kind, entry.why, entry.preview], ['other', 'binary', 'ff fe 00 01']);
    assert.ok(entry.value.type === 'string' && entry.value.head.equals(value));
  });

  test('a 1 MiB value is not read whole', async () => {
    await fx.redis.set('lock:big', 'x'.repeat(1024 * 1024));
    await fx.redis.set('lock:big-text', 'é'.repeat(512 * 1024)); // 2-byte chars: the sample ends mid-character
    await fx.redis.set('lock:big-binary', Buffer.alloc(1024 * 1024, 0xff));
    const { entries } = await discoverLocks(fx.redis);
    for (const key of ['lock:big', 'lock:big-text', 'lock:big-binary']) {
      const entry = byKey<OtherKey>(entries, key);
      assert.deepEqual([entry.kind, entry.why, entry.size], ['other', 'long', 1024 * 1024], key);
      assert.ok(entry.value.type === 'string' && entry.value.head.length <= 1024, `${key}: read ${entry.value.type}`);
      assert.ok(entry.preview.length <= 200, `${key}: preview of ${entry.preview.length} chars`);
    }
    assert.match(byKey<OtherKey>(entries, 'lock:big-text').preview, /^é+…$/);
    assert.match(byKey<OtherKey>(entries, 'lock:big-binary').preview, /^ff ff .* …$/);
  });
});

/**
 * The commands SLOWLOG caught that are slow again when re-run, 3 times each: on a loaded
 * machine the OS can pause redis-server during any command, but an O(n) command is slow every time.
 */
async function slowWhenRepeated(redis: Redis): Promise<string[]> {
  const caught = (await redis.slowlog('GET', 128)) as [number, number, number, string[]][];
  const slow: string[] = [];
  for (const [, , micros, [command, ...args]] of caught) {
    let slowRuns = 0;
    for (let run = 0; run < 3; run++) {
      await redis.slowlog('RESET');
      await redis.call(command, ...args);
      if (((await redis.slowlog('LEN')) as number) > 0) slowRuns++;
    }
    if (slowRuns === 3) slow.push(`${[command, ...args].join(' ').slice(0, 80)}: ${micros} us`);
  }
  return slow;
}

test('on 200k keys no command takes over 10 ms (SLOWLOG)', async () => {
  await populate('data', 200_000);
  const pipe = fx.redis.pipeline();
  for (let i = 0; i < 2_000; i++) {
    if (i % 4 === 0) pipe.hset(`app:lock:${i}`, `8743c9c0-0795-4907-87fd-6c719a6b4586:${i}`, '1');
    else pipe.set(`lock:{job:${i}}`, `worker:${i}:abc`, 'PX', 60_000);
  }
  pipe.set('lock:huge', 'x'.repeat(1024 * 1024));
  await pipe.exec();
  await fx.redis.config('SET', 'slowlog-log-slower-than', '10000');
  await fx.redis.slowlog('RESET');
  const pages = await allPages({ limit: 500 });
  assert.equal(pages.flat().length, 2_001);
  assert.deepEqual(await slowWhenRepeated(fx.redis), []);
});

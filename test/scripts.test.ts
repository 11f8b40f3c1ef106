// Every branch of the plain lock's contract (acquire, release, extend), against a real Redis 7.0 and Valkey 9.
// The runtime runs the Lua scripts here (native: 'lua'); test/native.test.ts holds the native path to them.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { parseScript } from '../pack/pack';
import { ScriptReplyError } from '../pack/replies';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { rejectsAndWritesNothing, sleep, useRedis, zeroAndWritesNothing } from './helpers';

for (const server of SERVER_KINDS) describe(server, () => contract(server));

function contract(server: ServerKind): void {
  const fx = useRedis({ server }, { native: 'lua' });
  const TTL = 10_000;

  beforeEach(async () => {
    await fx.redis.flushall();
  });

  async function assertTtlNear(key: string, ttl: number): Promise<void> {
    const pttl = await fx.redis.pttl(key);
    assert.ok(pttl > ttl - 1000 && pttl <= ttl, `PTTL ${pttl} should be close to ${ttl}`);
  }

  describe('acquire', () => {
    test('takes a free lock: SET token PX ttl, reply 1', async () => {
      assert.equal(await fx.locks.acquire('lock:a', 'owner-1', TTL), 1);
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
      await assertTtlNear('lock:a', TTL);
    });

    test('with a fence key: INCRs it and replies the fencing token', async () => {
      await fx.redis.set('fence:a', '41');
      assert.equal(await fx.locks.acquire('lock:a', 'owner-1', TTL, { fence: 'fence:a' }), 42);
      assert.equal(await fx.redis.get('fence:a'), '42');
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
    });

    test('a missing fence key starts at 1', async () => {
      assert.equal(await fx.locks.acquire('lock:a', 'owner-1', TTL, { fence: 'fence:a' }), 1);
    });

    test('same token again: resets the TTL to ttl and replies 1', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', 2000);
      assert.equal(await fx.locks.acquire('lock:a', 'owner-1', 60_000), 1);
      await assertTtlNear('lock:a', 60_000);
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
    });

    test('same token again with a fence: current fencing token, not incremented', async () => {
      const first = await fx.locks.acquire('lock:a', 'owner-1', 2000, { fence: 'fence:a' });
      assert.equal(await fx.locks.acquire('lock:a', 'owner-1', 60_000, { fence: 'fence:a' }), first);
      assert.equal(await fx.redis.get('fence:a'), String(first));
      await assertTtlNear('lock:a', 60_000);
    });

    test('held by another token: 0 and nothing changes, fence included', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', TTL, { fence: 'fence:a' });
      await zeroAndWritesNothing(fx.redis, () => fx.locks.acquire('lock:a', 'owner-2', 60_000));
      await zeroAndWritesNothing(fx.redis, () => fx.locks.acquire('lock:a', 'owner-2', 60_000, { fence: 'fence:a' }));
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
    });

    test('a fence key that is not an integer: ERR naming it, nothing written', async () => {
      await fx.redis.set('fence:a', 'abc');
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.acquire('lock:a', 'owner-1', TTL, { fence: 'fence:a' }),
        /^ReplyError: ERR acquire: fence key/,
      );
      assert.equal(await fx.redis.exists('lock:a'), 0);
    });

    test('a same-owner retry with no fence key yet starts it at 1 (documented)', async () => {
      assert.equal(await fx.locks.acquire('lock:a', 'owner-1', TTL), 1);
      assert.equal(await fx.locks.acquire('lock:a', 'owner-1', TTL, { fence: 'fence:a' }), 1);
      assert.equal(await fx.redis.get('fence:a'), '1');
    });

    test('a fence key of another type: an error, nothing written', async () => {
      await fx.redis.hset('fence:a', 'n', '1');
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.acquire('lock:a', 'owner-1', TTL, { fence: 'fence:a' }),
        /WRONGTYPE/,
      );
      assert.equal(await fx.redis.exists('lock:a'), 0);
    });

    test('wrong number of keys: ERR', async () => {
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('acquire', [], ['t', TTL]),
        /^ReplyError: ERR acquire takes 1 or 2 keys/,
      );
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('acquire', ['lock:a', 'fence:a', 'x'], ['t', TTL]),
        /^ReplyError: ERR acquire takes 1 or 2 keys/,
      );
    });
  });

  describe('a fence key that INCR would reject: ERR naming it and nothing written, whoever holds the lock', () => {
    // Written by something else: leading zeros, signs, exponents, spaces, more than 15 digits.
    const corrupt = ['007', '00', '-1', '+1', '1e3', ' 5', 'abc', '', '1000000000000000'];
    const fenced: Record<string, (token: string) => Promise<unknown>> = {
      acquire: (token) => fx.locks.run('acquire', ['lock:{f}', 'fence:{f}'], [token, TTL]),
      acquire_queued: (token) =>
        fx.locks.run('acquire_queued', ['lock:{f}', 'lock:{f}:waiters', 'fence:{f}'], [token, TTL, TTL]),
      queue_acquire: (token) =>
        fx.locks.run(
          'queue_acquire',
          ['lock:{f}', 'lock:{f}:waiters', 'lock:{f}:tickets', 'fence:{f}'],
          [token, TTL, TTL, TTL, 't.1', 1],
        ),
    };
    for (const [script, call] of Object.entries(fenced)) {
      for (const value of corrupt) {
        test(`${script}: fence '${value}'`, async () => {
          await fx.redis.set('fence:{f}', value);
          const message = new RegExp(`^ReplyError: ERR ${script}: fence key must hold a non-negative integer`);
          await rejectsAndWritesNothing(fx.redis, () => call('owner-1'), message);
          await fx.redis.set('lock:{f}', 'owner-1', 'PX', TTL);
          await rejectsAndWritesNothing(fx.redis, () => call('owner-1'), message);
          await rejectsAndWritesNothing(fx.redis, () => call('owner-2'), message);
          assert.equal(await fx.redis.get('fence:{f}'), value);
        });
      }
      test(`${script}: fence '0' is an integer: the first holder gets 1`, async () => {
        await fx.redis.set('fence:{f}', '0');
        const reply = await call('owner-1');
        assert.equal(Array.isArray(reply) ? reply[0] : reply, 1);
      });
    }
  });

  describe('release', () => {
    test('held by the token: deletes it, reply 1', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', TTL);
      assert.equal(await fx.locks.release('lock:a', 'owner-1'), true);
      assert.equal(await fx.redis.exists('lock:a'), 0);
    });

    test('held by another token: 0, nothing changes', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', TTL);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('release', ['lock:a'], ['owner-2']));
      assert.equal(await fx.redis.get('lock:a'), 'owner-1');
    });

    test('no lock: 0, nothing created', async () => {
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('release', ['lock:a'], ['owner-1']));
    });

    test('wrong number of keys: ERR', async () => {
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('release', ['lock:a', 'lock:b', 'lock:c'], ['t']),
        /^ReplyError: ERR release takes 1 or 2 keys/,
      );
    });
  });

  describe('extend', () => {
    test('held by the token: TTL is now ttl (set, not added), reply 1', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', 60_000);
      assert.equal(await fx.locks.extend('lock:a', 'owner-1', 5000), true);
      await assertTtlNear('lock:a', 5000);
      assert.equal(await fx.locks.extend('lock:a', 'owner-1', 90_000), true);
      await assertTtlNear('lock:a', 90_000);
    });

    test('held by another token: 0, nothing changes', async () => {
      await fx.locks.acquire('lock:a', 'owner-1', TTL);
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('extend', ['lock:a'], ['owner-2', 60_000]));
    });

    test('no lock: 0 and the key is never created', async () => {
      await zeroAndWritesNothing(fx.redis, () => fx.locks.run('extend', ['lock:a'], ['owner-1', 60_000]));
      assert.equal(await fx.redis.exists('lock:a'), 0);
    });

    test('wrong number of keys: ERR', async () => {
      await rejectsAndWritesNothing(
        fx.redis,
        () => fx.locks.run('extend', [], ['t', TTL]),
        /^ReplyError: ERR extend takes exactly 1 key/,
      );
    });
  });

  describe('bad arguments get an ERR naming the argument and write nothing', () => {
    const badTtls: [string, (string | number)[]][] = [
      ['0', ['0']],
      ['-5', ['-5']],
      ['abc', ['abc']],
      ['1.5', ['1.5']],
      ['empty', ['']],
      ['missing', []],
      ['exponent', ['1e3']],
      ['padded', [' 500']],
      ['leading zero', ['0500']],
      ['16 digits', ['1000000000000000']],
    ];
    for (const script of ['acquire', 'extend'] as const) {
      for (const [label, ttl] of badTtls) {
        test(`${script}: ttl_ms ${label}`, async () => {
          // Held by the same token, so a write would have been a refresh: prove there is none.
          await fx.locks.acquire('lock:a', 'owner-1', TTL);
          await rejectsAndWritesNothing(
            fx.redis,
            () => fx.locks.run(script, ['lock:a'], ['owner-1', ...ttl]),
            new RegExp(`^ReplyError: ERR ${script}: ARGV\\[2\\] ttl_ms must be a positive integer`),
          );
        });
      }
    }
    for (const script of ['acquire', 'release', 'extend'] as const) {
      for (const [label, token] of [
        ['empty', ['']],
        ['missing', []],
      ] as const) {
        test(`${script}: token ${label}`, async () => {
          await fx.locks.acquire('lock:a', 'owner-1', TTL);
          const args = token.length === 0 ? [] : script === 'release' ? [...token] : [...token, TTL];
          await rejectsAndWritesNothing(
            fx.redis,
            () => fx.locks.run(script, ['lock:a'], args),
            new RegExp(`^ReplyError: ERR ${script}: ARGV\\[1\\] token must be a non-empty string`),
          );
        });
      }
    }
  });

  describe('a key of another type under KEYS[1] gets an error or 0 and stays untouched', () => {
    const seeds: Record<string, () => Promise<unknown>> = {
      hash: () => fx.redis.hset('lock:a', 'holder', '1'),
      list: () => fx.redis.rpush('lock:a', 'x'),
      set: () => fx.redis.sadd('lock:a', 'x'),
      zset: () => fx.redis.zadd('lock:a', 1, 'x'),
      stream: () => fx.redis.xadd('lock:a', '*', 'f', 'v'),
    };
    for (const [type, seed] of Object.entries(seeds)) {
      test(type, async () => {
        await seed();
        await fx.redis.pexpire('lock:a', 60_000);
        for (const [script, args] of [
          ['acquire', ['owner-1', TTL]],
          ['release', ['owner-1']],
          ['extend', ['owner-1', TTL]],
        ] as const) {
          await rejectsAndWritesNothing(fx.redis, () => fx.locks.run(script, ['lock:a'], [...args]), /WRONGTYPE/);
        }
        assert.equal(await fx.redis.type('lock:a'), type);
      });
    }
  });

  describe('binary-safe and large values', () => {
    test('a token with invalid UTF-8 bytes and NULs', async () => {
      const token = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]);
      const other = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc4]);
      assert.equal(await fx.locks.acquire('lock:bin', token, TTL), 1);
      assert.deepEqual(await fx.redis.getBuffer('lock:bin'), token);
      assert.equal(await fx.locks.acquire('lock:bin', other, TTL), 0);
      assert.equal(await fx.locks.release('lock:bin', other), false);
      assert.equal(await fx.locks.extend('lock:bin', token, 2 * TTL), true);
      assert.equal(await fx.locks.release('lock:bin', token), true);
    });

    test('a binary key name', async () => {
      const key = Buffer.from([0x6c, 0x6f, 0x63, 0x6b, 0x3a, 0xff, 0x00]);
      assert.equal(await fx.locks.acquire(key, 'owner-1', TTL), 1);
      assert.equal(await fx.locks.release(key, 'owner-1'), true);
      assert.equal(await fx.redis.exists(key), 0);
    });

    test('a 1 MiB token', async () => {
      const token = 'x'.repeat(1024 * 1024);
      assert.equal(await fx.locks.acquire('lock:big', token, TTL), 1);
      assert.equal(await fx.locks.release('lock:big', `${token}y`), false);
      assert.equal(await fx.locks.release('lock:big', token), true);
    });

    test('the largest accepted lease (15 digits)', async () => {
      assert.equal(await fx.locks.acquire('lock:long', 'owner-1', 999_999_999_999_999), 1);
      assert.ok((await fx.redis.pttl('lock:long')) > 999_999_999_000_000);
    });
  });

  describe('replies are checked against the headers', () => {
    test('a script that answers what its header does not declare: ScriptReplyError naming both', async () => {
      // The pack's extend.lua header over another body: what a server running something else looks like.
      const header = fx.locks.pack.extend.source.split('\n').filter((line) => line.startsWith('--'));
      const locks = new LockScripts(
        fx.redis,
        {
          ...fx.locks.pack,
          extend: parseScript('/elsewhere/extend.lua', [...header, "return 'OK'", ''].join('\n')),
        },
        { native: 'lua' },
      );
      await assert.rejects(
        locks.extend('lock:a', 'owner-1', TTL),
        (error: Error) =>
          error instanceof ScriptReplyError && /^extend\.lua replied "OK", which is none/.test(error.message),
      );
      locks.close();
    });
  });

  describe('expiry and fencing', () => {
    test('a holder that never releases is replaced after its TTL', async () => {
      assert.equal(await fx.locks.acquire('lock:a', 'crashed-owner', 150), 1);
      assert.equal(await fx.locks.acquire('lock:a', 'owner-2', TTL), 0);
      await sleep(200);
      assert.equal(await fx.locks.acquire('lock:a', 'owner-2', TTL), 1);
      assert.equal(await fx.redis.get('lock:a'), 'owner-2');
      assert.equal(
        await fx.locks.release('lock:a', 'crashed-owner'),
        false,
        'the old owner cannot release the new lock',
      );
    });

    test('fencing tokens strictly increase across holders and stay put for a same-owner re-acquire', async () => {
      const tokens: number[] = [];
      for (let holder = 0; holder < 5; holder++) {
        const owner = `owner-${holder}`;
        const token = await fx.locks.acquire('lock:f', owner, TTL, { fence: 'fence:f' });
        assert.equal(await fx.locks.acquire('lock:f', owner, TTL, { fence: 'fence:f' }), token);
        tokens.push(token);
        if (holder % 2 === 0) {
          assert.equal(await fx.locks.release('lock:f', owner), true);
        } else {
          // Let it expire instead: the next holder still gets a larger token.
          await fx.redis.pexpire('lock:f', 1);
          await sleep(5);
        }
      }
      assert.deepEqual(tokens, [1, 2, 3, 4, 5]);
    });
  });
}

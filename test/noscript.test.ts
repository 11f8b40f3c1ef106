// The runtime hides NOSCRIPT: after SCRIPT FLUSH and after a restart the caller sees no error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SCRIPT_NAMES } from '../pack/pack';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { useRedis } from './helpers';

const allLoaded = Object.fromEntries(SCRIPT_NAMES.map((name) => [name, true]));
const noneLoaded = Object.fromEntries(SCRIPT_NAMES.map((name) => [name, false]));

for (const server of SERVER_KINDS) describe(server, () => noscript(server));

function noscript(server: ServerKind): void {
  // The scripts themselves: the native path would not touch the script cache.
  const fx = useRedis({ server }, { native: 'lua' });

  test('load() reports the SHA1s the pack computed', async () => {
    await fx.redis.script('FLUSH');
    const shas = await fx.locks.load();
    for (const name of SCRIPT_NAMES) assert.equal(shas[name], fx.locks.pack[name].sha1);
    assert.deepEqual(await fx.locks.loaded(), allLoaded);
  });

  test('after SCRIPT FLUSH every script still runs, and is cached again', async () => {
    await fx.locks.load();
    await fx.redis.script('FLUSH');
    assert.deepEqual(await fx.locks.loaded(), noneLoaded);

    assert.equal(await fx.locks.acquire('lock:flush', 'owner-1', 10_000), 1);
    assert.equal(await fx.locks.extend('lock:flush', 'owner-1', 20_000), true);
    assert.equal(await fx.locks.release('lock:flush', 'owner-1'), true);
    assert.deepEqual(await fx.locks.loaded(), { ...noneLoaded, acquire: true, extend: true, release: true });
  });

  test('after a redis-server restart the same client recovers with no error reaching the caller', async () => {
    assert.equal(await fx.locks.acquire('lock:restart', 'owner-1', 10_000), 1);
    await fx.server.restart();
    // The restarted server has neither the data nor the script cache.
    assert.equal(await fx.locks.acquire('lock:restart', 'owner-2', 10_000), 1);
    assert.equal(await fx.locks.release('lock:restart', 'owner-1'), false);
    assert.equal(await fx.locks.release('lock:restart', 'owner-2'), true);
    assert.deepEqual(await fx.locks.loaded(), { ...noneLoaded, acquire: true, release: true });
  });

  test('other errors are not swallowed by the NOSCRIPT fallback', async () => {
    await fx.redis.script('FLUSH');
    await assert.rejects(fx.locks.acquire('lock:x', '', 10_000), /^ReplyError: ERR acquire: ARGV\[1\] token/);
  });

  test('the kinds and the waiting acquire recover from SCRIPT FLUSH too', async () => {
    await fx.redis.script('FLUSH');
    assert.equal(await fx.locks.reentrant.acquire('lock:k', 'o', 10_000), 1);
    assert.equal(await fx.locks.rw.read('lock:rw', 'o', 10_000), true);
    assert.equal(await fx.locks.semaphore.acquire('lock:s', 'o', 10_000, 2), true);
    assert.equal(await fx.locks.acquire('lock:q', 'o', 10_000, { waitMs: 1000 }), 1);
  });
}

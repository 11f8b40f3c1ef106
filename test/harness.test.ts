// The throwaway-Redis harness itself: where it finds redis-server, how it runs it, and that it
// never leaves one behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, test } from 'node:test';
import { findRedisServer, serverBinaries, startRedis } from '../harness/redis';
import { valkeyCacheRoot } from '../harness/valkey';
import { sleep } from './helpers';

describe('findRedisServer', () => {
  test('finds it on PATH', () => {
    const found = findRedisServer();
    assert.match(found, /redis-server$/);
    assert.equal(findRedisServer({ path: dirname(found), isRoot: false }), found);
  });

  test('missing and not root: fails naming the install command', () => {
    assert.throws(
      () => findRedisServer({ path: '/nonexistent', isRoot: false }),
      /redis-server is not on PATH.*Install it with: sudo apt-get install -y redis-server redis-tools/,
    );
  });

  test('missing, root, but no apt-get: fails naming the install command', () => {
    assert.throws(() => findRedisServer({ path: '/nonexistent', isRoot: true }), /apt-get install -y redis-server/);
  });
});

test('a server on a free loopback port other than 6379, no persistence, own temp dir, removed on stop', async () => {
  const server = await startRedis({ password: 's3cret' });
  const redis = server.client();
  try {
    assert.notEqual(server.port, 6379);
    assert.equal(server.host, '127.0.0.1');
    assert.deepEqual(await redis.config('GET', 'save'), ['save', '']);
    assert.deepEqual(await redis.config('GET', 'appendonly'), ['appendonly', 'no']);
    assert.deepEqual(await redis.config('GET', 'bind'), ['bind', '127.0.0.1']);
    assert.deepEqual(await redis.config('GET', 'dir'), ['dir', server.dir]);
    assert.match(server.url, /^redis:\/\/:s3cret@127\.0\.0\.1:\d+$/);
    const anonymous = server.client({ password: undefined, enableReadyCheck: false });
    await assert.rejects(anonymous.ping(), /NOAUTH/);
    anonymous.disconnect();
  } finally {
    redis.disconnect();
    await server.stop();
  }
  assert.equal(existsSync(server.dir), false);
  assert.equal(isAlive(server.pid!), false);
});

test("Valkey 9, built once from Debian's source into the cache, with DELIFEQ and SET IFEQ", async () => {
  const { server: binary, cli } = await serverBinaries('valkey');
  assert.match(binary, new RegExp(`^${valkeyCacheRoot()}/valkey-9\\.\\d+\\.\\d+/bin/valkey-server$`));
  assert.ok(existsSync(cli));
  const server = await startRedis({ server: 'valkey' });
  const redis = server.client();
  try {
    assert.equal(server.kind, 'valkey');
    assert.match(await redis.info('server'), /valkey_version:9\./);
    assert.notEqual(((await redis.call('COMMAND', 'INFO', 'DELIFEQ')) as unknown[])[0], null);
    await redis.set('k', 'v');
    assert.equal(await redis.call('SET', 'k', 'v', 'PX', 1000, 'IFEQ', 'v'), 'OK');
    assert.equal(await redis.call('DELIFEQ', 'k', 'v'), 1);
  } finally {
    redis.disconnect();
    await server.stop();
  }
});

for (const mode of ['fail', 'exit'] as const) {
  test(`a test process that ${mode === 'fail' ? 'fails' : 'exits mid-test'} leaves no redis-server behind`, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/abandons-redis.ts', mode], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.notEqual(code, 0, 'the fixture must have failed');
    const pid = Number(/redis-pid (\d+)/.exec(output)?.[1]);
    assert.ok(pid > 0, `the fixture printed its redis pid:\n${output}`);
    for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(20);
    assert.equal(isAlive(pid), false, `redis-server ${pid} is still running`);
  });
}

/** Running, not a zombie: in a container without an init that reaps, killed orphans stay as zombies. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

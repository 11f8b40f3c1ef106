// Connection settings and sessions: URL checks with specific messages, and a real server's
// answers (wrong password, nothing listening, restart) turned into states the views show.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConnectionError, describeConnectionError } from '../extension/src/connections/errors';
import { redisOptions } from '../extension/src/connections/options';
import { parseRedisUrl } from '../extension/src/connections/url';
import { Session, type SessionState } from '../extension/src/connections/session';
import { startRedis } from '../harness/redis';
import { sleep } from './helpers';

describe('parseRedisUrl', () => {
  test('accepts redis:// and rediss:// with defaults filled in', () => {
    assert.deepEqual(parseRedisUrl('redis://cache.internal'), {
      kind: 'standalone',
      tls: false,
      nodes: [{ host: 'cache.internal', port: 6379 }],
      host: 'cache.internal',
      port: 6379,
      db: 0,
      username: undefined,
      password: undefined,
      url: 'redis://cache.internal:6379/0',
    });
    const tls = parseRedisUrl(' rediss://app:s%40cret@10.0.0.5:6380/3 ');
    assert.equal(tls.tls, true);
    assert.equal(tls.username, 'app');
    assert.equal(tls.password, 's@cret', 'the password is returned for secret storage');
    assert.equal(tls.url, 'rediss://10.0.0.5:6380/3', 'and never kept in the saved URL');
    assert.equal(parseRedisUrl('localhost:7000').url, 'redis://localhost:7000/0', 'a bare host:port means redis://');
    assert.equal(parseRedisUrl('redis://[::1]:6379').url, 'redis://[::1]:6379/0');
  });

  test('accepts Cluster seed nodes and Sentinel addresses with a master name', () => {
    const cluster = parseRedisUrl('redis-cluster://10.0.0.1:7000, 10.0.0.2');
    assert.equal(cluster.kind, 'cluster');
    assert.deepEqual(cluster.nodes, [
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 6379 },
    ]);
    assert.equal(cluster.url, 'redis-cluster://10.0.0.1:7000,10.0.0.2:6379', 'Cluster has no database number');
    const sentinel = parseRedisUrl('rediss-sentinel://app:pw@s1,[::1]:26380/2#orders%20main');
    assert.deepEqual(
      {
        kind: sentinel.kind,
        tls: sentinel.tls,
        nodes: sentinel.nodes,
        db: sentinel.db,
        masterName: sentinel.masterName,
        password: sentinel.password,
      },
      {
        kind: 'sentinel',
        tls: true,
        nodes: [
          { host: 's1', port: 26379 },
          { host: '::1', port: 26380 },
        ],
        db: 2,
        masterName: 'orders main',
        password: 'pw',
      },
      'sentinels default to port 26379',
    );
    assert.equal(
      sentinel.url,
      'rediss-sentinel://s1:26379,[::1]:26380/2#orders%20main',
      'credentials are dropped from the saved URL',
    );
  });

  const rejects: Array<[string, RegExp]> = [
    ['', /Enter a URL/],
    ['http://localhost:6379', /Unsupported scheme 'http'/],
    ['redis://localhost:99999', /'localhost:99999' is not a host:port/],
    ['redis://localhost:6379/abc', /'\/abc' is not a database number/],
    ['redis://localhost:6379/99999', /Database 99999 is out of range/],
    ['redis://localhost:6379/0?tls=true', /Remove '\?tls=true'/],
    ['redis:// bad host', /'bad host' is not a host:port/],
    [
      'redis://a:1,b:2',
      /redis:\/\/ takes one host; list several with redis-cluster:\/\/ \(seed nodes\) or redis-sentinel:\/\//,
    ],
    ['redis-cluster://a:1,,b:2', /has an empty host/],
    ['redis-cluster://a:7000/3', /Redis Cluster has database 0 only/],
    ['redis-sentinel://s1:26379/0', /Add the master's name after '#'/],
    ['redis://h:6379/0#main', /a master name \('#name'\) is for redis-sentinel:\/\/ only/],
    ['redis+sentinel://h', /Unsupported scheme 'redis\+sentinel'/],
  ];
  for (const [input, message] of rejects) {
    test(`rejects ${JSON.stringify(input)} with a specific message`, () => {
      assert.throws(
        () => parseRedisUrl(input),
        (error: Error) => error instanceof ConnectionError && message.test(error.message),
      );
    });
  }
});

describe('redisOptions', () => {
  test('TLS verifies certificates unless allowed otherwise; an unreadable CA file is named', () => {
    const config = { id: 'x', name: 'x', url: 'rediss://example.com:6380/1' };
    assert.equal((redisOptions(config, undefined).tls as { rejectUnauthorized: boolean }).rejectUnauthorized, true);
    assert.equal(
      (redisOptions({ ...config, tls: { allowInsecure: true } }, undefined).tls as { rejectUnauthorized: boolean })
        .rejectUnauthorized,
      false,
    );
    assert.equal(redisOptions({ ...config, url: 'redis://example.com:6380/1' }, undefined).tls, undefined);
    assert.throws(
      () => redisOptions({ ...config, tls: { caFile: '/nonexistent/ca.pem' } }, undefined),
      /Cannot read the CA file \/nonexistent\/ca\.pem/,
    );
  });
});

test('describeConnectionError names TLS causes', () => {
  const error = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  assert.match(
    describeConnectionError(error, 'rediss://h:1/0'),
    /TLS failure at rediss:\/\/h:1\/0: the server certificate is self-signed/,
  );
});

describe('Session against a real redis-server', () => {
  const states = (session: Session) => {
    const seen: SessionState['kind'][] = [];
    session.onDidChange((state) => seen.push(state.kind));
    return seen;
  };

  test('connects and reports version and role; a wrong or missing password fails with its cause', async () => {
    const server = await startRedis({ password: 'right-password' });
    try {
      const config = { id: 'a', name: 'local', url: server.url.replace(/\/\/[^@]*@/, '//') };
      const good = new Session(config, 'right-password');
      await good.connect();
      assert.equal(good.state.kind, 'connected');
      assert.match((good.state as { version: string }).version, /^\d+\.\d+/);
      assert.equal((good.state as { role: string }).role, 'master');
      good.dispose();

      const wrong = new Session(config, 'wrong-password');
      await assert.rejects(wrong.connect(), /Wrong username or password .* \(WRONGPASS\)/);
      assert.equal(wrong.state.kind, 'error');
      wrong.dispose();

      const missing = new Session(config, undefined);
      await assert.rejects(missing.connect(), /requires a password \(NOAUTH\)/);
      missing.dispose();
    } finally {
      await server.stop();
    }
  });

  test('nothing listening: refused, with the address', async () => {
    const server = await startRedis();
    const url = `redis://127.0.0.1:${server.port}/0`;
    await server.stop();
    const session = new Session({ id: 'b', name: 'gone', url }, undefined);
    await assert.rejects(
      session.connect(),
      new RegExp(`Connection refused at redis://127\\.0\\.0\\.1:${server.port}/0`),
    );
    session.dispose();
  });

  test('a restart shows reconnecting, then connected again', async () => {
    const server = await startRedis();
    const session = new Session({ id: 'c', name: 'restarts', url: `redis://127.0.0.1:${server.port}/0` }, undefined);
    try {
      await session.connect();
      const seen = states(session);
      await server.restart();
      for (let i = 0; i < 100 && session.state.kind !== 'connected'; i++) await sleep(50);
      for (let i = 0; i < 100 && !seen.includes('connected'); i++) await sleep(50);
      assert.ok(seen.includes('reconnecting'), `states: ${seen.join(', ')}`);
      assert.equal(session.state.kind, 'connected', `states: ${seen.join(', ')}`);
      assert.equal(await session.redis.ping(), 'PONG');
    } finally {
      session.dispose();
      await server.stop();
    }
  });
});

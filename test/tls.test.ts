// TLS through the extension's own connection code (Session, redisOptions, describeConnectionError)
// against a redis-server that only speaks TLS, with a throwaway CA made by openssl for this run.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { ConnectionError } from '../extension/src/connections/errors';
import { redisOptions } from '../extension/src/connections/options';
import type { TlsSettings } from '../extension/src/connections/saved';
import { parseRedisUrl } from '../extension/src/connections/url';
import { Session } from '../extension/src/connections/session';
import { discoverLocks } from '../extension/src/locks/discovery';
import { startRedis, type RedisServer } from '../harness/redis';
import { makeTlsFiles, type TlsFiles } from '../harness/tls';

// A hang would otherwise last until the runner's own timeout: fail the test instead.
const NO_HANG = { timeout: 20_000 };

let files: TlsFiles;
let server: RedisServer;

before(async () => {
  files = makeTlsFiles();
  server = await startRedis({ tls: files });
});

after(async () => {
  await server?.stop();
  if (!files) return;
  files.remove();
  assert.equal(existsSync(files.dir), false, 'the keys and certificates are deleted');
});

const tlsUrl = () => `rediss://127.0.0.1:${server.port}/0`;

/** Connects a Session as the extension does; the caller disposes it. */
async function connect(url: string, tls: TlsSettings): Promise<{ session: Session; error?: ConnectionError }> {
  const session = new Session({ id: 'tls', name: 'tls', url, tls }, undefined);
  try {
    await session.connect();
    return { session };
  } catch (error) {
    assert.ok(error instanceof ConnectionError, `a ConnectionError, not ${String(error)}`);
    return { session, error };
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('rediss:// with certificate verification', () => {
  test('the CA that signed the server certificate: connects, verified, and runs commands', NO_HANG, async () => {
    const { session, error } = await connect(tlsUrl(), { caFile: files.caFile });
    try {
      assert.equal(error, undefined);
      assert.equal(session.state.kind, 'connected');
      assert.match((session.state as { version: string }).version, /^\d+\.\d+/);
      const socket = session.masters()[0].stream as TLSSocket;
      assert.equal(socket.encrypted, true, 'the connection is TLS');
      assert.equal(socket.authorized, true, `the certificate was verified (${socket.authorizationError})`);

      await session.redis.set('lock:tls', 'api-1:4711:9f86d081884c7d65', 'PX', 30_000);
      assert.equal(await session.redis.get('lock:tls'), 'api-1:4711:9f86d081884c7d65');
      // The harness's own client (tests seed data with it) speaks TLS to this server too.
      assert.equal(server.url, `rediss://127.0.0.1:${server.port}`);
      const direct = server.client();
      try {
        assert.equal(await direct.get('lock:tls'), 'api-1:4711:9f86d081884c7d65');
      } finally {
        direct.disconnect();
      }
      const { entries } = await discoverLocks(session.masters()[0]);
      assert.deepEqual(
        entries.map((entry) => [entry.key.toString(), entry.kind]),
        [['lock:tls', 'token']],
      );
    } finally {
      session.dispose();
    }
  });

  test('by host name: the certificate names localhost too, and SNI is sent only for names', NO_HANG, async () => {
    const { session, error } = await connect(`rediss://localhost:${server.port}/0`, { caFile: files.caFile });
    try {
      assert.equal(error, undefined);
      assert.equal((session.masters()[0].stream as TLSSocket).authorized, true);
    } finally {
      session.dispose();
    }
    // RFC 6066 forbids an IP address as SNI (Node warns, DEP0123); the IP SAN is checked against the host instead.
    const byIp = redisOptions({ id: 'a', name: 'a', url: tlsUrl(), tls: { caFile: files.caFile } }, undefined).tls!;
    assert.equal(byIp.servername, undefined);
    assert.equal(byIp.rejectUnauthorized, true);
    const byName = redisOptions({ id: 'a', name: 'a', url: `rediss://localhost:${server.port}/0` }, undefined).tls!;
    assert.equal(byName.servername, 'localhost');
  });

  test(
    'an unrelated CA: refused, and the message says verification failed and with which CA file',
    NO_HANG,
    async () => {
      const { session, error } = await connect(tlsUrl(), { caFile: files.otherCaFile });
      try {
        assert.ok(error, 'the connection must fail');
        assert.match(error.message, new RegExp(`^TLS failure at ${escape(tlsUrl())}: `));
        // Node reports SELF_SIGNED_CERT_IN_CHAIN when the server sends its CA along, an issuer error otherwise.
        assert.match(
          error.message,
          /(self-signed CA that is not trusted|not signed by a trusted CA|CA that signed the server certificate is not trusted) \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
        );
        assert.match(
          error.message,
          new RegExp(`Certificate verification failed with the CA in ${escape(files.otherCaFile)}`),
        );
        assert.match(error.message, /edit the connection and give the CA file that signed the server certificate/);
        assert.deepEqual(session.state, { kind: 'error', message: error.message });
      } finally {
        session.dispose();
      }
    },
  );

  test("no CA file: the system's CAs do not trust the throwaway CA, and the message says so", NO_HANG, async () => {
    const { session, error } = await connect(tlsUrl(), {});
    try {
      assert.ok(error, 'the connection must fail');
      assert.match(
        error.message,
        /^TLS failure at .*\((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
      );
      assert.match(error.message, /Certificate verification failed with the system's CAs/);
    } finally {
      session.dispose();
    }
  });
});

describe('allowInsecure', () => {
  test('connects without verifying, even with the wrong CA, and commands work', NO_HANG, async () => {
    for (const tls of [{ allowInsecure: true }, { allowInsecure: true, caFile: files.otherCaFile }]) {
      const { session, error } = await connect(tlsUrl(), tls);
      try {
        assert.equal(error, undefined, JSON.stringify(tls));
        assert.equal(session.state.kind, 'connected');
        const socket = session.masters()[0].stream as TLSSocket;
        assert.equal(socket.encrypted, true, 'still encrypted');
        assert.equal(socket.authorized, false, 'but not verified');
        assert.match(
          String(socket.authorizationError),
          /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/,
        );
        assert.equal(await session.redis.incr('insecure:count'), tls.caFile ? 2 : 1);
      } finally {
        session.dispose();
      }
    }
  });
});

describe('the wrong scheme', () => {
  test('redis:// against the TLS port fails at once with a message pointing to rediss://', NO_HANG, async () => {
    const url = `redis://127.0.0.1:${server.port}/0`;
    assert.equal(parseRedisUrl(url).tls, false);
    const { session, error } = await connect(url, { caFile: files.caFile });
    try {
      assert.ok(error, 'the connection must fail');
      assert.match(
        error.message,
        new RegExp(
          `^${escape(url)} closed the connection before answering \\((ECONNRESET|Connection is closed\\.?)\\)`,
        ),
      );
      assert.match(error.message, /if the server only accepts TLS on this port, use rediss:\/\//);
      assert.equal(session.state.kind, 'error');
    } finally {
      session.dispose();
    }
  });

  test(
    'rediss:// against a plain-text server fails (after the connect timeout) naming TLS as a possible cause',
    NO_HANG,
    async () => {
      const plain = await startRedis();
      const url = `rediss://127.0.0.1:${plain.port}/0`;
      const { session, error } = await connect(url, { caFile: files.caFile });
      try {
        assert.ok(error, 'the connection must fail');
        assert.match(
          error.message,
          /^(Timed out connecting to .*a server without TLS on this port \(then use redis:\/\/\)|TLS failure at .*\(ERR_SSL_WRONG_VERSION_NUMBER\)\. Use redis:\/\/)/,
        );
        assert.equal(session.state.kind, 'error');
      } finally {
        session.dispose();
        await plain.stop();
      }
    },
  );
});

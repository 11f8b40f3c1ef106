// Connection settings: parsing and checking what the user typed, turning it into ioredis
// options, and turning connection failures into messages that name the cause. No `vscode`.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { RedisOptions } from 'ioredis';

/** A saved connection. The password is never here: it lives in SecretStorage under `id`. */
export interface ConnectionConfig {
  id: string;
  name: string;
  /** `redis://host:port/db` or `rediss://...` (TLS), without credentials. */
  url: string;
  username?: string;
}

export interface ParsedUrl {
  tls: boolean;
  host: string;
  port: number;
  db: number;
  username?: string;
  /** A password typed into the URL: the caller moves it to SecretStorage and drops it from the URL. */
  password?: string;
  /** The URL without credentials, as saved. */
  url: string;
}

export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

const MAX_DB = 15_999; // Redis accepts `databases` up to this order; anything above is a typo.

/** Checks a redis:// or rediss:// URL; every problem gets a message that says what to fix. */
export function parseRedisUrl(input: string): ParsedUrl {
  const text = input.trim();
  if (!text) throw new ConnectionError('Enter a URL such as redis://localhost:6379/0.');
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `redis://${text}`);
  } catch {
    throw new ConnectionError(`'${text}' is not a URL; expected redis://host:port/db or rediss://host:port/db.`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConnectionError(`Unsupported scheme '${url.protocol.slice(0, -1)}': use redis:// or rediss:// (TLS).`);
  }
  if (!url.hostname) throw new ConnectionError(`'${text}' has no host; expected redis://host:port/db.`);
  const port = url.port ? Number(url.port) : 6379;
  const path = url.pathname.replace(/^\//, '');
  if (path && !/^\d+$/.test(path)) {
    throw new ConnectionError(`'/${path}' is not a database number; expected /0 to /${MAX_DB} after the port.`);
  }
  const db = path ? Number(path) : 0;
  if (db > MAX_DB) throw new ConnectionError(`Database ${db} is out of range (0 to ${MAX_DB}).`);
  if (url.search || url.hash) throw new ConnectionError(`Remove '${url.search}${url.hash}': options go in the connection's settings.`);
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    tls: url.protocol === 'rediss:',
    host,
    port,
    db,
    username,
    password,
    url: `${url.protocol}//${hostPart}:${port}/${db}`,
  };
}

export interface TlsSettings {
  /** A PEM file with the CA(s) that signed the server's certificate; the system CAs otherwise. */
  caFile?: string;
  /** Skip certificate verification (self-signed development servers). Off by default. */
  allowInsecure?: boolean;
}

/** ioredis options for a connection; fails without side effects when the CA file is unreadable. */
export function redisOptions(config: ConnectionConfig, password: string | undefined, tls: TlsSettings = {}): RedisOptions {
  const parsed = parseRedisUrl(config.url);
  const options: RedisOptions = {
    host: parsed.host,
    port: parsed.port,
    db: parsed.db,
    username: config.username || undefined,
    password: password || undefined,
    connectionName: 'redis-locksmith',
    lazyConnect: true,
    connectTimeout: 5000,
    // A view must answer quickly or say why it cannot: no queue of commands waiting for a server that is down.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
  };
  if (parsed.tls) {
    let ca: Buffer | undefined;
    if (tls.caFile) {
      try {
        ca = readFileSync(tls.caFile);
      } catch (error) {
        throw new ConnectionError(`Cannot read the CA file ${tls.caFile}: ${(error as Error).message}`);
      }
    }
    // SNI takes host names only (RFC 6066): for an IP address Node checks the certificate's IP SANs against `host`.
    options.tls = { ...(isIP(parsed.host) ? {} : { servername: parsed.host }), rejectUnauthorized: !tls.allowInsecure, ...(ca ? { ca } : {}) };
  }
  return options;
}

// Node's TLS error codes: what they mean for the user, and whether a CA would fix them.
const TLS_CAUSES: Record<string, { cause: string; hint?: string }> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: { cause: 'the server certificate is self-signed and not trusted' },
  SELF_SIGNED_CERT_IN_CHAIN: { cause: 'the certificate chain ends in a self-signed CA that is not trusted' },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { cause: 'the server certificate is not signed by a trusted CA' },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { cause: 'the CA that signed the server certificate is not trusted' },
  UNABLE_TO_GET_ISSUER_CERT: { cause: 'the CA that signed the server certificate is not trusted' },
  CERT_UNTRUSTED: { cause: 'the server certificate is not trusted' },
  CERT_SIGNATURE_FAILURE: { cause: 'the server certificate has an invalid signature' },
  CERT_HAS_EXPIRED: { cause: 'the server certificate has expired', hint: 'Renew the server certificate.' },
  CERT_NOT_YET_VALID: { cause: 'the server certificate is not valid yet', hint: "Check this machine's clock and the server's." },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    cause: 'the server certificate does not name this host',
    hint: 'Connect with a host name or IP address listed in the certificate (subjectAltName).',
  },
  ERR_SSL_WRONG_VERSION_NUMBER: { cause: 'the server does not speak TLS on this port', hint: 'Use redis:// for a server without TLS.' },
};

/** What the caller knows beyond the error: the TLS settings used, and whether this was the first connection attempt. */
export interface ErrorContext {
  tls?: TlsSettings;
  /** The first connection attempt: the server never answered on this connection. */
  connecting?: boolean;
}

/** A message for a failed connection or command that names the cause and what to do. */
export function describeConnectionError(error: unknown, target: string, context: ErrorContext = {}): string {
  const err = error as NodeJS.ErrnoException & { message?: string };
  const message = String(err?.message ?? error);
  const code = err?.code ?? '';
  const tls = TLS_CAUSES[code];
  if (tls) return `TLS failure at ${target}: ${tls.cause} (${code}). ${tls.hint ?? verifyHint(context.tls)}`;
  if (/WRONGPASS|invalid username-password/i.test(message)) return `Wrong username or password for ${target} (WRONGPASS).`;
  if (/NOAUTH/.test(message)) return `${target} requires a password (NOAUTH): edit the connection and set one.`;
  // Redis 7.0 reports a command a script may not run as `ERR The user executing the script can't run this command...`.
  if (/NOPERM|user executing the script can't run/.test(message)) {
    return `Not permitted on ${target} (${message.replace(/^ReplyError: /, '')}): the connection's ACL user lacks this right; the README's ACLs section lists the rules to grant.`;
  }
  if (code === 'ECONNREFUSED') return `Connection refused at ${target}: is redis-server running and listening there?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Unknown host in ${target} (${code}).`;
  if (code === 'ETIMEDOUT' || /connect ETIMEDOUT/.test(message)) {
    // A plain-text server never answers a TLS handshake: it waits for a command line that never comes.
    const plainServer = context.connecting && target.startsWith('rediss://') ? ', or a server without TLS on this port (then use redis://)' : '';
    return `Timed out connecting to ${target}: unreachable host or a firewall${plainServer}.`;
  }
  if (/ERR_SSL|SSL routines|wrong version number/i.test(message)) return `TLS failure at ${target}: ${message}`;
  if (/Connection is closed|ECONNRESET/i.test(message) || code === 'ECONNRESET') {
    // A TLS-only port drops a plain-text client without a word: the likeliest cause on a first connect.
    if (context.connecting && target.startsWith('redis://')) {
      return `${target} closed the connection before answering (${code || message}): if the server only accepts TLS on this port, use rediss://.`;
    }
    return `The connection to ${target} closed (${code || message}).`;
  }
  return `${target}: ${message}`;
}

function verifyHint(tls: TlsSettings = {}): string {
  return tls.caFile
    ? `Certificate verification failed with the CA in ${tls.caFile}: set redisLocksmith.tls.caFile to the CA that signed the server certificate.`
    : "Certificate verification failed with the system's CAs: set redisLocksmith.tls.caFile to the CA that signed the server certificate.";
}

/** The user actions on a server whose failures are reported to the user. */
export type ServerAction = 'release' | 'extend' | 'load';

const ACTION_FAILED: Record<ServerAction, string> = {
  release: 'Release failed',
  extend: 'Extend failed',
  load: 'Could not load the lock scripts',
};

/** The message shown when Release, Extend or Load Lock Scripts fails, e.g. NOPERM for a browse-only ACL user. */
export function describeActionError(action: ServerAction, error: unknown, target: string): string {
  return `${ACTION_FAILED[action]}: ${describeConnectionError(error, target)}`;
}

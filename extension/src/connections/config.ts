// Connection settings: parsing and checking what the user typed, turning it into ioredis
// options, and turning connection failures into messages that name the cause. No `vscode`.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ClusterOptions, RedisOptions } from 'ioredis';

/** A saved connection. The password is never here: it lives in SecretStorage under `id`. */
export interface ConnectionConfig {
  id: string;
  name: string;
  /**
   * Without credentials: `redis://host:port/db` (`rediss://` for TLS), `redis-cluster://seed1:port,seed2:port`,
   * or `redis-sentinel://sentinel1:26379,sentinel2:26379/db#masterName` (each with an `s` for TLS).
   */
  url: string;
  username?: string;
}

/** How the server is deployed: one node, a Redis Cluster, or a master found through Sentinel. */
export type Topology = 'standalone' | 'cluster' | 'sentinel';

export interface HostPort {
  host: string;
  port: number;
}

export interface ParsedUrl {
  kind: Topology;
  tls: boolean;
  /** The server (standalone), the seed nodes (cluster) or the sentinels (sentinel). */
  nodes: HostPort[];
  /** The first of `nodes`. */
  host: string;
  port: number;
  db: number;
  /** The name the sentinels monitor the master under (sentinel only). */
  masterName?: string;
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

const SCHEMES: Record<string, { kind: Topology; tls: boolean; defaultPort: number }> = {
  'redis:': { kind: 'standalone', tls: false, defaultPort: 6379 },
  'rediss:': { kind: 'standalone', tls: true, defaultPort: 6379 },
  'redis-cluster:': { kind: 'cluster', tls: false, defaultPort: 6379 },
  'rediss-cluster:': { kind: 'cluster', tls: true, defaultPort: 6379 },
  'redis-sentinel:': { kind: 'sentinel', tls: false, defaultPort: 26379 },
  'rediss-sentinel:': { kind: 'sentinel', tls: true, defaultPort: 26379 },
};

const EXPECTED = 'redis://host:port/db, redis-cluster://host:port,host:port or redis-sentinel://host:26379/db#master';

/** Checks a connection URL; every problem gets a message that says what to fix. */
export function parseRedisUrl(input: string): ParsedUrl {
  const text = input.trim();
  if (!text) throw new ConnectionError('Enter a URL such as redis://localhost:6379/0.');
  const full = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `redis://${text}`;
  const scheme = full.slice(0, full.indexOf(':') + 1).toLowerCase();
  const topology = SCHEMES[scheme];
  if (!topology) {
    throw new ConnectionError(
      `Unsupported scheme '${scheme.slice(0, -1)}': use redis:// or rediss:// (TLS), redis-cluster:// or redis-sentinel://.`,
    );
  }
  // The host list may hold several comma-separated hosts, which URL cannot parse: it is checked host by host.
  const rest = full.slice(scheme.length + 2);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const hostList = authority.slice(at + 1);
  let url: URL;
  try {
    url = new URL(`${scheme}//${authority.slice(0, at + 1)}placeholder${tail}`);
  } catch {
    throw new ConnectionError(`'${text}' is not a URL; expected ${EXPECTED}.`);
  }
  const nodes = hostList.split(',').map((each) => parseHost(each.trim(), topology.defaultPort, text));
  if (topology.kind === 'standalone' && nodes.length > 1) {
    throw new ConnectionError(
      `${scheme}// takes one host; list several with redis-cluster:// (seed nodes) or redis-sentinel:// (sentinels).`,
    );
  }
  const path = url.pathname.replace(/^\//, '');
  if (path && !/^\d+$/.test(path)) {
    throw new ConnectionError(`'/${path}' is not a database number; expected /0 to /${MAX_DB} after the port.`);
  }
  const db = path ? Number(path) : 0;
  if (db > MAX_DB) throw new ConnectionError(`Database ${db} is out of range (0 to ${MAX_DB}).`);
  if (topology.kind === 'cluster' && db !== 0)
    throw new ConnectionError('Redis Cluster has database 0 only: remove the /' + db + '.');
  if (url.search) throw new ConnectionError(`Remove '${url.search}': options go in the connection's settings.`);
  const masterName = url.hash ? decodeURIComponent(url.hash.slice(1)) : '';
  if (topology.kind === 'sentinel' && !masterName) {
    throw new ConnectionError(
      `Add the master's name after '#', as the sentinels know it: ${scheme}//${hostList}/${db}#mymaster.`,
    );
  }
  if (topology.kind !== 'sentinel' && url.hash)
    throw new ConnectionError(`Remove '${url.hash}': a master name ('#name') is for redis-sentinel:// only.`);
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  const hosts = nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  const saved = `${scheme}//${hosts}${topology.kind === 'cluster' ? '' : `/${db}`}${masterName ? `#${encodeURIComponent(masterName)}` : ''}`;
  return {
    kind: topology.kind,
    tls: topology.tls,
    nodes,
    host: nodes[0].host,
    port: nodes[0].port,
    db,
    ...(masterName ? { masterName } : {}),
    username,
    password,
    url: saved,
  };
}

function parseHost(text: string, defaultPort: number, input: string): HostPort {
  if (!text) throw new ConnectionError(`'${input}' has an empty host; expected ${EXPECTED}.`);
  let url: URL;
  try {
    url = new URL(`redis://${text}`);
  } catch {
    throw new ConnectionError(`'${text}' is not a host:port in '${input}'.`);
  }
  if (!url.hostname || url.pathname || url.username)
    throw new ConnectionError(`'${text}' is not a host:port in '${input}'.`);
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : defaultPort };
}

export interface TlsSettings {
  /** A PEM file with the CA(s) that signed the server's certificate; the system CAs otherwise. */
  caFile?: string;
  /** Skip certificate verification (self-signed development servers). Off by default. */
  allowInsecure?: boolean;
}

/** ioredis options for a standalone or Sentinel connection; fails without side effects when the CA file is unreadable. */
export function redisOptions(
  config: ConnectionConfig,
  password: string | undefined,
  tls: TlsSettings = {},
): RedisOptions {
  const parsed = parseRedisUrl(config.url);
  const options: RedisOptions = {
    ...nodeOptions(config, password, parsed, tls),
    db: parsed.db,
    // A view must answer quickly or say why it cannot: no queue of commands waiting for a server that is down.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
  };
  if (parsed.kind === 'sentinel') {
    // The sentinels tell where the master is; ioredis asks them again after every disconnect, and
    // a failover disconnects every client of the old master (Sentinel runs CLIENT KILL there).
    Object.assign(options, { sentinels: parsed.nodes, name: parsed.masterName, failoverDetector: true });
    if (options.tls) Object.assign(options, { enableTLSForSentinelMode: true, sentinelTLS: options.tls });
    return options;
  }
  return { ...options, host: parsed.host, port: parsed.port };
}

/** ioredis Cluster options: the same per-node options for every node it discovers. */
export function clusterOptions(
  config: ConnectionConfig,
  password: string | undefined,
  tls: TlsSettings = {},
): { seeds: HostPort[]; options: ClusterOptions } {
  const parsed = parseRedisUrl(config.url);
  if (parsed.kind !== 'cluster') throw new ConnectionError(`${parsed.url} is not a redis-cluster:// URL.`);
  const { lazyConnect, ...perNode } = nodeOptions(config, password, parsed, tls);
  return {
    seeds: parsed.nodes,
    options: {
      lazyConnect,
      redisOptions: { ...perNode, maxRetriesPerRequest: 1 },
      enableOfflineQueue: true,
      // Re-read the slot map every 5 s as well as on MOVED: a failover shows in the view without a command failing first.
      slotsRefreshInterval: 5000,
    },
  };
}

/** What every connection to one node shares: credentials, TLS, timeouts. */
function nodeOptions(
  config: ConnectionConfig,
  password: string | undefined,
  parsed: ParsedUrl,
  tls: TlsSettings,
): RedisOptions {
  const options: RedisOptions = {
    username: config.username || undefined,
    password: password || undefined,
    connectionName: 'redis-locksmith',
    lazyConnect: true,
    connectTimeout: 5000,
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
    // Cluster and Sentinel reach hosts other than the URL's: Node then names each host it connects to.
    const sni = parsed.kind === 'standalone' && !isIP(parsed.host);
    options.tls = {
      ...(sni ? { servername: parsed.host } : {}),
      rejectUnauthorized: !tls.allowInsecure,
      ...(ca ? { ca } : {}),
    };
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
  CERT_NOT_YET_VALID: {
    cause: 'the server certificate is not valid yet',
    hint: "Check this machine's clock and the server's.",
  },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    cause: 'the server certificate does not name this host',
    hint: 'Connect with a host name or IP address listed in the certificate (subjectAltName).',
  },
  ERR_SSL_WRONG_VERSION_NUMBER: {
    cause: 'the server does not speak TLS on this port',
    hint: 'Use redis:// for a server without TLS.',
  },
};

/** What the caller knows beyond the error: the TLS settings used, and whether this was the first connection attempt. */
export interface ErrorContext {
  tls?: TlsSettings;
  /** The first connection attempt: the server never answered on this connection. */
  connecting?: boolean;
}

/** A message for a failed connection or command that names the cause and what to do. */
export function describeConnectionError(error: unknown, target: string, context: ErrorContext = {}): string {
  const err = error as NodeJS.ErrnoException & { message?: string; lastNodeError?: unknown };
  // ioredis Cluster wraps why the seed nodes failed.
  if (err?.lastNodeError) return describeConnectionError(err.lastNodeError, target, context);
  const message = String(err?.message ?? error);
  const code = err?.code ?? '';
  const tls = TLS_CAUSES[code];
  if (tls) return `TLS failure at ${target}: ${tls.cause} (${code}). ${tls.hint ?? verifyHint(context.tls)}`;
  if (/WRONGPASS|invalid username-password/i.test(message))
    return `Wrong username or password for ${target} (WRONGPASS).`;
  if (/NOAUTH/.test(message)) return `${target} requires a password (NOAUTH): edit the connection and set one.`;
  // Redis 7.0 reports a command a script may not run as `ERR The user executing the script can't run this command...`.
  if (/NOPERM|user executing the script can't run/.test(message)) {
    return `Not permitted on ${target} (${message.replace(/^ReplyError: /, '')}): the connection's ACL user lacks this right; the README's ACLs section lists the rules to grant.`;
  }
  if (/cluster support disabled/.test(message))
    return `${target} is not a Redis Cluster (cluster support disabled): use redis://host:port/db.`;
  if (/No such master with that name/.test(message)) {
    return `The sentinels at ${target} monitor no master by that name: check the name after '#' (SENTINEL MASTERS lists them).`;
  }
  if (/All sentinels are unreachable/.test(message)) {
    return `No sentinel answered at ${target}: check the addresses and ports (sentinels listen on 26379 by default).`;
  }
  if (code === 'ECONNREFUSED') return `Connection refused at ${target}: is redis-server running and listening there?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Unknown host in ${target} (${code}).`;
  if (code === 'ETIMEDOUT' || /connect ETIMEDOUT/.test(message)) {
    // A plain-text server never answers a TLS handshake: it waits for a command line that never comes.
    const plainServer =
      context.connecting && target.startsWith('rediss://')
        ? ', or a server without TLS on this port (then use redis://)'
        : '';
    return `Timed out connecting to ${target}: unreachable host or a firewall${plainServer}.`;
  }
  if (/ERR_SSL|SSL routines|wrong version number/i.test(message)) return `TLS failure at ${target}: ${message}`;
  if (/Connection is closed|ECONNRESET|EPIPE/i.test(message) || code === 'ECONNRESET' || code === 'EPIPE') {
    // A TLS-only port drops a plain-text client without a word: the likeliest cause on a first connect.
    if (context.connecting && /^rediss?-cluster:/.test(target)) {
      return `No seed node answered at ${target} (${code || message}): is redis-server running there with cluster-enabled yes?`;
    }
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

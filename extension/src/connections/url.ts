// What the user typed as a connection URL, checked: every problem gets a message that says what
// to fix. No `vscode`.
import { ConnectionError } from './errors';

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

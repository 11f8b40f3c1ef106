// A saved connection turned into ioredis options: credentials, TLS, timeouts, and the topology's
// own options (Sentinel, Cluster). No `vscode`.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ClusterOptions, RedisOptions } from 'ioredis';
import { ConnectionError } from './errors';
import type { ConnectionConfig } from './saved';
import { parseRedisUrl, type HostPort, type ParsedUrl } from './url';

/** ioredis options for a standalone or Sentinel connection; fails without side effects when the CA file is unreadable. */
export function redisOptions(config: ConnectionConfig, password: string | undefined): RedisOptions {
  const parsed = parseRedisUrl(config.url);
  const options: RedisOptions = {
    ...nodeOptions(config, password, parsed),
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
): { seeds: HostPort[]; options: ClusterOptions } {
  const parsed = parseRedisUrl(config.url);
  if (parsed.kind !== 'cluster') throw new ConnectionError(`${parsed.url} is not a redis-cluster:// URL.`);
  const { lazyConnect, ...perNode } = nodeOptions(config, password, parsed);
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
function nodeOptions(config: ConnectionConfig, password: string | undefined, parsed: ParsedUrl): RedisOptions {
  const tls = config.tls ?? {};
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

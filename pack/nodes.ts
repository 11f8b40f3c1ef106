// Which masters a client reaches, what each one is called, and which owns a key: one answer for
// the runtime (LockScripts) and the extension's Session, so that the Scripts view's per-master
// rows, the log and the Locks view's nodes name the same node the same way.
import type { Cluster, Redis } from 'ioredis';
import { keySlot, type RedisName } from './layout';

export type RedisClient = Redis | Cluster;

/** The nodes holding data: every master of a Cluster, else the one server (the current master under Sentinel). */
export function masterNodes(client: RedisClient): Redis[] {
  return client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
}

/**
 * `host:port` of a node from masterNodes(): a Cluster node's address as the slot map gives it; a
 * master found through Sentinel, the address its socket is connected to (its options name the
 * Sentinel); else the address connected to.
 */
export function nodeName(client: RedisClient, node: Redis): string {
  const viaSentinel = !client.isCluster && (node.options.sentinels?.length ?? 0) > 0;
  if (viaSentinel) return `${node.stream?.remoteAddress}:${node.stream?.remotePort}`;
  return `${node.options.host}:${node.options.port}`;
}

/** The master that owns `key`'s slot (a Cluster), or the one server; undefined while the slot map lacks it. */
export function masterFor(client: RedisClient, key: RedisName): Redis | undefined {
  if (!client.isCluster) return client as Redis;
  const cluster = client as Cluster;
  const owner = cluster.slots[keySlot(key)]?.[0];
  return cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === owner);
}

// The fault run of issue 29: client A takes a lock, the lock's master is killed (SIGKILL) a random
// moment after, a replica is promoted (by Sentinel, or by the Cluster), and client B keeps trying
// the same lock through the new master. A trial records whether B got it while A's lease still ran
// (a double holder), for how long, and whether B's fencing token was higher than A's.
//
// SIGKILL alone loses nothing a client saw acknowledged on loopback: the master writes the
// replication stream in the same event-loop turn as the reply, and the kernel delivers what was
// written. What loses the lock is the master's host going away with the replication bytes still
// on the wire: each server sits behind a TcpProxy that delays its replication link by
// `replicationLatencyMs` each way, and the kill cuts the proxy too, dropping what it holds.
// Clients reach the servers directly (natMap), so their replies are not delayed.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis, { Cluster } from 'ioredis';
import { keySlot } from '../pack/layout';
import { loadPack } from '../pack/pack';
import { LockScripts, ReplicaShortfallError, type RedisClient, type WaitForReplicas } from '../pack/runtime';
import type { TcpProxy } from './proxy';
import { startCluster, type RedisCluster, type RedisServer, type ServerKind } from './redis';
import { startSentinelGroup, type SentinelGroup } from './sentinel';

const HOST = '127.0.0.1';
const PACK = loadPack();

export type TopologyKind = 'sentinel' | 'cluster';

/**
 * The servers' own settings that make a failover take seconds, not half a minute: Sentinel's
 * down-after-milliseconds and failover-timeout (and SENTINEL DEBUG periods, see harness/sentinel.ts),
 * the Cluster's cluster-node-timeout.
 */
export const FAILOVER_SETTINGS = {
  // A failover-timeout far above a failover's few seconds: an attempt aborted on a loaded machine
  // leaves a promoted replica behind for Sentinel to turn back.
  sentinel: { downAfterMs: 500, failoverTimeoutMs: 10_000 },
  cluster: { nodeTimeoutMs: 500 },
} as const;

export interface TrialOptions {
  /** The kill lands uniformly within this many ms after A's acquire returned. */
  killWithinMs: number;
  /** Both clients' lease. */
  ttlMs: number;
  /**
   * A acquires with this (absent: the plain acquire). B always acquires without: what is measured
   * is whether A's lock survives; B with the option would also be refused by a promoted master
   * left without a replica (a Cluster shard until the old master rejoins), which hides the loss.
   */
  waitForReplicas?: WaitForReplicas;
  /**
   * Hold the master's replication link from before A's acquire to the kill (a replica that lags
   * more than the kill's moment): whatever A writes reaches no replica, whenever the kill lands.
   */
  holdReplication?: boolean;
}

export interface Trial {
  /** When the kill landed, ms after A's acquire returned. */
  killAfterMs: number;
  /** A's acquire: its fencing token, or why it holds nothing. */
  a: { fence: number } | { refused: string };
  /** B's first answer from the new master: its fencing token, or busy (A's lock survived). */
  b: { fence: number; atMs: number } | 'busy';
  /** From the kill to B's first answer. */
  failoverMs: number;
  /** How long both held it at least: A's lease end (from when A sent its acquire) minus B's reply; > 0: a double holder. */
  overlapMs?: number;
  /** The fencing counter on the new master after B's answer. */
  fenceAfter: number;
  /** The new master handed B, or would hand the next holder, a fencing token not higher than A's. */
  fenceRegression: boolean;
}

/** The trial ran, but the topology did not come back whole after it: start a new one. */
export class UnhealedError extends Error {
  override name = 'UnhealedError';

  constructor(
    readonly trial: Trial,
    cause: unknown,
  ) {
    super(`the topology did not heal after the failover: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Fails over a topology again and again: one failover per trial, healed after it (else UnhealedError). */
export interface FaultRun {
  trial(options: TrialOptions): Promise<Trial>;
  /** Stops every process and proxy. */
  stop(): Promise<void>;
}

/** A topology the run can fail over again and again. */
interface FaultTopology {
  client(): Promise<RedisClient>;
  /** The server that is master of `key` now, and its proxy. */
  masterOf(key: string): Promise<{ server: RedisServer; proxy: TcpProxy }>;
  /**
   * After `crashed` was killed (its proxy cut) and a replica promoted: brings it back as a replica,
   * its proxy restored, and waits until all are in sync.
   */
  heal(crashed: RedisServer, deadline: number): Promise<void>;
  stop(): Promise<void>;
}

/** Hold: a latency no trial outlasts (the kill cuts the link before it ends). */
const HELD_MS = 3_600_000;

/**
 * Starts `topology` on `server` with `replicationLatencyMs` added to every replication link (each
 * way), and clients A and B that bypass the proxies.
 */
export async function startFaultRun(
  topology: TopologyKind,
  server: ServerKind,
  replicationLatencyMs: number,
): Promise<FaultRun> {
  const servers =
    topology === 'sentinel'
      ? await sentinelTopology(server, replicationLatencyMs)
      : await clusterTopology(server, replicationLatencyMs);
  const clients: RedisClient[] = [];
  const locks: LockScripts[] = [];
  const stop = async () => {
    for (const each of locks) each.close();
    for (const client of clients) client.disconnect();
    await servers.stop();
  };
  try {
    for (let i = 0; i < 2; i++) {
      clients.push(await servers.client());
      locks.push(new LockScripts(clients[i], PACK));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const run = randomBytes(4).toString('hex');
  let trials = 0;
  return {
    trial: (options) =>
      oneFailover(servers, locks[0], clients[1], locks[1], `${run}-${trials++}`, { ...options, replicationLatencyMs }),
    stop,
  };
}

async function oneFailover(
  topology: FaultTopology,
  locksA: LockScripts,
  clientB: RedisClient,
  locksB: LockScripts,
  id: string,
  {
    ttlMs,
    killWithinMs,
    waitForReplicas,
    holdReplication,
    replicationLatencyMs,
  }: TrialOptions & {
    replicationLatencyMs: number;
  },
): Promise<Trial> {
  // One hash slot for the lock and its fence; a new pair each trial.
  const [lock, fence] = [`lock:{failover-${id}}`, `fence:{failover-${id}}`];
  const { server, proxy } = await topology.masterOf(lock);
  if (holdReplication) proxy.setLatency(HELD_MS);
  const sentAt = performance.now();
  let a: Trial['a'];
  try {
    const fenceA = await locksA.acquire(lock, `a-${id}`, ttlMs, { fence, waitForReplicas });
    a = fenceA === 0 ? { refused: 'busy' } : { fence: fenceA };
  } catch (error) {
    a = { refused: error instanceof ReplicaShortfallError ? error.shortfall.reason : String(error) };
  }
  const killAfterMs = Math.random() * killWithinMs;
  await sleep(killAfterMs);
  // The host goes: what the proxy still holds for the replicas is lost with the process.
  proxy.cut('refuse');
  const killedAt = performance.now();
  await server.crash();

  const deadline = killedAt + 60_000;
  let b: Trial['b'] | undefined;
  while (!b) {
    if (performance.now() > deadline)
      throw new Error(`no answer for ${lock} from a new master within 60 s of the kill`);
    try {
      const fenceB = await locksB.acquire(lock, `b-${id}`, ttlMs, { fence });
      b = fenceB === 0 ? 'busy' : { fence: fenceB, atMs: performance.now() };
    } catch {
      // The old master is gone and the new one not known yet: again.
      await sleep(20);
    }
  }
  const failoverMs = (b === 'busy' ? performance.now() : b.atMs) - killedAt;
  const fenceAfter = Number((await clientB.get(fence)) ?? 0);
  proxy.setLatency(replicationLatencyMs);

  const overlapMs = b !== 'busy' && 'fence' in a ? sentAt + ttlMs - b.atMs : undefined;
  // Busy, the next holder gets fenceAfter + 1.
  const fenceRegression = 'fence' in a && (b === 'busy' ? fenceAfter < a.fence : b.fence <= a.fence);
  const trial = { killAfterMs, a, b, failoverMs, overlapMs, fenceAfter, fenceRegression };
  try {
    await topology.heal(server, Date.now() + 60_000);
  } catch (error) {
    throw new UnhealedError(trial, error);
  }
  return trial;
}

/** 1 master + 2 replicas + 3 sentinels, each server behind its proxy. */
async function sentinelTopology(server: ServerKind, latencyMs: number): Promise<FaultTopology> {
  const group: SentinelGroup = await startSentinelGroup({
    sentinels: 3,
    replicas: 2,
    server,
    proxied: true,
    ...FAILOVER_SETTINGS.sentinel,
  });
  for (const proxy of group.proxies.values()) proxy.setLatency(latencyMs);
  const proxyOf = (node: RedisServer) => group.proxies.get(node.port)!;
  return {
    async client() {
      const client = new Redis({
        sentinels: group.sentinels,
        name: group.masterName,
        natMap: group.natMap,
        retryStrategy: () => 50,
        sentinelRetryStrategy: () => 50,
      });
      client.on('error', () => {});
      await client.ping();
      return client;
    },
    async masterOf() {
      const node = group.serverAt(await group.masterPort());
      return { server: node, proxy: proxyOf(node) };
    },
    async heal(crashed, deadline) {
      const crashedAt = proxyOf(crashed).port;
      // Restarted before every replica follows the new master, the old one would come back empty
      // and a replica still pointing at it would sync from it, dropping its data.
      await group.settled(deadline, crashedAt, crashed);
      await crashed.restart();
      proxyOf(crashed).restore();
      await group.settled(deadline, crashedAt);
    },
    stop: () => group.stop(),
  };
}

/** 3 masters with a replica each, each node behind its proxy (the bus direct). */
async function clusterTopology(server: ServerKind, latencyMs: number): Promise<FaultTopology> {
  const cluster: RedisCluster = await startCluster({
    replicas: 1,
    server,
    proxied: true,
    ...FAILOVER_SETTINGS.cluster,
  });
  for (const proxy of cluster.proxies.values()) proxy.setLatency(latencyMs);
  const byAddress = new Map([...cluster.proxies].map(([port, proxy]) => [proxy.port, port]));
  const nodeAt = (announced: number) => {
    const node = cluster.nodes.find((node) => node.port === (byAddress.get(announced) ?? announced));
    if (!node) throw new Error(`CLUSTER NODES names port ${announced}, which is none of ours`);
    return node;
  };
  let down: RedisServer | undefined;
  const live = () => cluster.nodes.filter((node) => node !== down);
  return {
    async client() {
      const client = new Cluster(
        cluster.nodes.map((node) => ({ host: HOST, port: node.port })),
        {
          natMap: cluster.natMap,
          clusterRetryStrategy: () => 50,
          retryDelayOnFailover: 50,
          retryDelayOnClusterDown: 50,
          retryDelayOnTryAgain: 50,
        },
      );
      client.on('error', () => {});
      await client.ping();
      return client;
    },
    async masterOf(key) {
      const slot = keySlot(key);
      const lines = await clusterNodes(live()[0]);
      const owner = lines.find(
        ({ flags, slots }) => flags.includes('master') && slots.some(([from, to]) => slot >= from && slot <= to),
      );
      if (!owner) throw new Error(`no master serves slot ${slot}`);
      const node = nodeAt(owner.port);
      return { server: node, proxy: cluster.proxies.get(node.port)! };
    },
    async heal(crashed, deadline) {
      down = crashed;
      await until("a replica to take over the crashed master's slots", deadline, async () => {
        for (const node of live()) if (!(await clusterOk(node))) return false;
        return true;
      });
      await crashed.restart();
      cluster.proxies.get(crashed.port)!.restore();
      down = undefined;
      await until('the crashed master to rejoin as a replica, every replica in sync', deadline, async () => {
        for (const node of cluster.nodes) {
          if (!(await clusterOk(node))) return false;
          const lines = await clusterNodes(node);
          const masters = lines.filter(({ flags, slots }) => flags.includes('master') && slots.length > 0);
          const replicas = lines.filter(({ flags }) => flags.includes('slave'));
          if (masters.length !== 3 || replicas.length !== 3) return false;
          if (lines.some(({ flags }) => flags.some((flag) => /fail|handshake|noaddr/.test(flag)))) return false;
          const replication = await withClient(node, (client) => client.info('replication'));
          if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return false;
        }
        return true;
      });
    },
    stop: () => cluster.stop(),
  };
}

interface NodeLine {
  port: number;
  flags: string[];
  slots: [number, number][];
}

async function clusterNodes(node: RedisServer): Promise<NodeLine[]> {
  const text = await withClient(node, (client) => client.call('CLUSTER', 'NODES'));
  if (typeof text !== 'string') throw new TypeError(`CLUSTER NODES replied ${typeof text}, not text`);
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [, address, flags, , , , , , ...slots] = line.split(' ');
      return {
        port: Number(/:(\d+)@/.exec(address)?.[1]),
        flags: flags.split(','),
        slots: slots
          .filter((range) => /^\d+(-\d+)?$/.test(range))
          .map((range): [number, number] => {
            const [from, to = from] = range.split('-').map(Number);
            return [from, to];
          }),
      };
    });
}

async function clusterOk(node: RedisServer): Promise<boolean> {
  return /cluster_state:ok/.test(await withClient(node, (client) => client.cluster('INFO')));
}

async function withClient<T>(node: RedisServer, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = node.client({ lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

async function until(what: string, deadline: number, probe: () => Promise<boolean>): Promise<void> {
  let lastError: unknown;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${lastError instanceof Error ? ` (${lastError.message})` : ''}`);
    await sleep(100);
  }
}

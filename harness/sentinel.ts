// Redis Sentinel on loopback for tests: a master, its replicas and one or more sentinels, all
// throwaway processes on free ports, stopped by the caller (or at process exit at worst).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { startProxy, type TcpProxy } from './proxy';
import { freePort, serverBinaries, startRedis, track, type RedisServer, type ServerKind } from './redis';

const HOST = '127.0.0.1';
const MASTER_NAME = 'locksmith';
const FAILOVER_TIMEOUT_MS = 20_000;

export interface SentinelOptions {
  /** Sentinels (quorum: a majority of them). Default 1. */
  sentinels?: number;
  /** Replicas of the first master. Default 1. */
  replicas?: number;
  /** 'redis' (default) or 'valkey', for the servers and the sentinels. */
  server?: ServerKind;
  /** down-after-milliseconds: how long the master is unreachable before it is failed over. Default 1000. */
  downAfterMs?: number;
  /** failover-timeout. Default 5000. */
  failoverTimeoutMs?: number;
  /**
   * Each server behind a TcpProxy (`proxies`) whose address it announces: replicas replicate and
   * sentinels talk through it, so its latency is the replication link's. Clients bypass the
   * proxies with `natMap`.
   */
  proxied?: boolean;
}

export interface SentinelGroup {
  readonly masterName: string;
  /** All on 127.0.0.1; pass to `new Redis({ sentinels, name: masterName })`. */
  readonly sentinels: { host: string; port: number }[];
  /** [initial master, its replicas...]. */
  readonly servers: RedisServer[];
  /** With `proxied`: each server's proxy, by the server's port. */
  readonly proxies: Map<number, TcpProxy>;
  /** For ioredis's natMap: the addresses the sentinels name (proxies) to the servers'. */
  readonly natMap: Record<string, { host: string; port: number }>;
  /**
   * The port of the current master according to the sentinels (SENTINEL GET-MASTER-ADDR-BY-NAME).
   * Waits up to 5 s for all of them to agree, e.g. while a new configuration propagates. With
   * `proxied`, the proxy's port: `serverAt` names the server.
   */
  masterPort(): Promise<number>;
  /** The server at a port the sentinels name (its own, or its proxy's). */
  serverAt(port: number): RedisServer;
  /**
   * SENTINEL FAILOVER and wait (<= 20 s) until the sentinels report another server as master AND
   * it reports role:master AND every other server is its synced replica, as the sentinels see it.
   * Returns the new master's port.
   */
  failover(): Promise<number>;
  /**
   * Waits (until `deadline`) for the sentinels to agree on a master that is not `notPort`, it to
   * report role:master, every other server but `down` to be its synced replica and every sentinel
   * to see them so. Returns the master's port.
   */
  settled(deadline: number, notPort?: number, down?: RedisServer): Promise<number>;
  /** Waits (until `deadline`) for the sentinels to agree on a master that is not `notPort` and it to report role:master. */
  newMaster(deadline: number, notPort?: number): Promise<number>;
  /** Stops sentinels, servers and proxies, removes temp dirs. */
  stop(): Promise<void>;
}

interface Sentinel {
  port: number;
  dir: string;
  child: ChildProcess;
}

export async function startSentinelGroup({
  sentinels: count = 1,
  replicas = 1,
  server = 'redis',
  downAfterMs = 1000,
  failoverTimeoutMs = 5000,
  proxied = false,
}: SentinelOptions = {}): Promise<SentinelGroup> {
  // Replicas sync at once instead of after the default 5 s diskless-sync delay.
  const args = ['--repl-diskless-sync-delay', '0'];
  const servers: RedisServer[] = [];
  const proxies = new Map<number, TcpProxy>();
  const sentinels: Sentinel[] = [];
  const stop = async () => {
    // Sentinels first, so that none fails over while the servers go down.
    await Promise.all(sentinels.map(killSentinel));
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
  };
  const addressOf = (server: RedisServer) => proxies.get(server.port)?.port ?? server.port;
  const serverAt = (port: number) => {
    const found = servers.find((server) => addressOf(server) === port || server.port === port);
    if (!found) throw new Error(`the sentinels name port ${port}, which is none of ours`);
    return found;
  };
  const startServer = async () => {
    if (!proxied) return startRedis({ args, server });
    let port = await freePort();
    while (proxies.has(port)) port = await freePort();
    const proxy = await startProxy(port);
    proxies.set(port, proxy);
    const announce = ['--replica-announce-ip', HOST, '--replica-announce-port', String(proxy.port)];
    return startRedis({ args: [...args, ...announce], server, port });
  };
  try {
    // One at a time: a failed start must not leave a sibling running untracked by `servers`.
    for (let i = 0; i <= replicas; i++) servers.push(await startServer());
    const [master] = servers;
    for (const replica of servers.slice(1)) {
      await withClient(replica.port, (client) => client.replicaof(HOST, addressOf(master)));
    }
    const quorum = Math.floor(count / 2) + 1;
    const timing = { downAfterMs, failoverTimeoutMs };
    for (let i = 0; i < count; i++) sentinels.push(await spawnSentinel(server, addressOf(master), quorum, timing));
    const deadline = Date.now() + 10_000;
    for (const { port } of sentinels) {
      await until(`sentinel ${port} to know the replicas and its ${count - 1} peer(s)`, deadline, async () => {
        for (const replica of servers.slice(1)) {
          await expectReplica(port, addressOf(replica), addressOf(master));
        }
        return (await peerCount(port)) === count - 1 || undefined;
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const masterPorts = () => Promise.all(sentinels.map(({ port }) => sentinelMasterPort(port)));
  /** The master every sentinel names, when it is not `notPort` and reports role:master. */
  const agreedMaster = async (notPort?: number) => {
    const ports = await masterPorts();
    if (!ports.every((port) => port === ports[0] && port !== notPort)) return undefined;
    return (await info(serverAt(ports[0]))).role === 'master' ? ports[0] : undefined;
  };
  const group: SentinelGroup = {
    masterName: MASTER_NAME,
    sentinels: sentinels.map(({ port }) => ({ host: HOST, port })),
    servers,
    proxies,
    natMap: Object.fromEntries([...proxies].map(([port, proxy]) => [`${HOST}:${proxy.port}`, { host: HOST, port }])),
    masterPort: () =>
      until('the sentinels to agree on the master', Date.now() + 5000, async () => {
        const ports = await masterPorts();
        return ports.every((port) => port === ports[0]) ? ports[0] : undefined;
      }),
    serverAt,
    async failover() {
      const deadline = Date.now() + FAILOVER_TIMEOUT_MS;
      const oldPort = await group.masterPort();
      serverAt(oldPort);
      // Retried: right after an earlier failover a sentinel can answer NOGOODSLAVE until it has
      // seen the demoted master report itself as a replica.
      await until('SENTINEL FAILOVER to be accepted', deadline, async () => {
        await withClient(sentinels[0].port, (client) => client.call('SENTINEL', 'FAILOVER', MASTER_NAME));
        return true;
      });
      return group.settled(deadline, oldPort);
    },
    newMaster: (deadline, notPort) =>
      until('the sentinels to agree on a new master', deadline, () => agreedMaster(notPort)),
    // One probe for the whole picture, so that a master that changes again meanwhile (a failover
    // attempt that timed out, then another) starts the wait over instead of passing it.
    settled: (deadline, notPort, down) =>
      until('the sentinels, the master and its replicas to agree', deadline, async () => {
        const masterPort = await agreedMaster(notPort);
        if (masterPort === undefined) return undefined;
        const master = serverAt(masterPort);
        const others = servers.filter((server) => server !== master && server !== down);
        for (const other of others) {
          const replica = await info(other);
          const synced =
            replica.role === 'slave' &&
            replica.master_port === String(masterPort) &&
            replica.master_link_status === 'up';
          // Thrown, so that a timeout names the server that is not there yet.
          if (!synced) {
            const { role, master_port: port, master_link_status: link } = replica;
            throw new Error(`${other.port} is ${role} of ${port ?? '-'}, link ${link ?? '-'}`);
          }
        }
        // So that the next failover (or a quorum of them noticing a dead master) finds a good replica.
        for (const { port } of sentinels) {
          for (const other of others) await expectReplica(port, addressOf(other), masterPort);
        }
        return (await agreedMaster(notPort)) === masterPort ? masterPort : undefined;
      }),
    stop,
  };
  return group;
}

async function spawnSentinel(
  kind: ServerKind,
  masterPort: number,
  quorum: number,
  { downAfterMs, failoverTimeoutMs }: { downAfterMs: number; failoverTimeoutMs: number },
): Promise<Sentinel> {
  const binary = (await serverBinaries(kind)).server;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    // Its own dir and conf file: Sentinel rewrites the file with what it learns.
    const dir = mkdtempSync(join(tmpdir(), 'locksmith-sentinel-'));
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${port}`,
        `bind ${HOST}`,
        `dir "${dir}"`,
        'logfile ""',
        'daemonize no',
        'sentinel resolve-hostnames no',
        `sentinel monitor ${MASTER_NAME} ${HOST} ${masterPort} ${quorum}`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${downAfterMs}`,
        `sentinel failover-timeout ${MASTER_NAME} ${failoverTimeoutMs}`,
        '',
      ].join('\n'),
    );
    const child = spawn(binary, [conf, '--sentinel'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    track(child, dir);
    const sentinel = { port, dir, child };
    try {
      await ready(sentinel);
      // Sentinel's production periods (INFO every 10 s, hello every 2 s) take ~20 s to settle a
      // failover: the demoted master is told to replicate 4 hello periods after an INFO showed it
      // still master, and the sentinel sees that it does at the next INFO. Shortened: ~3 s. A
      // sentinel that finds the master down asks its peers every ask-period (1 s): 100 ms.
      await withClient(port, (client) =>
        client.call('SENTINEL', 'DEBUG', 'info-period', '500', 'publish-period', '250', 'ask-period', '100'),
      );
      return sentinel;
    } catch (error) {
      await killSentinel(sentinel);
      // Another process may take the port between the probe and the bind: try a new one.
      if (attempt === 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

function ready({ port, child }: Sentinel): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // Logged once it listens and has loaded the master from the conf file.
      if (output.includes(`+monitor master ${MASTER_NAME}`)) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) =>
      reject(new Error(`sentinel on port ${port} exited (${code}) before it was ready:\n${output.slice(-2000)}`));
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', onExit);
  });
}

async function killSentinel({ child, dir }: Sentinel): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** A short-lived client that fails fast instead of reconnecting, for polling. */
async function withClient<T>(port: number, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ host: HOST, port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => {}); // the rejected command says why
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** Polls `probe` every 100 ms until it returns a value; a throw counts as "not yet". */
async function until<T>(what: string, deadline: number, probe: () => Promise<T | undefined>): Promise<T> {
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}${lastError ? ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})` : ''}`,
      );
    }
    await sleep(100);
  }
}

/** Sentinel replies describe an instance as a flat [name, value, name, value, ...] array. */
function record(flat: unknown): Record<string, string> {
  const values = flat as string[];
  const result: Record<string, string> = {};
  for (let i = 0; i + 1 < values.length; i += 2) result[values[i]] = values[i + 1];
  return result;
}

async function sentinelMasterPort(sentinelPort: number): Promise<number> {
  const reply = await withClient(sentinelPort, (client) =>
    client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME),
  );
  const [, port] = reply as [string, string];
  return Number(port);
}

/** Throws, saying what it sees instead, unless the sentinel lists `port` as a healthy replica of `masterPort`, synced as far as it saw. */
async function expectReplica(sentinelPort: number, port: number, masterPort: number): Promise<void> {
  const replicas = await sentinelReplicas(sentinelPort);
  const known = replicas.some((replica) => {
    const flags = replica.flags.split(',');
    return (
      replica.port === String(port) &&
      flags.includes('slave') &&
      !flags.some((flag) => ['s_down', 'o_down', 'disconnected'].includes(flag)) &&
      replica['role-reported'] === 'slave' &&
      replica['master-port'] === String(masterPort) &&
      replica['master-link-status'] === 'ok'
    );
  });
  if (known) return;
  // Thrown, so that a timeout says what the sentinel sees instead.
  const seen = replicas.map((replica) =>
    ['port', 'flags', 'role-reported', 'master-port', 'master-link-status'].map((field) => replica[field]).join(' '),
  );
  throw new Error(`sentinel ${sentinelPort} sees: ${seen.join('; ') || 'no replica'}`);
}

async function sentinelReplicas(sentinelPort: number): Promise<Record<string, string>[]> {
  const reply = await withClient(sentinelPort, (client) => client.call('SENTINEL', 'REPLICAS', MASTER_NAME));
  return (reply as unknown[]).map(record);
}

async function peerCount(sentinelPort: number): Promise<number> {
  const reply = await withClient(sentinelPort, (client) => client.call('SENTINEL', 'SENTINELS', MASTER_NAME));
  return (reply as unknown[]).map(record).filter((peer) => !peer.flags.split(',').includes('s_down')).length;
}

/** The server's INFO replication section as name → value. */
async function info(server: RedisServer): Promise<Record<string, string>> {
  const text = await withClient(server.port, (client) => client.info('replication'));
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
}

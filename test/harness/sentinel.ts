// Redis Sentinel on loopback for tests: a master, its replica and one or more sentinels, all
// throwaway processes on free ports, stopped by the caller (or at process exit at worst).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { findRedisServer, freePort, startRedis, track, type RedisServer } from './redis';

const HOST = '127.0.0.1';
const MASTER_NAME = 'locksmith';
const FAILOVER_TIMEOUT_MS = 20_000;

export interface SentinelGroup {
  readonly masterName: string;
  /** All on 127.0.0.1; pass to `new Redis({ sentinels, name: masterName })`. */
  readonly sentinels: { host: string; port: number }[];
  /** [initial master, initial replica]. */
  readonly servers: RedisServer[];
  /**
   * The port of the current master according to the sentinels (SENTINEL GET-MASTER-ADDR-BY-NAME).
   * Waits up to 5 s for all of them to agree, e.g. while a new configuration propagates.
   */
  masterPort(): Promise<number>;
  /**
   * SENTINEL FAILOVER and wait (<= 20 s) until the sentinels report the other server as master AND
   * it reports role:master AND the old master reports role:slave with master_link_status:up.
   * Returns the new master's port.
   */
  failover(): Promise<number>;
  /** Stops sentinels and servers, removes temp dirs. */
  stop(): Promise<void>;
}

interface Sentinel {
  port: number;
  dir: string;
  child: ChildProcess;
}

export async function startSentinelGroup({
  sentinels: count = 1,
}: { sentinels?: number } = {}): Promise<SentinelGroup> {
  // Replicas sync at once instead of after the default 5 s diskless-sync delay.
  const args = ['--repl-diskless-sync-delay', '0'];
  const servers: RedisServer[] = [];
  const sentinels: Sentinel[] = [];
  const stop = async () => {
    // Sentinels first, so that none fails over while the servers go down.
    await Promise.all(sentinels.map(killSentinel));
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    const master = await startRedis({ args });
    servers.push(master);
    servers.push(await startRedis({ args: [...args, '--replicaof', HOST, String(master.port)] }));
    const quorum = Math.floor(count / 2) + 1;
    // One at a time: a failed start must not leave a sibling running untracked by `sentinels`.
    for (let i = 0; i < count; i++) sentinels.push(await spawnSentinel(master.port, quorum));
    const deadline = Date.now() + 10_000;
    for (const { port } of sentinels) {
      await until(`sentinel ${port} to know the replica and its ${count - 1} peer(s)`, deadline, async () =>
        (await knowsReplica(port, servers[1].port, master.port)) && (await peerCount(port)) === count - 1
          ? true
          : undefined,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const masterPorts = () => Promise.all(sentinels.map(({ port }) => sentinelMasterPort(port)));
  const group: SentinelGroup = {
    masterName: MASTER_NAME,
    sentinels: sentinels.map(({ port }) => ({ host: HOST, port })),
    servers,
    masterPort: () =>
      until('the sentinels to agree on the master', Date.now() + 5000, async () => {
        const ports = await masterPorts();
        return ports.every((port) => port === ports[0]) ? ports[0] : undefined;
      }),
    async failover() {
      const deadline = Date.now() + FAILOVER_TIMEOUT_MS;
      const oldPort = await group.masterPort();
      const oldMaster = servers.find((server) => server.port === oldPort);
      const newMaster = servers.find((server) => server.port !== oldPort);
      if (!oldMaster || !newMaster)
        throw new Error(`the sentinels name ${oldPort} as master, which is not one of ours`);
      // Retried: right after an earlier failover a sentinel can answer NOGOODSLAVE until it has
      // seen the demoted master report itself as a replica.
      await until('SENTINEL FAILOVER to be accepted', deadline, async () => {
        await withClient(sentinels[0].port, (client) => client.call('SENTINEL', 'FAILOVER', MASTER_NAME));
        return true;
      });
      await until(`${newMaster.port} to be master and ${oldPort} its synced replica`, deadline, async () => {
        if (!(await masterPorts()).every((port) => port === newMaster.port)) return undefined;
        if ((await info(newMaster)).role !== 'master') return undefined;
        const old = await info(oldMaster);
        const synced =
          old.role === 'slave' && old.master_port === String(newMaster.port) && old.master_link_status === 'up';
        return synced || undefined;
      });
      // So that the next failover (or a quorum of them noticing a dead master) finds a good replica.
      for (const { port } of sentinels) {
        await until(
          `sentinel ${port} to see ${oldPort} as a replica`,
          deadline,
          async () => (await knowsReplica(port, oldPort, newMaster.port)) || undefined,
        );
      }
      return newMaster.port;
    },
    stop,
  };
  return group;
}

async function spawnSentinel(masterPort: number, quorum: number): Promise<Sentinel> {
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
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        '',
      ].join('\n'),
    );
    const child = spawn(findRedisServer(), [conf, '--sentinel'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    track(child, dir);
    const sentinel = { port, dir, child };
    try {
      await ready(sentinel);
      // Sentinel's production periods (INFO every 10 s, hello every 2 s) take ~20 s to settle a
      // failover: the demoted master is told to replicate 4 hello periods after an INFO showed it
      // still master, and the sentinel sees that it does at the next INFO. Shortened: ~3 s.
      await withClient(port, (client) =>
        client.call('SENTINEL', 'DEBUG', 'info-period', '500', 'publish-period', '250'),
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

/** Whether the sentinel lists `port` as a healthy replica of `masterPort`, synced as far as it saw. */
async function knowsReplica(sentinelPort: number, port: number, masterPort: number): Promise<boolean> {
  const reply = await withClient(sentinelPort, (client) => client.call('SENTINEL', 'REPLICAS', MASTER_NAME));
  return (reply as unknown[]).map(record).some((replica) => {
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

// Throwaway redis-server processes for tests and benchmarks: free loopback ports, a temp
// dir each, no persistence, and always stopped (by the caller, or at process exit at worst).
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { findOnPath } from './onPath';
import { startProxy, type TcpProxy } from './proxy';
import { ensureValkey } from './valkey';

const HOST = '127.0.0.1';
const INSTALL_HINT = 'sudo apt-get install -y redis-server redis-tools';

export interface Environment {
  path: string;
  isRoot: boolean;
}

/**
 * Returns the path of redis-server. When it is missing and we are root with apt-get, installs
 * Debian's redis-server and redis-tools; otherwise fails naming the command to run.
 */
export function findRedisServer(
  env: Environment = { path: process.env.PATH ?? '', isRoot: process.getuid?.() === 0 },
): string {
  const found = findOnPath('redis-server', env.path);
  if (found) return found;
  const aptGet = findOnPath('apt-get', env.path);
  if (!env.isRoot || !aptGet) {
    throw new Error(`redis-server is not on PATH; the tests start their own. Install it with: ${INSTALL_HINT}`);
  }
  const install = () =>
    execFileSync(aptGet, ['install', '-y', '-qq', 'redis-server', 'redis-tools'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    install();
  } catch {
    execFileSync(aptGet, ['update', '-qq'], { stdio: 'inherit' });
    install();
  }
  const installed = findOnPath('redis-server', env.path);
  if (!installed) throw new Error(`apt-get installed redis-server but it is not on PATH; try: ${INSTALL_HINT}`);
  return installed;
}

/** A free loopback port (never 6379); with `busPort`, port + 10000 is free too (Cluster bus). */
export async function freePort(busPort = false): Promise<number> {
  const probe = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, HOST, () => {
        const { port: bound } = server.address() as { port: number };
        server.close(() => resolve(bound));
      });
    });
  for (;;) {
    const port = await probe(0);
    if (port === undefined || port === 6379) continue;
    if (!busPort) return port;
    if (port + 10000 <= 65535 && (await probe(port + 10000)) !== undefined) return port;
  }
}

// Live servers and their temp dirs, for the exit hook.
const running = new Map<ChildProcess, string>();
let exitHooked = false;
/** Kills `child` and removes `dir` at process exit if they are still there then. */
export function track(child: ChildProcess, dir: string): void {
  running.set(child, dir);
  child.once('exit', () => running.delete(child));
  if (exitHooked) return;
  exitHooked = true;
  // Last resort when a test file crashes or is interrupted before its own cleanup ran.
  process.once('exit', () => {
    for (const [child, dir] of running) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => process.exit(128 + (signal === 'SIGINT' ? 2 : 15)));
  }
}

/** Which server a test runs on: Debian's Redis 7.0, or Valkey 9 built from Debian unstable's source. */
export const SERVER_KINDS = ['redis', 'valkey'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** The server and cli binaries of `kind`. */
export async function serverBinaries(kind: ServerKind): Promise<{ server: string; cli: string }> {
  if (kind === 'valkey') {
    const bin = await ensureValkey();
    return { server: join(bin, 'valkey-server'), cli: join(bin, 'valkey-cli') };
  }
  const server = findRedisServer();
  const cli = findOnPath('redis-cli', process.env.PATH ?? '');
  if (!cli) throw new Error(`redis-cli is not on PATH; install it with: ${INSTALL_HINT}`);
  return { server, cli };
}

export interface StartOptions {
  /** 'redis' (default) or 'valkey'. */
  server?: ServerKind;
  /** Listen on this port (from freePort); default: a free one, picked again if taken meanwhile. */
  port?: number;
  /** requirepass; clients from `client()` use it. */
  password?: string;
  /** Extra redis-server arguments, e.g. ['--cluster-enabled', 'yes']. */
  args?: string[];
  /**
   * Listen with TLS only: `port` is then the TLS port and plain TCP is off (`--port 0`); `url`
   * is rediss:// and `client()` trusts `caFile`. Client certificates are not required.
   */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

export class RedisServer {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly options: StartOptions,
    private readonly binary: string,
  ) {}

  static async start(options: StartOptions = {}, busPort = false): Promise<RedisServer> {
    const binary = (await serverBinaries(options.server ?? 'redis')).server;
    for (let attempt = 1; ; attempt++) {
      const dir = mkdtempSync(join(tmpdir(), 'locksmith-redis-'));
      const server = new RedisServer(options.port ?? (await freePort(busPort)), dir, options, binary);
      try {
        await server.spawn();
        return server;
      } catch (error) {
        rmSync(server.dir, { recursive: true, force: true });
        // Another process may take the port between the probe and the bind: try a new one.
        if (attempt === 3 || options.port !== undefined || !/Address already in use/.test(String(error))) throw error;
      }
    }
  }

  readonly host = HOST;

  get kind(): ServerKind {
    return this.options.server ?? 'redis';
  }

  get url(): string {
    const auth = this.options.password ? `:${encodeURIComponent(this.options.password)}@` : '';
    return `${this.options.tls ? 'rediss' : 'redis'}://${auth}${HOST}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A new ioredis client; the caller quits it. */
  client(options: RedisOptions = {}): Redis {
    const tls = this.options.tls && { tls: { ca: readFileSync(this.options.tls.caFile) } };
    return new Redis({
      host: HOST,
      port: this.port,
      password: this.options.password,
      lazyConnect: false,
      ...tls,
      ...options,
    });
  }

  /** Stops and starts redis-server on the same port: data and the script cache are gone. */
  async restart(): Promise<void> {
    await this.kill();
    await this.spawn();
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** SIGKILL, as a crash: no shutdown, and the dir (a Cluster node's nodes.conf) stays for restart(). */
  async crash(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  private spawn(): Promise<void> {
    const { tls } = this.options;
    const listen = tls
      ? [
          '--port',
          '0',
          '--tls-port',
          String(this.port),
          '--tls-cert-file',
          tls.certFile,
          '--tls-key-file',
          tls.keyFile,
          '--tls-ca-cert-file',
          tls.caFile,
          '--tls-auth-clients',
          'no',
        ]
      : ['--port', String(this.port)];
    const args = [
      ...listen,
      '--bind',
      HOST,
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--logfile',
      '',
      ...(this.options.password ? ['--requirepass', this.options.password] : []),
      ...(this.options.args ?? []),
    ];
    const child = spawn(this.binary, args, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    track(child, this.dir);
    return new Promise((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          child.stdout.off('data', onData);
          child.stdout.resume();
          child.off('exit', onExit);
          resolve();
        }
      };
      const onExit = (code: number | null) =>
        reject(
          new Error(`redis-server on port ${this.port} exited (${code}) before it was ready:\n${output.slice(-2000)}`),
        );
      child.stdout.on('data', onData);
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', onExit);
    });
  }

  private async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

export function startRedis(options: StartOptions = {}): Promise<RedisServer> {
  return RedisServer.start(options);
}

export interface ClusterOptions {
  /** Replicas per master (0 or 1). */
  replicas?: number;
  /** 'redis' (default) or 'valkey'. */
  server?: ServerKind;
  /** cluster-node-timeout: how long a node is unreachable before it is failed over. Default 2000. */
  nodeTimeoutMs?: number;
  /**
   * Each node behind a TcpProxy (`proxies`) whose address it announces: replicas replicate through
   * it, so its latency is the replication link's; the cluster bus stays direct. Clients bypass the
   * proxies with `natMap`.
   */
  proxied?: boolean;
}

export class RedisCluster {
  private constructor(
    readonly masters: RedisServer[],
    readonly replicas: RedisServer[],
    /** With `proxied`: each node's proxy, by the node's port. */
    readonly proxies: Map<number, TcpProxy>,
  ) {}

  static async start({
    replicas = 0,
    server = 'redis',
    nodeTimeoutMs = 2000,
    proxied = false,
  }: ClusterOptions = {}): Promise<RedisCluster> {
    const args = [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      // Replicas sync at once instead of after the default 5 s diskless-sync delay.
      '--repl-diskless-sync-delay',
      '0',
    ];
    const count = 3 * (1 + replicas);
    const { cli } = await serverBinaries(server);
    const proxies = new Map<number, TcpProxy>();
    const start = async (): Promise<RedisServer> => {
      if (!proxied) return RedisServer.start({ args, server }, true);
      let port = await freePort(true);
      while (proxies.has(port)) port = await freePort(true);
      const proxy = await startProxy(port);
      proxies.set(port, proxy);
      const announce = ['--cluster-announce-ip', HOST, '--cluster-announce-port', String(proxy.port)];
      const bus = ['--cluster-announce-bus-port', String(port + 10000)];
      return RedisServer.start({ args: [...args, ...announce, ...bus], server, port }, true);
    };
    const nodes: RedisServer[] = [];
    const stopAll = async () => {
      await Promise.all(nodes.map((node) => node.stop()));
      await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
    };
    try {
      // One at a time when proxied: each picks a port no sibling holds yet.
      if (proxied) for (let i = 0; i < count; i++) nodes.push(await start());
      else nodes.push(...(await Promise.all(Array.from({ length: count }, start))));
    } catch (error) {
      await stopAll();
      throw error;
    }
    try {
      // redis-cli assigns the first three nodes as masters and the rest as their replicas. Not
      // execFileSync: redis-cli's last check goes through the proxies, which run on this event loop.
      const addresses = nodes.map((node) => `${HOST}:${node.port}`);
      await promisify(execFile)(cli, [
        '--cluster',
        'create',
        ...addresses,
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ]);
      const cluster = new RedisCluster(nodes.slice(0, 3), nodes.slice(3), proxies);
      await cluster.waitUntilReady();
      return cluster;
    } catch (error) {
      await stopAll();
      throw error;
    }
  }

  get nodes(): RedisServer[] {
    return [...this.masters, ...this.replicas];
  }

  /** For ioredis's natMap: each proxy's address to its node's, so that a client bypasses the proxies. */
  get natMap(): Record<string, { host: string; port: number }> {
    return Object.fromEntries(
      [...this.proxies].map(([port, proxy]) => [`${HOST}:${proxy.port}`, { host: HOST, port }]),
    );
  }

  /**
   * A new ioredis Cluster client seeded with every node, once it is ready; the caller quits it.
   * Before 'ready' ioredis may swap seed connections for discovered ones and fail commands
   * in flight with "Connection is closed".
   */
  async client(): Promise<Cluster> {
    const client = new Cluster(
      this.nodes.map((node) => ({ host: HOST, port: node.port })),
      this.proxies.size > 0 ? { natMap: this.natMap } : {},
    );
    await new Promise<void>((resolve, reject) => {
      client.once('ready', resolve);
      client.once('end', () => reject(new Error('cluster client ended before it was ready')));
    });
    return client;
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
    await Promise.all([...this.proxies.values()].map((proxy) => proxy.close()));
  }

  /** Every node agrees on the masters and their replicas (gossip takes a moment), and every replica is in sync. */
  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (const node of this.nodes) {
      const client = node.client();
      try {
        for (;;) {
          const info = await client.cluster('INFO');
          const lines = ((await client.cluster('NODES')) as string).trim().split('\n');
          const slaves = lines.filter((line) => / (myself,)?slave /.test(line)).length;
          const replication = await client.info('replication');
          const synced = this.masters.includes(node)
            ? /role:master/.test(replication)
            : /master_link_status:up/.test(replication);
          if (info.includes('cluster_state:ok') && slaves === this.replicas.length && synced) break;
          if (Date.now() > deadline)
            throw new Error(`cluster node ${node.port} not ready:\n${info}\n${lines.join('\n')}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        client.disconnect();
      }
    }
  }
}

export function startCluster(options: ClusterOptions = {}): Promise<RedisCluster> {
  return RedisCluster.start(options);
}

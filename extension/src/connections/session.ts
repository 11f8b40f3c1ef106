// One live connection: its ioredis client (one node, a Cluster, or a master found through
// Sentinel) and a state the views show (connecting, connected with version and role,
// reconnecting, error with the reason). No `vscode`.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { masterNodes, nodeName, type RedisClient } from '../../../pack/nodes';
import { ConnectionError, describeConnectionError } from './errors';
import { clusterOptions, redisOptions } from './options';
import type { ConnectionConfig } from './saved';
import { parseRedisUrl, type Topology } from './url';

export type SessionState =
  | { kind: 'connecting' }
  | { kind: 'connected'; version: string; role: string; masters: readonly string[] }
  | { kind: 'reconnecting'; reason: string }
  | { kind: 'error'; message: string }
  | { kind: 'closed' };

// Errors that retrying cannot fix: the user has to change the connection.
const FATAL = /WRONGPASS|NOAUTH|invalid username-password|certificate|CERT_|SSL|self.signed/i;

export class Session {
  readonly redis: RedisClient;
  readonly target: string;
  readonly topology: Topology;
  readonly db: number;
  private current: SessionState = { kind: 'connecting' };
  private lastError: unknown;
  private everReady = false;
  /** The masters when last connected, across reconnects: a change means a failover or resharding. */
  private knownMasters?: string;
  private readonly events = new EventEmitter();

  constructor(
    readonly config: ConnectionConfig,
    password: string | undefined,
    private readonly log: (line: string) => void = () => {},
  ) {
    const parsed = parseRedisUrl(config.url);
    this.target = parsed.url;
    this.topology = parsed.kind;
    this.db = parsed.db;
    // Required on the first connection, not at activation: evaluating ioredis costs tens of ms.
    const ioredis = require('ioredis') as typeof import('ioredis');
    // First connect: fail fast with the reason. Later drops (a restart): keep trying, the view says so.
    const retry = (attempt: number) =>
      !this.everReady || FATAL.test(String(this.lastError)) ? null : Math.min(attempt * 250, 2000);
    if (parsed.kind === 'cluster') {
      const { seeds, options } = clusterOptions(config, password);
      const cluster = new ioredis.Cluster(seeds, { ...options, clusterRetryStrategy: retry });
      // A failover or resharding changes the masters: the slot map is re-read on MOVED and every 5 s.
      cluster.on('refresh', () => this.everReady && this.current.kind === 'connected' && void this.announceReady());
      cluster.on('node error', (error: unknown, address: string) =>
        this.log(`${config.name}: ${address}: ${describeConnectionError(error, address)}`),
      );
      this.redis = cluster;
    } else {
      this.redis = new ioredis.default({
        ...redisOptions(config, password),
        retryStrategy: retry,
        sentinelRetryStrategy: retry,
      });
    }
    this.redis.on('error', (error) => {
      this.lastError = error;
      this.log(
        `${config.name}: ${describeConnectionError(error, this.target, { tls: this.config.tls, connecting: !this.everReady })}`,
      );
    });
    this.redis.on('reconnecting', () =>
      this.set({
        kind: 'reconnecting',
        reason: describeConnectionError(this.lastError ?? 'connection lost', this.target),
      }),
    );
    // The first 'ready' is awaited by connect(); later ones follow a reconnect.
    this.redis.on('ready', () => this.everReady && void this.announceReady());
    this.redis.on('end', () => {
      if (this.current.kind !== 'closed') {
        const context = { tls: this.config.tls, connecting: !this.everReady };
        this.set({
          kind: 'error',
          message: describeConnectionError(this.lastError ?? 'connection closed', this.target, context),
        });
      }
    });
  }

  get state(): SessionState {
    return this.current;
  }

  onDidChange(listener: (state: SessionState) => void): { dispose(): void } {
    this.events.on('change', listener);
    return { dispose: () => this.events.off('change', listener) };
  }

  /** Fires when the masters differ from those of the last connection: a failover, or new masters. */
  onDidChangeMasters(listener: (masters: readonly string[]) => void): { dispose(): void } {
    this.events.on('masters', listener);
    return { dispose: () => this.events.off('masters', listener) };
  }

  /** The nodes holding data: every master of a Cluster, else the one server (the current master under Sentinel). */
  masters(): Redis[] {
    return masterNodes(this.redis);
  }

  /**
   * Runs `action` on every node: a Cluster's replicas too, from CLUSTER NODES (ioredis's own
   * list leaves out replicas that have not replicated a write yet), each on a short-lived
   * connection with the session's credentials and TLS; else on the one server.
   */
  async onEveryNode<T>(action: (node: Redis) => Promise<T>): Promise<T[]> {
    if (this.topology !== 'cluster') return Promise.all(this.masters().map(action));
    const [seed] = this.masters();
    const lines = ((await seed.cluster('NODES')) as string).trim().split('\n');
    const addresses = lines
      .map((line) => line.split(' '))
      .filter(([, , flags = '']) => !/fail|noaddr|handshake/.test(flags))
      .map(([, address]) => address.replace(/@.*$/, ''));
    return Promise.all(
      addresses.map(async (address) => {
        const split = address.lastIndexOf(':');
        const node = seed.duplicate({
          host: address.slice(0, split),
          port: Number(address.slice(split + 1)),
          lazyConnect: true,
        });
        node.on('error', () => {}); // the rejected command says why
        try {
          await node.connect();
          return await action(node);
        } finally {
          node.disconnect();
        }
      }),
    );
  }

  /** `host:port` of a node from masters(), as the log, the Scripts view and LockScripts name it. */
  nodeName(node: Redis): string {
    return nodeName(this.redis, node);
  }

  /** Connects; rejects with a ConnectionError naming the cause (wrong password, TLS, refused...). */
  async connect(): Promise<void> {
    this.log(`${this.config.name}: connecting to ${this.target}`);
    this.set({ kind: 'connecting' });
    try {
      await this.redis.connect();
      await this.checkMode();
      await this.announceReady();
    } catch (error) {
      const message =
        error instanceof ConnectionError
          ? error.message
          : describeConnectionError(this.lastError ?? error, this.target, { tls: this.config.tls, connecting: true });
      this.set({ kind: 'error', message });
      this.redis.disconnect();
      throw new ConnectionError(message);
    }
  }

  /** A URL of the wrong kind would show part of the data or none: say which kind to use. */
  private async checkMode(): Promise<void> {
    if (this.topology !== 'standalone') return;
    const mode = /redis_mode:(\w+)/.exec(await (this.redis as Redis).info('server').catch(() => ''))?.[1];
    if (mode === 'sentinel')
      throw new ConnectionError(
        `${this.target} is a Sentinel, not a data node: use redis-sentinel://host:26379/db#masterName.`,
      );
    if (mode === 'cluster')
      throw new ConnectionError(
        `${this.target} is a Redis Cluster node: use redis-cluster://host:port to see every master's locks.`,
      );
  }

  private async announceReady(): Promise<void> {
    this.everReady = true;
    this.lastError = undefined;
    const [node] = this.masters();
    // INFO server and replication are cheap and readable by a browse-only ACL user (+info).
    const info = (await node?.info('server').catch(() => '')) ?? '';
    const replication = (await node?.info('replication').catch(() => '')) ?? '';
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
    const masters = this.masters()
      .map((master) => this.nodeName(master))
      .sort();
    const nodeRole = /role:(\S+)/.exec(replication)?.[1] ?? '?';
    const role =
      this.topology === 'cluster'
        ? `cluster of ${masters.length} master${masters.length === 1 ? '' : 's'}`
        : this.topology === 'sentinel'
          ? `${nodeRole} ${masters[0]} via Sentinel`
          : nodeRole;
    const previous = this.current;
    if (
      previous.kind === 'connected' &&
      previous.role === role &&
      previous.version === version &&
      previous.masters.join() === masters.join()
    )
      return;
    this.log(
      `${this.config.name}: connected, Redis ${version} (${role}${this.topology === 'cluster' ? `: ${masters.join(', ')}` : ''})`,
    );
    this.set({ kind: 'connected', version, role, masters });
    const known = this.knownMasters;
    this.knownMasters = masters.join();
    if (known !== undefined && known !== this.knownMasters) this.events.emit('masters', masters);
  }

  private set(state: SessionState): void {
    this.current = state;
    this.events.emit('change', state);
  }

  dispose(): void {
    this.set({ kind: 'closed' });
    this.events.removeAllListeners();
    this.redis.disconnect();
  }
}

// One live connection: its ioredis client and a state the views show (connecting, connected
// with version and role, reconnecting, error with the reason). No `vscode`.
import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import { ConnectionError, describeConnectionError, parseRedisUrl, redisOptions, type ConnectionConfig, type TlsSettings } from './config';

export type SessionState =
  | { kind: 'connecting' }
  | { kind: 'connected'; version: string; role: string }
  | { kind: 'reconnecting'; reason: string }
  | { kind: 'error'; message: string }
  | { kind: 'closed' };

// Errors that retrying cannot fix: the user has to change the connection.
const FATAL = /WRONGPASS|NOAUTH|invalid username-password|certificate|CERT_|SSL|self.signed/i;

export class Session {
  readonly redis: Redis;
  readonly target: string;
  private current: SessionState = { kind: 'connecting' };
  private lastError: unknown;
  private everReady = false;
  private readonly events = new EventEmitter();

  constructor(
    readonly config: ConnectionConfig,
    password: string | undefined,
    private readonly tls: TlsSettings = {},
    private readonly log: (line: string) => void = () => {},
  ) {
    this.target = parseRedisUrl(config.url).url;
    // Required on the first connection, not at activation: evaluating ioredis costs tens of ms.
    const { default: RedisClient } = require('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient({
      ...redisOptions(config, password, tls),
      // First connect: fail fast with the reason. Later drops (a restart): keep trying, the view says so.
      retryStrategy: (attempt) => (!this.everReady || FATAL.test(String(this.lastError)) ? null : Math.min(attempt * 250, 2000)),
    });
    this.redis.on('error', (error) => {
      this.lastError = error;
      this.log(`${config.name}: ${describeConnectionError(error, this.target, { tls: this.tls, connecting: !this.everReady })}`);
    });
    this.redis.on('reconnecting', () => this.set({ kind: 'reconnecting', reason: describeConnectionError(this.lastError ?? 'connection lost', this.target) }));
    // The first 'ready' is awaited by connect(); later ones follow a reconnect.
    this.redis.on('ready', () => this.everReady && void this.announceReady());
    this.redis.on('end', () => {
      if (this.current.kind !== 'closed') {
        const context = { tls: this.tls, connecting: !this.everReady };
        this.set({ kind: 'error', message: describeConnectionError(this.lastError ?? 'connection closed', this.target, context) });
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

  /** Connects; rejects with a ConnectionError naming the cause (wrong password, TLS, refused...). */
  async connect(): Promise<void> {
    this.log(`${this.config.name}: connecting to ${this.target}`);
    this.set({ kind: 'connecting' });
    try {
      await this.redis.connect();
      await this.announceReady();
    } catch (error) {
      const message = describeConnectionError(this.lastError ?? error, this.target, { tls: this.tls, connecting: true });
      this.set({ kind: 'error', message });
      this.redis.disconnect();
      throw new ConnectionError(message);
    }
  }

  private async announceReady(): Promise<void> {
    this.everReady = true;
    // INFO server and replication are cheap and readable by a browse-only ACL user (+info).
    const info = await this.redis.info('server').catch(() => '');
    const replication = await this.redis.info('replication').catch(() => '');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
    const role = /role:(\S+)/.exec(replication)?.[1] ?? '?';
    if (this.current.kind !== 'connected') this.log(`${this.config.name}: connected, Redis ${version} (${role})`);
    this.set({ kind: 'connected', version, role });
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

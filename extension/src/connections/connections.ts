// The saved connections (setting redisLocksmith.connections, no secrets) with their passwords
// (SecretStorage only) and their live sessions. The one place that creates ioredis clients.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { Pack } from '../../../pack/pack';
import { LockScripts } from '../../../pack/runtime';
import { ConnectionError, describeActionError, parseRedisUrl, type ConnectionConfig, type TlsSettings } from './config';
import { Session } from './session';

const SETTING = 'connections';
const secretKey = (id: string) => `redisLocksmith.password.${id}`;

export interface NewConnection {
  name: string;
  url: string;
  username?: string;
  /** Undefined keeps the stored password (edit); '' removes it. */
  password?: string;
}

export class Connections implements vscode.Disposable {
  private readonly sessions = new Map<string, Session>();
  private readonly changed = new vscode.EventEmitter<ConnectionConfig | undefined>();
  /** Fires with a connection whose state changed, or undefined when the list changed. */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
    private readonly pack: Pack,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`redisLocksmith.${SETTING}`)) this.reconcile();
        // New TLS settings apply on the next connect.
        if (event.affectsConfiguration('redisLocksmith.tls')) this.disconnectAll();
      }),
    );
    void this.updateContext();
  }

  list(): ConnectionConfig[] {
    const saved = vscode.workspace.getConfiguration('redisLocksmith').get<ConnectionConfig[]>(SETTING) ?? [];
    return saved.filter((config) => config && typeof config.id === 'string' && typeof config.url === 'string');
  }

  get(id: string): ConnectionConfig | undefined {
    return this.list().find((config) => config.id === id);
  }

  session(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** The connected session, connecting first when needed; throws a ConnectionError with the reason. */
  async connect(config: ConnectionConfig): Promise<Session> {
    const existing = this.sessions.get(config.id);
    if (existing && existing.state.kind !== 'error' && existing.state.kind !== 'closed') return existing;
    existing?.dispose();
    const session = new Session(config, await this.secrets.get(secretKey(config.id)), this.tlsSettings(), (line) =>
      this.log.info(line),
    );
    this.sessions.set(config.id, session);
    session.onDidChange(() => this.changed.fire(config));
    session.onDidChangeMasters(() => void this.reloadScripts(config, session));
    await session.connect();
    return session;
  }

  /** New masters (a failover): the pack is loaded where it is missing, if a master had it (Lock Scripts view). */
  private async reloadScripts(config: ConnectionConfig, session: Session): Promise<void> {
    try {
      const loaded = await new LockScripts(session.redis, this.pack).loadWhereMissing();
      if (!loaded.length) return;
      this.log.info(`${config.name}: masters changed; loaded the lock scripts on ${loaded.join(', ')}`);
      this.changed.fire(config);
    } catch (error) {
      this.log.warn(`${config.name}: masters changed; ${describeActionError('load', error, config.name)}`);
    }
  }

  /**
   * Checks the connection for real before saving anything: a bad URL, a wrong password or a TLS
   * failure throws a ConnectionError and leaves settings and secrets as they were.
   */
  async save(input: NewConnection, existingId?: string): Promise<ConnectionConfig> {
    const parsed = parseRedisUrl(input.url);
    const id = existingId ?? randomUUID();
    const config: ConnectionConfig = {
      id,
      name: input.name.trim() || parsed.url,
      url: parsed.url,
      ...(input.username || parsed.username ? { username: input.username || parsed.username } : {}),
    };
    const password =
      input.password ?? parsed.password ?? (existingId ? await this.secrets.get(secretKey(existingId)) : undefined);
    const probe = new Session(config, password, this.tlsSettings(), (line) => this.log.info(`(check) ${line}`));
    try {
      await probe.connect();
    } finally {
      probe.dispose();
    }
    if (password) await this.secrets.store(secretKey(id), password);
    else await this.secrets.delete(secretKey(id));
    const others = this.list().filter((other) => other.id !== id);
    const index = this.list().findIndex((other) => other.id === id);
    const next = [...others];
    next.splice(index < 0 ? next.length : index, 0, config);
    this.sessions.get(id)?.dispose();
    this.sessions.delete(id);
    await this.write(next);
    this.log.info(
      `saved connection ${config.name} (${config.url}${config.username ? `, user ${config.username}` : ''})`,
    );
    return config;
  }

  async remove(id: string): Promise<void> {
    const config = this.get(id);
    if (!config) throw new ConnectionError('That connection no longer exists.');
    this.sessions.get(id)?.dispose();
    this.sessions.delete(id);
    await this.secrets.delete(secretKey(id));
    await this.write(this.list().filter((other) => other.id !== id));
    this.log.info(`removed connection ${config.name}`);
  }

  /** True when a password is stored for the connection (tests and the edit flow). */
  async hasPassword(id: string): Promise<boolean> {
    return (await this.secrets.get(secretKey(id))) !== undefined;
  }

  tlsSettings(): TlsSettings {
    const tls = vscode.workspace.getConfiguration('redisLocksmith.tls');
    return {
      caFile: tls.get<string>('caFile') || undefined,
      allowInsecure: tls.get<boolean>('allowInsecure') ?? false,
    };
  }

  private async write(configs: ConnectionConfig[]): Promise<void> {
    await vscode.workspace
      .getConfiguration('redisLocksmith')
      .update(SETTING, configs, vscode.ConfigurationTarget.Global);
    this.reconcile();
  }

  /** Drops sessions of connections that are gone and tells the views. */
  private reconcile(): void {
    const ids = new Set(this.list().map((config) => config.id));
    for (const [id, session] of this.sessions) {
      if (!ids.has(id)) {
        session.dispose();
        this.sessions.delete(id);
      }
    }
    void this.updateContext();
    this.changed.fire(undefined);
  }

  private disconnectAll(): void {
    for (const session of this.sessions.values()) session.dispose();
    this.sessions.clear();
    this.changed.fire(undefined);
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'locksmith.hasConnections', this.list().length > 0);
  }

  dispose(): void {
    this.disconnectAll();
    this.changed.dispose();
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}

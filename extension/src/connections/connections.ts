// The saved connections (Config.connections, no secrets) with their passwords (SecretStorage
// only) and their live sessions. The one place that creates ioredis clients.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { Pack } from '../../../pack/pack';
import { LockScripts } from '../../../pack/runtime';
import type { Config } from '../config';
import { ConnectionError, describeActionError } from './errors';
import type { ConnectionConfig, TlsSettings } from './saved';
import { Session } from './session';
import { parseRedisUrl } from './url';

const secretKey = (id: string) => `redisLocksmith.password.${id}`;

export interface NewConnection {
  name: string;
  url: string;
  username?: string;
  /** Undefined keeps the stored password (edit); '' removes it. */
  password?: string;
  /** How a `rediss://` server is verified; ignored for plain connections. Undefined keeps the saved one (edit). */
  tls?: TlsSettings;
}

export class Connections implements vscode.Disposable {
  private readonly sessions = new Map<string, Session>();
  /** Per session, the pack on its client: one per connection, so native-path detection and wake-ups are shared. */
  private readonly scriptsBySession = new WeakMap<Session, LockScripts>();
  private readonly changed = new vscode.EventEmitter<ConnectionConfig | undefined>();
  /** Fires with a connection whose state changed, or undefined when the list changed. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** Writes of the saved list, one after the other: each changes the list as the previous one left it. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: Config,
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
    private readonly pack: Pack,
  ) {
    this.subscription = config.onDidChange((change) => change.connections && this.reconcile());
    void this.updateContext();
  }

  list(): ConnectionConfig[] {
    return this.config.connections;
  }

  get(id: string): ConnectionConfig | undefined {
    return this.list().find((config) => config.id === id);
  }

  session(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** The pack on a session's client (Release, Extend, Load Lock Scripts, the Scripts view). */
  scripts(session: Session): LockScripts {
    let scripts = this.scriptsBySession.get(session);
    if (!scripts) {
      scripts = new LockScripts(session.redis, this.pack);
      this.scriptsBySession.set(session, scripts);
    }
    return scripts;
  }

  /** The connected session, connecting first when needed; throws a ConnectionError with the reason. */
  async connect(config: ConnectionConfig): Promise<Session> {
    const existing = this.sessions.get(config.id);
    if (existing && existing.state.kind !== 'error' && existing.state.kind !== 'closed') return existing;
    this.drop(config.id);
    const session = new Session(config, await this.secrets.get(secretKey(config.id)), (line) => this.log.info(line));
    this.sessions.set(config.id, session);
    session.onDidChange(() => this.changed.fire(config));
    session.onDidChangeMasters(() => void this.reloadScripts(config, session));
    await session.connect();
    return session;
  }

  /** New masters (a failover): the pack is loaded where it is missing, if a master had it (Lock Scripts view). */
  private async reloadScripts(config: ConnectionConfig, session: Session): Promise<void> {
    try {
      const loaded = await this.scripts(session).loadWhereMissing();
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
    const username = input.username || parsed.username;
    // Editing without new TLS settings keeps the connection's own.
    const tlsInput = input.tls ?? (existingId ? this.get(existingId)?.tls : undefined);
    const tls = parsed.tls && (tlsInput?.caFile || tlsInput?.allowInsecure) ? tlsOf(tlsInput) : undefined;
    const config: ConnectionConfig = {
      id,
      name: input.name.trim() || parsed.url,
      url: parsed.url,
      ...(username ? { username } : {}),
      ...(tls ? { tls } : {}),
    };
    const password =
      input.password ?? parsed.password ?? (existingId ? await this.secrets.get(secretKey(existingId)) : undefined);
    const probe = new Session(config, password, (line) => this.log.info(`(check) ${line}`));
    try {
      await probe.connect();
    } finally {
      probe.dispose();
    }
    if (password) await this.secrets.store(secretKey(id), password);
    else await this.secrets.delete(secretKey(id));
    this.drop(id);
    await this.update((saved) => {
      const index = saved.findIndex((other) => other.id === id);
      const next = saved.filter((other) => other.id !== id);
      next.splice(index < 0 ? next.length : index, 0, config);
      return next;
    });
    const verification = config.tls?.allowInsecure
      ? ', TLS not verified'
      : config.tls?.caFile
        ? `, CA ${config.tls.caFile}`
        : '';
    this.log.info(
      `saved connection ${config.name} (${config.url}${username ? `, user ${username}` : ''}${verification})`,
    );
    return config;
  }

  async remove(id: string): Promise<void> {
    const config = this.get(id);
    if (!config) throw new ConnectionError('That connection no longer exists.');
    this.drop(id);
    await this.secrets.delete(secretKey(id));
    await this.update((saved) => saved.filter((other) => other.id !== id));
    this.log.info(`removed connection ${config.name}`);
  }

  /**
   * Changes the saved list with `change`, applied to the list as the writes before it left it
   * (the one-time TLS migration); sessions of changed connections reconnect with the new settings.
   */
  update(change: (saved: ConnectionConfig[]) => ConnectionConfig[]): Promise<void> {
    const written = this.writing.then(async () => {
      const before = this.list();
      const after = change(before);
      // Nothing to write: the user's settings file is left untouched.
      if (JSON.stringify(after) === JSON.stringify(before)) return;
      await this.config.saveConnections(after);
      this.reconcile();
    });
    this.writing = written.catch(() => {});
    return written;
  }

  private drop(id: string): void {
    const session = this.sessions.get(id);
    if (session) this.scriptsBySession.get(session)?.close();
    session?.dispose();
    this.sessions.delete(id);
  }

  /** Drops sessions of connections that are gone or changed, and tells the views. */
  private reconcile(): void {
    const saved = new Map(this.list().map((config) => [config.id, JSON.stringify(config)]));
    for (const [id, session] of this.sessions) {
      if (saved.get(id) !== JSON.stringify(session.config)) this.drop(id);
    }
    void this.updateContext();
    this.changed.fire(undefined);
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'locksmith.hasConnections', this.list().length > 0);
  }

  dispose(): void {
    for (const id of [...this.sessions.keys()]) this.drop(id);
    this.changed.dispose();
    this.subscription.dispose();
  }
}

function tlsOf(input: TlsSettings): TlsSettings {
  return { ...(input.caFile ? { caFile: input.caFile } : {}), ...(input.allowInsecure ? { allowInsecure: true } : {}) };
}

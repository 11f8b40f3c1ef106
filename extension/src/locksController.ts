// Runs the Locks view's reads: one LockMonitor per connected session, the view's timers (re-reads
// and the local TTL countdown, only while the view is visible), connecting the saved connections
// when the view shows, and the offer to enable keyspace notifications. The tree provider only
// maps what this holds to rows.
import * as vscode from 'vscode';
import type { NativePath } from '../../pack/native';
import type { ConnectionConfig } from './connections/saved';
import type { Session } from './connections/session';
import { ConnectionError } from './connections/errors';
import type { Ctx } from './ctx';
import { LockHistory } from './locks/history';
import { LockMonitor, type ChangeKind, type LiveMode, type MonitorSnapshot } from './locks/monitor';
import { describeFit, patternFit, type PatternFit } from './locks/patternFit';
import { connectionNode } from './views/nodes';
import { stepDone } from './walkthrough';

/** What changed: a connection's rows or values, its state, or (undefined) the list of connections. */
export interface LocksChange {
  id?: string;
  kind: ChangeKind | 'state' | 'countdown' | 'history';
}

/** How often a countdown redraws rows whose displayed TTL changed. */
const COUNTDOWN_MS = 500;
/** Why a connection's locks went unobserved, as its history and the timeline say it. */
const VIEW_HIDDEN = 'the Locks view was hidden';
const CONNECTION_LOST = 'the connection was lost';

export class LocksController implements vscode.Disposable {
  private readonly monitors = new Map<string, LockMonitor>();
  /** Per connection, across its sessions: what happened to its locks while the view watched. */
  private readonly histories = new Map<string, LockHistory>();
  private readonly changed = new vscode.EventEmitter<LocksChange>();
  readonly onDidChange = this.changed.event;
  private visible = false;
  /** The connection the Lock Timeline follows: observed while the view is hidden (notifications only). */
  private kept?: string;
  private tickTimer?: NodeJS.Timeout;
  private countdownTimer?: NodeJS.Timeout;
  /** Per session, which commands Release and Extend run: read once when it connects, for the connection's tooltip. */
  private readonly paths = new WeakMap<Session, NativePath>();
  /** The warnings shown about a workspace's patterns, by connection and patterns: once each per window. */
  private readonly fitWarnings = new Map<string, string>();
  /** Connections already offered to enable keyspace notifications in this window. */
  private readonly offered = new Set<string>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    this.subscriptions.push(
      ctx.connections.onDidChange((config) => (config ? this.connectionChanged(config) : this.listChanged())),
      ctx.config.onDidChange((change) => {
        if (change.listing) void this.refreshAll(true);
        if (change.interval) this.restartTimers();
      }),
    );
  }

  get isVisible(): boolean {
    return this.visible;
  }

  /**
   * Reads, live updates and the countdown run only while someone can see the view; the Lock
   * Timeline's connection keeps its notifications (not its reads) while the view is hidden.
   */
  setVisible(visible: boolean): void {
    this.visible = visible;
    this.restartTimers();
    if (!visible) {
      for (const [id, monitor] of this.monitors) {
        if (id !== this.kept || monitor.snapshot().live.kind !== 'notifications') monitor.stopLive(VIEW_HIDDEN);
      }
      return;
    }
    for (const config of this.ctx.connections.list()) this.observeNow(config, false);
  }

  /**
   * The Lock Timeline follows this connection (undefined: none): its keyspace notifications stay
   * subscribed while the Locks view is hidden. They cost the server nothing; reads would, so a
   * server without notifications is not read for the timeline alone.
   */
  keepObserving(id: string | undefined): void {
    const previous = this.kept;
    this.kept = id;
    if (this.visible) return;
    if (previous && previous !== id) this.monitors.get(previous)?.stopLive(VIEW_HIDDEN);
    const config = id === undefined ? undefined : this.ctx.connections.get(id);
    if (config) this.observeNow(config, false);
  }

  /** Connects the connection, or follows it when connected (`restart`: subscribe again even when subscribed). */
  private observeNow(config: ConnectionConfig, restart: boolean): void {
    const session = this.ctx.connections.session(config.id);
    if (!session) this.connectQuietly(config);
    else if (session.state.kind === 'connected') void this.follow(config, restart);
  }

  snapshot(id: string): MonitorSnapshot | undefined {
    return this.monitors.get(id)?.snapshot();
  }

  /** The connection's lock history (created on first use, bounded by redisLocksmith.history.maxEvents). */
  history(id: string): LockHistory {
    let history = this.histories.get(id);
    if (!history) {
      history = new LockHistory(this.ctx.config.historyMaxEvents);
      history.onDidChange(() => this.changed.fire({ id, kind: 'history' }));
      this.histories.set(id, history);
    }
    return history;
  }

  /** Which commands Release and Extend run on the connection's current session; undefined until read. */
  nativePath(id: string): NativePath | undefined {
    const session = this.ctx.connections.session(id);
    return session && this.paths.get(session);
  }

  /**
   * Reads it from the pack's runtime, which decides it once per session (INFO server per master)
   * and changes its mind when a command turns out to be denied: called when the session connects
   * and after each Release or Extend, never from a hover.
   */
  async readNativePath(config: ConnectionConfig): Promise<void> {
    const session = this.ctx.connections.session(config.id);
    if (session?.state.kind !== 'connected') return;
    try {
      this.paths.set(session, await this.ctx.connections.scripts(session).path());
    } catch (error) {
      this.ctx.log.debug(`${config.name}: reading the native path failed: ${String(error)}`);
    }
  }

  /** How well the lock patterns fit the connection's keys, from what the view lists. */
  patternFit(id: string): PatternFit | undefined {
    const snapshot = this.snapshot(id);
    return snapshot?.readAt ? patternFit(snapshot.locks, snapshot.more) : undefined;
  }

  /** The warning shown about a workspace's patterns on this connection, if one was (tests). */
  fitWarning(id: string): string | undefined {
    return [...this.fitWarnings].find(([key]) => key.startsWith(`${id}\n`))?.[1];
  }

  /** How many such warnings were shown in this window (tests). */
  fitWarningsShown(): number {
    return this.fitWarnings.size;
  }

  /**
   * Once per connection and patterns: a workspace's patterns that match far more keys than locks
   * (a trusted workspace's `*`) make the view read every key; say so, and where they come from.
   */
  private checkFit(config: ConnectionConfig): void {
    const origin = this.ctx.config.lockPatternsOrigin;
    if (origin.from !== 'workspace' && origin.from !== 'workspace folder') return;
    const fit = this.patternFit(config.id);
    const patterns = this.snapshot(config.id)?.patterns ?? [];
    const key = `${config.id}\n${patterns.join('\n')}`;
    if (!fit?.mostlyNotLocks || this.fitWarnings.has(key)) return;
    const where = origin.file ? ` (${origin.file})` : '';
    const text = `${describeFit(fit, patterns, config.name)} They come from this workspace's settings${where}: edit or remove them there to use your own.`;
    this.fitWarnings.set(key, text);
    const open =
      origin.from === 'workspace'
        ? 'workbench.action.openWorkspaceSettingsFile'
        : 'workbench.action.openFolderSettingsFile';
    void vscode.window
      .showWarningMessage(text, 'Open Workspace Settings')
      .then((choice) => choice && vscode.commands.executeCommand(open));
  }

  /** How the connection's listing stays current (tests, the connection's tooltip). */
  liveMode(id: string): LiveMode | undefined {
    return this.monitors.get(id)?.snapshot().live;
  }

  /** An explicit Refresh: every connected server scanned at once, reads in flight cancelled. */
  async refreshAll(explicit: boolean): Promise<void> {
    await Promise.all(this.ctx.connections.list().map((config) => this.refresh(config, explicit)));
  }

  async refresh(config: ConnectionConfig, explicit = true): Promise<void> {
    const monitor = this.monitor(config);
    if (monitor) await monitor.refresh(explicit);
  }

  async loadMore(config: ConnectionConfig): Promise<void> {
    await this.monitor(config)?.loadMore();
  }

  /** Sets the server's notify-keyspace-events (the caller asked the user) and switches to live updates. */
  async enableNotifications(config: ConnectionConfig): Promise<LiveMode> {
    await this.ctx.connections.connect(config);
    const mode = await this.monitor(config)!.enableNotifications();
    this.changed.fire({ id: config.id, kind: 'state' });
    return mode;
  }

  /** The monitor of the connection's connected session; a new session (reconnect) gets a new one. */
  private monitor(config: ConnectionConfig): LockMonitor | undefined {
    const session = this.ctx.connections.session(config.id);
    if (session?.state.kind !== 'connected' && session?.state.kind !== 'reconnecting') return undefined;
    const existing = this.monitors.get(config.id);
    if (existing?.source === session) return existing;
    existing?.dispose(CONNECTION_LOST);
    const history = this.history(config.id);
    const monitor = new LockMonitor(
      session,
      () => this.ctx.config.locks,
      (line) => this.ctx.log.debug(`${config.name}: ${line}`),
      {
        observing: (how, at) => history.observe(how, at),
        events: (events, read) => history.observeEvents(events, read),
        reads: (locks, gone, at) => history.observeReads(locks, gone, at),
      },
    );
    monitor.onDidChange((kind) => {
      this.checkFit(config);
      // Seen: the view showed what a read of the connection found (the walkthrough's second step).
      if (this.visible && monitor.snapshot().readAt) stepDone('locksListed');
      this.changed.fire({ id: config.id, kind });
    });
    this.monitors.set(config.id, monitor);
    return monitor;
  }

  private connectionChanged(config: ConnectionConfig): void {
    const state = this.ctx.connections.session(config.id)?.state;
    // Connected again (a restart, a failover, new masters): the server may have changed entirely,
    // so read it again and re-check its notifications.
    if (state?.kind === 'connected') void this.follow(config, true);
    // Down: nothing is observed until it is back.
    else if (state) this.monitors.get(config.id)?.stopLive(CONNECTION_LOST);
    this.changed.fire({ id: config.id, kind: 'state' });
  }

  private listChanged(): void {
    for (const [id, monitor] of this.monitors) {
      if (this.ctx.connections.session(id)) continue;
      monitor.dispose();
      this.monitors.delete(id);
    }
    for (const id of this.histories.keys()) if (!this.ctx.connections.get(id)) this.histories.delete(id);
    if (this.visible) {
      for (const config of this.ctx.connections.list()) {
        if (!this.ctx.connections.session(config.id)) this.connectQuietly(config);
      }
    }
    this.changed.fire({ kind: 'state' });
  }

  /** Connects a saved connection for the view; a failure shows on the connection's row. */
  private connectQuietly(config: ConnectionConfig): void {
    this.ctx.connections.connect(config).catch((error: unknown) => {
      if (!(error instanceof ConnectionError)) this.ctx.log.error(String(error));
    });
  }

  /**
   * After a (re)connect, or when the view shows: read, and while observed subscribe to
   * notifications where the server publishes them (`restart`: even when subscribed already).
   */
  private async follow(config: ConnectionConfig, restart: boolean): Promise<void> {
    const monitor = this.monitor(config);
    if (!monitor) return;
    void this.readNativePath(config);
    if (!this.visible && this.kept !== config.id) return monitor.refresh(true);
    const subscribed = monitor.snapshot().live;
    const mode = restart || subscribed.kind !== 'notifications' ? await monitor.startLive() : subscribed;
    // Kept for the timeline alone, a server without notifications is not read.
    if (!this.visible && mode.kind !== 'notifications') return monitor.stopLive(VIEW_HIDDEN);
    await monitor.refresh(true);
    this.changed.fire({ id: config.id, kind: 'state' });
    if (this.visible && mode.kind === 'polling' && mode.enable && !this.offered.has(config.id)) {
      this.offered.add(config.id);
      void vscode.window
        .showInformationMessage(
          `${config.name} does not publish keyspace notifications, so the Locks view re-reads its locks every ${this.ctx.config.locks.intervalMs / 1000} s and scans for new ones within its 2 % budget. Enable them to see lock changes as they happen?`,
          'Enable…',
        )
        .then(
          (choice) =>
            choice && vscode.commands.executeCommand('locksmith.locks.enableNotifications', connectionNode(config)),
        );
    }
  }

  private restartTimers(): void {
    clearInterval(this.tickTimer);
    clearInterval(this.countdownTimer);
    this.tickTimer = this.countdownTimer = undefined;
    if (!this.visible) return;
    this.tickTimer = setInterval(() => {
      for (const monitor of this.monitors.values()) void monitor.tick();
    }, this.ctx.config.locks.intervalMs);
    this.countdownTimer = setInterval(() => this.changed.fire({ kind: 'countdown' }), COUNTDOWN_MS);
  }

  dispose(): void {
    this.visible = false;
    this.restartTimers();
    for (const monitor of this.monitors.values()) monitor.dispose();
    this.monitors.clear();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

// The Locks view: connections, and under each its locks with owner and a TTL that counts down
// locally. Each connection's LockMonitor keeps its listing current, while the view is visible:
// keyspace notifications where the server publishes them, else re-reads on a timer.
import * as vscode from 'vscode';
import { ConnectionError, type ConnectionConfig } from '../connections/config';
import type { Ctx } from '../ctx';
import { LockMonitor, type LiveMode, type MonitorSettings } from '../locks/monitor';
import { filterLocks, presentHolder, presentLock, sortLocks, type LockView, type SortOrder } from '../locks/present';
import type { LockEntry } from '../locks/classify';
import type { ConnectionNode, LocksNode, LockNode, MessageNode } from './nodes';

function viewItem(view: LockView, collapsible: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(view.label, collapsible);
  item.description = view.description;
  item.tooltip = new vscode.MarkdownString(view.tooltip);
  item.iconPath = new vscode.ThemeIcon(
    view.icon,
    view.warning ? new vscode.ThemeColor('list.warningForeground') : undefined,
  );
  item.contextValue = view.contextValue;
  return item;
}

export interface LocksSettings extends MonitorSettings {
  intervalMs: number;
}

export class LocksTree implements vscode.TreeDataProvider<LocksNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<LocksNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly monitors = new Map<string, LockMonitor>();
  private readonly connectionNodes = new Map<string, ConnectionNode>();
  /** The rows under each connection as last built, and whether a Load more row followed them. */
  private readonly rows = new Map<string, { nodes: LockNode[]; more: boolean }>();
  // By key: rows stay where they are under the pointer; by TTL they move as leases are extended.
  private order: SortOrder = 'key';
  /** The description each lock row was last drawn with: only rows whose text changed are redrawn. */
  private readonly drawn = new WeakMap<LockNode, string>();
  private filterText = '';
  private visible = false;
  private refreshTimer: NodeJS.Timeout | undefined;
  private countdownTimer: NodeJS.Timeout | undefined;
  /** Connections already offered to enable keyspace notifications in this window. */
  private readonly offered = new Set<string>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: Ctx,
    private readonly settings: () => LocksSettings,
  ) {
    this.subscriptions.push(
      ctx.connections.onDidChange((config) => {
        if (!config) {
          for (const [id, monitor] of this.monitors) {
            if (ctx.connections.get(id)) continue;
            monitor.dispose();
            this.monitors.delete(id);
          }
          this.connectionNodes.clear();
          this.changed.fire(undefined);
          return;
        }
        // Connected again (a restart, a failover, new masters): the server may have changed
        // entirely, so read it again and re-check its notifications.
        if (ctx.connections.session(config.id)?.state.kind === 'connected') void this.follow(config);
        this.changed.fire(this.connectionNodes.get(config.id));
      }),
    );
  }

  get sortOrder(): SortOrder {
    return this.order;
  }

  get filter(): string {
    return this.filterText;
  }

  setSortOrder(order: SortOrder): void {
    this.order = order;
    void vscode.commands.executeCommand('setContext', 'locksmith.sort', order);
    this.rebuild();
  }

  setFilter(text: string): void {
    this.filterText = text;
    void vscode.commands.executeCommand('setContext', 'locksmith.filtered', text !== '');
    this.rebuild();
  }

  /** Polling, notifications and the countdown run only while someone can see the view. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    clearInterval(this.refreshTimer);
    clearInterval(this.countdownTimer);
    this.refreshTimer = this.countdownTimer = undefined;
    if (!visible) {
      for (const monitor of this.monitors.values()) monitor.stopLive();
      return;
    }
    this.refreshTimer = setInterval(() => void this.refreshAll(false), this.settings().intervalMs);
    this.countdownTimer = setInterval(() => this.tick(), 500);
    for (const config of this.ctx.connections.list())
      if (this.ctx.connections.session(config.id)?.state.kind === 'connected') void this.follow(config);
  }

  /**
   * Re-reads every connected server; `cancel` (an explicit refresh) aborts reads in flight and
   * starts over. The timer's calls skip connections kept current by keyspace notifications.
   */
  async refreshAll(cancel: boolean): Promise<void> {
    await Promise.all(this.ctx.connections.list().map((config) => this.refresh(config, cancel)));
  }

  async refresh(config: ConnectionConfig, cancel = true): Promise<void> {
    const monitor = this.monitor(config);
    if (!monitor || this.ctx.connections.session(config.id)?.state.kind !== 'connected') return;
    if (!cancel && monitor.live.kind === 'notifications') return;
    await monitor.refresh(cancel);
  }

  /** Continues the scan where the last page stopped. */
  async loadMore(config: ConnectionConfig): Promise<void> {
    await this.monitor(config)?.loadMore();
  }

  /** How the connection's listing stays current (tests, the connection's tooltip). */
  liveMode(id: string): LiveMode | undefined {
    return this.monitors.get(id)?.live;
  }

  /** Sets the server's notify-keyspace-events (the caller asked the user) and switches to live updates. */
  async enableNotifications(config: ConnectionConfig): Promise<LiveMode> {
    await this.ctx.connections.connect(config);
    const mode = await this.monitor(config)!.enableNotifications();
    this.changed.fire(this.connectionNodes.get(config.id));
    return mode;
  }

  /** The monitor of the connection's current session; a new session (reconnect) gets a new one. */
  private monitor(config: ConnectionConfig): LockMonitor | undefined {
    const session = this.ctx.connections.session(config.id);
    if (!session) return undefined;
    const existing = this.monitors.get(config.id);
    if (existing?.source === session) return existing;
    existing?.dispose();
    const monitor = new LockMonitor(
      session,
      () => this.settings(),
      (line) => this.ctx.log.debug(`${config.name}: ${line}`),
    );
    monitor.onDidChange(() => this.update(config.id));
    this.monitors.set(config.id, monitor);
    return monitor;
  }

  /** After a (re)connect: re-read, and while visible subscribe to notifications where the server publishes them. */
  private async follow(config: ConnectionConfig): Promise<void> {
    const monitor = this.monitor(config);
    if (!monitor) return;
    if (!this.visible) return monitor.refresh(true);
    const mode = await monitor.startLive();
    await monitor.refresh(true);
    this.changed.fire(this.connectionNodes.get(config.id));
    if (mode.kind === 'polling' && mode.enable && !this.offered.has(config.id)) {
      this.offered.add(config.id);
      void vscode.window
        .showInformationMessage(
          `${config.name} does not publish keyspace notifications, so the Locks view re-reads it every ${this.settings().intervalMs / 1000} s. Enable them to see lock changes as they happen?`,
          'Enable…',
        )
        .then(
          (choice) =>
            choice &&
            vscode.commands.executeCommand('locksmith.locks.enableNotifications', { kind: 'connection', config }),
        );
    }
  }

  /**
   * After a re-read: when the same keys come back in the same order, the rows keep their place
   * and only those whose text changed are redrawn (a redraw closes an open tooltip).
   */
  private update(id: string): void {
    const rows = this.rows.get(id);
    const monitor = this.monitors.get(id);
    if (!rows || !monitor || monitor.error) return this.rebuild(id);
    const shown = this.shownLocks(monitor);
    const same =
      rows.more === (monitor.cursor !== undefined) &&
      rows.nodes.length === shown.length &&
      rows.nodes.every((node, i) => node.lock.kind === shown[i].kind && node.lock.key.equals(shown[i].key));
    if (!same) return this.rebuild(id);
    rows.nodes.forEach((node, i) => (node.lock = shown[i]));
    this.redrawChanged(rows.nodes);
  }

  private shownLocks(monitor: LockMonitor): LockEntry[] {
    return sortLocks(filterLocks(monitor.locks, this.filterText), this.order, Date.now());
  }

  private redrawChanged(nodes: readonly LockNode[]): void {
    const now = Date.now();
    for (const node of nodes) {
      if (this.drawn.get(node) !== presentLock(node.lock, now).description) this.changed.fire(node);
    }
  }

  /** The listing of a connection as last read (tests, status). */
  listing(id: string): { locks: readonly LockEntry[]; more: boolean } | undefined {
    const monitor = this.monitors.get(id);
    return monitor && monitor.readAt > 0 ? { locks: monitor.locks, more: monitor.cursor !== undefined } : undefined;
  }

  private rebuild(id?: string): void {
    const ids = id ? [id] : [...this.monitors.keys()];
    for (const each of ids) this.rows.delete(each);
    this.changed.fire(id ? this.connectionNodes.get(id) : undefined);
  }

  private tick(): void {
    // Only rows whose text changed: a TTL counting down past a displayed digit.
    for (const { nodes } of this.rows.values()) this.redrawChanged(nodes);
  }

  getChildren(node?: LocksNode): LocksNode[] {
    if (!node) {
      return this.ctx.connections.list().map((config) => {
        const existing = this.connectionNodes.get(config.id);
        if (existing && existing.config === config) return existing;
        const fresh: ConnectionNode = { kind: 'connection', config };
        this.connectionNodes.set(config.id, fresh);
        return fresh;
      });
    }
    if (node.kind === 'connection') return this.connectionChildren(node.config);
    if (node.kind === 'lock' && node.lock.kind === 'reentrant') {
      const lock = node.lock;
      return lock.holders.map((holder) => ({ kind: 'holder', config: node.config, lock, holder }));
    }
    return [];
  }

  private connectionChildren(config: ConnectionConfig): LocksNode[] {
    const session = this.ctx.connections.session(config.id);
    const message = (text: string, icon: string, extra: Partial<MessageNode> = {}): MessageNode[] => [
      { kind: 'message', config, text, icon, ...extra },
    ];
    if (!session) {
      // Expanding a connection connects it.
      void this.ctx.connections.connect(config).catch((error) => {
        if (!(error instanceof ConnectionError)) this.ctx.log.error(String(error));
      });
      return message('connecting…', 'loading~spin');
    }
    switch (session.state.kind) {
      case 'connecting':
        return message('connecting…', 'loading~spin');
      case 'error':
      case 'closed':
        return message(session.state.kind === 'error' ? session.state.message : 'disconnected', 'error', {
          command: { command: 'locksmith.locks.connect', title: 'Reconnect' },
        });
      case 'reconnecting':
        if (!this.monitors.get(config.id)?.locks.length)
          return message(`reconnecting: ${session.state.reason}`, 'sync~spin');
        break;
      case 'connected':
        break;
    }
    const listing = this.monitor(config)!;
    if (listing.readAt === 0 && !listing.error) {
      if (!listing.busy) void listing.refresh();
      return message('scanning for locks…', 'loading~spin');
    }
    if (listing.error && !listing.locks.length) return message(`reading locks failed: ${listing.error}`, 'error');
    let rows = this.rows.get(config.id);
    if (!rows) {
      rows = {
        nodes: this.shownLocks(listing).map((lock): LockNode => ({ kind: 'lock', config, lock })),
        more: listing.cursor !== undefined,
      };
      this.rows.set(config.id, rows);
    }
    const { nodes } = rows;
    const children: LocksNode[] = [...nodes];
    if (listing.cursor) children.push({ kind: 'more', config });
    if (!listing.locks.length) {
      return message(`no locks match ${listing.patterns.join(', ')}`, 'info', {
        tooltip: 'Keys are found with SCAN MATCH over these patterns. Click to change them.',
        command: { command: 'locksmith.locks.editPatterns', title: 'Change Lock Patterns' },
      });
    }
    if (!nodes.length)
      return message(`no locks match the filter '${this.filterText}'`, 'filter', {
        command: { command: 'locksmith.locks.clearFilter', title: 'Clear Filter' },
      });
    return children;
  }

  getTreeItem(node: LocksNode): vscode.TreeItem {
    switch (node.kind) {
      case 'connection':
        return this.connectionItem(node);
      case 'lock': {
        const collapsible =
          node.lock.kind === 'reentrant'
            ? vscode.TreeItemCollapsibleState.Collapsed
            : vscode.TreeItemCollapsibleState.None;
        const view = presentLock(node.lock, Date.now());
        this.drawn.set(node, view.description);
        const item = viewItem(view, collapsible);
        // Filled in by resolveTreeItem when hovered, so it shows the TTL at that moment.
        item.tooltip = undefined;
        item.id = `${node.config.id}/${node.lock.key.toString('base64')}`;
        return item;
      }
      case 'holder': {
        const item = viewItem(presentHolder(node.lock, node.holder), vscode.TreeItemCollapsibleState.None);
        item.id = `${node.config.id}/${node.lock.key.toString('base64')}/${node.holder.field.toString('base64')}`;
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem('Load more…', vscode.TreeItemCollapsibleState.None);
        item.id = `${node.config.id}/more`;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.command = { command: 'locksmith.locks.loadMore', title: 'Load More Locks', arguments: [node] };
        item.contextValue = 'more';
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.id = `${node.config.id}/message`;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        item.tooltip = node.tooltip ?? node.text;
        if (node.command) item.command = { ...node.command, arguments: [{ kind: 'connection', config: node.config }] };
        item.contextValue = 'message';
        return item;
      }
    }
  }

  resolveTreeItem(item: vscode.TreeItem, node: LocksNode): vscode.TreeItem {
    if (node.kind === 'lock') item.tooltip = new vscode.MarkdownString(presentLock(node.lock, Date.now()).tooltip);
    return item;
  }

  private connectionItem(node: ConnectionNode): vscode.TreeItem {
    const { config } = node;
    const state = this.ctx.connections.session(config.id)?.state;
    const item = new vscode.TreeItem(config.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `connection/${config.id}`;
    const insecure = config.url.startsWith('rediss:') && this.ctx.connections.tlsSettings().allowInsecure;
    const listing = this.monitors.get(config.id);
    const live = listing?.live.kind === 'notifications' ? 'live' : '';
    const locks = listing?.locks.filter((lock) => lock.kind !== 'other').length ?? 0;
    const count = listing && listing.readAt ? `${locks}${listing.cursor ? '+' : ''} lock${locks === 1 ? '' : 's'}` : '';
    let tooltip = `${config.url}${config.username ? ` as ${config.username}` : ''}`;
    switch (state?.kind) {
      case 'connected':
        // The count first: it is what a narrow side bar still shows.
        item.description = [count, live, `Redis ${state.version}`, state.role].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(
          insecure ? 'warning' : 'database',
          insecure ? new vscode.ThemeColor('list.warningForeground') : undefined,
        );
        // `.notifiable`: the server could publish keyspace notifications; the menu offers to enable them.
        item.contextValue =
          listing?.live.kind === 'polling' && listing.live.enable
            ? 'connection.connected.notifiable'
            : 'connection.connected';
        break;
      case 'reconnecting':
        item.description = 'reconnecting…';
        item.iconPath = new vscode.ThemeIcon('sync~spin');
        item.contextValue = 'connection.reconnecting';
        tooltip += `\n${state.reason}`;
        break;
      case 'error':
        item.description = state.message;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
        item.contextValue = 'connection.error';
        tooltip += `\n${state.message}`;
        break;
      default:
        item.description = 'connecting…';
        item.iconPath = new vscode.ThemeIcon('loading~spin');
        item.contextValue = 'connection.connecting';
    }
    if (listing?.live.kind === 'notifications')
      tooltip += '\nLive: keyspace notifications update changed locks as they happen.';
    else if (listing && this.visible)
      tooltip += `\nRe-read every ${this.settings().intervalMs / 1000} s (${listing.live.reason}).`;
    if (insecure) tooltip += '\nTLS certificate verification is OFF (redisLocksmith.tls.allowInsecure).';
    item.tooltip = tooltip;
    return item;
  }

  dispose(): void {
    this.setVisible(false);
    for (const monitor of this.monitors.values()) monitor.dispose();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

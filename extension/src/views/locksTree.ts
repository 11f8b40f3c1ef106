// The Locks view: connections, and under each its locks with owner and a TTL that counts down
// locally between re-reads. Re-reads run only while the view is visible, one at a time per
// connection, and can be cancelled by the next explicit refresh.
import * as vscode from 'vscode';
import { ConnectionError, type ConnectionConfig } from '../connections/config';
import type { Ctx } from '../ctx';
import { discoverLocks, type DiscoveryCursor } from '../locks/discovery';
import { filterLocks, presentHolder, presentLock, sortLocks, type LockView, type SortOrder } from '../locks/present';
import type { LockEntry } from '../locks/classify';
import type { ConnectionNode, LocksNode, LockNode, MessageNode } from './nodes';

function viewItem(view: LockView, collapsible: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(view.label, collapsible);
  item.description = view.description;
  item.tooltip = new vscode.MarkdownString(view.tooltip);
  item.iconPath = new vscode.ThemeIcon(view.icon, view.warning ? new vscode.ThemeColor('list.warningForeground') : undefined);
  item.contextValue = view.contextValue;
  return item;
}

interface Listing {
  locks: LockEntry[];
  /** Where "Load more" continues; undefined when the scan finished. */
  cursor?: DiscoveryCursor;
  /** How many locks the user asked to see (grows with Load more; a refresh re-reads that many). */
  wanted: number;
  patterns: string[];
  error?: string;
  inFlight?: AbortController;
  readAt: number;
}

export interface LocksSettings {
  patterns: string[];
  limit: number;
  intervalMs: number;
}

export class LocksTree implements vscode.TreeDataProvider<LocksNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<LocksNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly listings = new Map<string, Listing>();
  private readonly connectionNodes = new Map<string, ConnectionNode>();
  /** The rows under each connection as last built, and whether a Load more row followed them. */
  private readonly rows = new Map<string, { nodes: LockNode[]; more: boolean }>();
  // By key: rows stay where they are under the pointer; by TTL they move as leases are extended.
  private order: SortOrder = 'key';
  /** The description each lock row was last drawn with: only rows whose text changed are redrawn. */
  private readonly drawn = new WeakMap<LockNode, string>();
  private filterText = '';
  private refreshTimer: NodeJS.Timeout | undefined;
  private countdownTimer: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: Ctx,
    private readonly settings: () => LocksSettings,
  ) {
    this.subscriptions.push(
      ctx.connections.onDidChange((config) => {
        if (!config) {
          for (const id of this.listings.keys()) if (!ctx.connections.get(id)) this.listings.delete(id);
          this.connectionNodes.clear();
          this.changed.fire(undefined);
          return;
        }
        const node = this.connectionNodes.get(config.id);
        // A reconnected server may have changed entirely (a restart): read it again.
        if (ctx.connections.session(config.id)?.state.kind === 'connected' && !this.listings.get(config.id)?.inFlight) void this.load(config);
        this.changed.fire(node);
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

  /** Polling and the countdown run only while someone can see the view. */
  setVisible(visible: boolean): void {
    clearInterval(this.refreshTimer);
    clearInterval(this.countdownTimer);
    this.refreshTimer = this.countdownTimer = undefined;
    if (!visible) return;
    this.refreshTimer = setInterval(() => void this.refreshAll(false), this.settings().intervalMs);
    this.countdownTimer = setInterval(() => this.tick(), 500);
    void this.refreshAll(false);
  }

  /** Re-reads every connected server; `cancel` aborts reads in flight and starts over. */
  async refreshAll(cancel: boolean): Promise<void> {
    await Promise.all(this.ctx.connections.list().map((config) => this.refresh(config, cancel)));
  }

  async refresh(config: ConnectionConfig, cancel = true): Promise<void> {
    const listing = this.listings.get(config.id);
    if (listing?.inFlight) {
      if (!cancel) return; // at most one read in flight per connection
      listing.inFlight.abort();
      // The aborted read returns without touching the listing: nothing is in flight any more.
      listing.inFlight = undefined;
    }
    if (this.ctx.connections.session(config.id)?.state.kind !== 'connected') return;
    await this.load(config);
  }

  /** Continues the scan where the last page stopped. */
  async loadMore(config: ConnectionConfig): Promise<void> {
    const listing = this.listings.get(config.id);
    if (!listing?.cursor || listing.inFlight) return;
    await this.load(config, listing);
  }

  private async load(config: ConnectionConfig, more?: Listing): Promise<void> {
    const session = this.ctx.connections.session(config.id);
    if (!session) return;
    const { patterns, limit } = this.settings();
    const previous = this.listings.get(config.id);
    const wanted = more ? more.wanted + limit : Math.max(limit, previous?.wanted ?? 0);
    const controller = new AbortController();
    const current: Listing = previous ?? { locks: [], wanted, patterns, readAt: 0 };
    current.inFlight = controller;
    this.listings.set(config.id, current);
    try {
      const page = await discoverLocks(session.redis, {
        patterns,
        limit: more ? limit : wanted,
        after: more?.cursor,
        signal: controller.signal,
      });
      if (controller.signal.aborted) return;
      this.ctx.log.debug(`${config.name}: SCAN MATCH ${patterns.join(' | ')}: ${page.entries.length} keys${page.next ? ', more to load' : ''}`);
      this.listings.set(config.id, {
        locks: more ? [...more.locks, ...page.entries] : page.entries,
        cursor: page.next,
        wanted,
        patterns,
        readAt: Date.now(),
      });
    } catch (error) {
      if (controller.signal.aborted) return;
      this.listings.set(config.id, { ...current, inFlight: undefined, error: (error as Error).message });
      this.ctx.log.warn(`${config.name}: reading locks failed: ${(error as Error).message}`);
    }
    this.update(config.id);
  }

  /**
   * After a re-read: when the same keys come back in the same order, the rows keep their place
   * and only those whose text changed are redrawn (a redraw closes an open tooltip).
   */
  private update(id: string): void {
    const rows = this.rows.get(id);
    const listing = this.listings.get(id);
    if (!rows || !listing || listing.error) return this.rebuild(id);
    const shown = this.shownLocks(listing);
    const same =
      rows.more === (listing.cursor !== undefined) &&
      rows.nodes.length === shown.length &&
      rows.nodes.every((node, i) => node.lock.kind === shown[i].kind && node.lock.key.equals(shown[i].key));
    if (!same) return this.rebuild(id);
    rows.nodes.forEach((node, i) => (node.lock = shown[i]));
    this.redrawChanged(rows.nodes);
  }

  private shownLocks(listing: Listing): LockEntry[] {
    return sortLocks(filterLocks(listing.locks, this.filterText), this.order, Date.now());
  }

  private redrawChanged(nodes: readonly LockNode[]): void {
    const now = Date.now();
    for (const node of nodes) {
      if (this.drawn.get(node) !== presentLock(node.lock, now).description) this.changed.fire(node);
    }
  }

  /** The listing of a connection as last read (tests, status). */
  listing(id: string): { locks: readonly LockEntry[]; more: boolean } | undefined {
    const listing = this.listings.get(id);
    return listing && { locks: listing.locks, more: listing.cursor !== undefined };
  }

  private rebuild(id?: string): void {
    const ids = id ? [id] : [...this.listings.keys()];
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
    const message = (text: string, icon: string, extra: Partial<MessageNode> = {}): MessageNode[] => [{ kind: 'message', config, text, icon, ...extra }];
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
        if (!this.listings.get(config.id)?.locks.length) return message(`reconnecting: ${session.state.reason}`, 'sync~spin');
        break;
      case 'connected':
        break;
    }
    const listing = this.listings.get(config.id);
    if (!listing || (listing.readAt === 0 && listing.inFlight)) {
      if (!listing) void this.load(config);
      return message('scanning for locks…', 'loading~spin');
    }
    if (listing.error && !listing.locks.length) return message(`reading locks failed: ${listing.error}`, 'error');
    let rows = this.rows.get(config.id);
    if (!rows) {
      rows = { nodes: this.shownLocks(listing).map((lock): LockNode => ({ kind: 'lock', config, lock })), more: listing.cursor !== undefined };
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
    if (!nodes.length) return message(`no locks match the filter '${this.filterText}'`, 'filter', { command: { command: 'locksmith.locks.clearFilter', title: 'Clear Filter' } });
    return children;
  }

  getTreeItem(node: LocksNode): vscode.TreeItem {
    switch (node.kind) {
      case 'connection':
        return this.connectionItem(node);
      case 'lock': {
        const collapsible = node.lock.kind === 'reentrant' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
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
    const listing = this.listings.get(config.id);
    const locks = listing?.locks.filter((lock) => lock.kind !== 'other').length ?? 0;
    const count = listing && listing.readAt ? `${locks}${listing.cursor ? '+' : ''} lock${locks === 1 ? '' : 's'}` : '';
    let tooltip = `${config.url}${config.username ? ` as ${config.username}` : ''}`;
    switch (state?.kind) {
      case 'connected':
        // The count first: it is what a narrow side bar still shows.
        item.description = [count, `Redis ${state.version}`, state.role].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(insecure ? 'warning' : 'database', insecure ? new vscode.ThemeColor('list.warningForeground') : undefined);
        item.contextValue = 'connection.connected';
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
    if (insecure) tooltip += '\nTLS certificate verification is OFF (redisLocksmith.tls.allowInsecure).';
    item.tooltip = tooltip;
    return item;
  }

  dispose(): void {
    this.setVisible(false);
    for (const listing of this.listings.values()) listing.inFlight?.abort();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

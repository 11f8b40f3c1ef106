// The Locks view's rows: connections, and under each its locks with owner and a TTL that counts
// down locally. It maps what the LocksController holds to rows; it never connects or reads.
import * as vscode from 'vscode';
import { verifiesNothing, type ConnectionConfig } from '../connections/saved';
import type { Ctx } from '../ctx';
import type { LocksController } from '../locksController';
import { escapeBytes, isHeldByMany, type LockEntry } from '../locks/classify';
import type { MonitorSnapshot } from '../locks/monitor';
import {
  describeFreshness,
  describePath,
  filterLocks,
  presentHolder,
  presentLock,
  sortLocks,
  type LockView,
  type SortOrder,
} from '../locks/present';
import { groupOf, groupStats, STATS_WINDOW_MS, type GroupStats } from '../locks/groups';
import { presentGroup, recentHolds } from '../locks/presentHistory';
import { describeReplication } from '../locks/replication';
import type { ConnectionNode, GroupNode, LocksNode, LockNode, MessageNode } from './nodes';

/** Above this many locks a connection shows its lock groups first, then the keys in each. */
const GROUP_ABOVE = 25;

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

export class LocksTree implements vscode.TreeDataProvider<LocksNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<LocksNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly connectionNodes = new Map<string, ConnectionNode>();
  /** The rows under each connection as last built, their groups when grouped, and whether a Load more row followed them. */
  private readonly rows = new Map<string, { nodes: LockNode[]; groups?: GroupNode[]; more: boolean }>();
  /** Connections whose history changed since the group rows were last drawn. */
  private readonly historyChanged = new Set<string>();
  // By key: rows stay where they are under the pointer; by TTL they move as leases are extended.
  private order: SortOrder = 'key';
  /** The description each lock row was last drawn with: only rows whose text changed are redrawn. */
  private readonly drawn = new WeakMap<LockNode, string>();
  private filterText = '';
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly ctx: Ctx,
    private readonly controller: LocksController,
  ) {
    this.subscription = controller.onDidChange(({ id, kind }) => {
      if (kind === 'countdown') return this.redrawAllChanged();
      // Group rows show the history's counts: redrawn with the next countdown tick, not per event.
      if (kind === 'history') return void (id && this.historyChanged.add(id));
      if (id === undefined) {
        const saved = new Set(this.ctx.connections.list().map((config) => config.id));
        for (const known of this.connectionNodes.keys()) if (!saved.has(known)) this.connectionNodes.delete(known);
        this.rows.clear();
        return this.changed.fire(undefined);
      }
      if (kind === 'values') return this.update(id);
      this.rebuild(id);
    });
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

  /**
   * After a re-read: when the same keys come back in the same order, the rows keep their place
   * and only those whose text changed are redrawn (a redraw closes an open tooltip).
   */
  private update(id: string): void {
    const rows = this.rows.get(id);
    const snapshot = this.controller.snapshot(id);
    if (!rows || !snapshot || snapshot.error) return this.rebuild(id);
    const shown = this.shownLocks(snapshot);
    const same =
      rows.more === snapshot.more &&
      rows.nodes.length === shown.length &&
      rows.nodes.every((node, i) => node.lock.kind === shown[i].kind && node.lock.key.equals(shown[i].key));
    if (!same) return this.rebuild(id);
    rows.nodes.forEach((node, i) => (node.lock = shown[i]));
    this.redrawChanged(rows.nodes);
  }

  private shownLocks(snapshot: MonitorSnapshot): LockEntry[] {
    return sortLocks(filterLocks(snapshot.locks, this.filterText), this.order, Date.now());
  }

  private redrawChanged(nodes: readonly LockNode[]): void {
    const now = Date.now();
    for (const node of nodes) {
      if (this.drawn.get(node) !== presentLock(node.lock, now).description) this.changed.fire(node);
    }
  }

  /** The countdown: only rows whose text changed, e.g. a TTL passing a displayed digit; group rows after history changed. */
  private redrawAllChanged(): void {
    for (const [id, { nodes, groups }] of this.rows) {
      this.redrawChanged(nodes);
      if (groups && this.historyChanged.has(id)) for (const group of groups) this.changed.fire(group);
    }
    this.historyChanged.clear();
  }

  private rebuild(id?: string): void {
    if (id) this.rows.delete(id);
    else this.rows.clear();
    this.changed.fire(id ? this.connectionNodes.get(id) : undefined);
  }

  getChildren(node?: LocksNode): LocksNode[] {
    if (!node) {
      // One node per connection for as long as it exists: events fire for the node the view knows.
      return this.ctx.connections.list().map((config) => {
        const existing = this.connectionNodes.get(config.id);
        if (existing) {
          existing.config = config;
          return existing;
        }
        const fresh: ConnectionNode = { kind: 'connection', config };
        this.connectionNodes.set(config.id, fresh);
        return fresh;
      });
    }
    if (node.kind === 'connection') return this.connectionChildren(node.config);
    if (node.kind === 'group') return node.locks;
    if (node.kind === 'lock' && isHeldByMany(node.lock)) {
      const lock = node.lock;
      return lock.holders.map((holder) => ({ kind: 'holder', config: node.config, lock, holder }));
    }
    return [];
  }

  private connectionChildren(config: ConnectionConfig): LocksNode[] {
    const state = this.ctx.connections.session(config.id)?.state;
    const snapshot = this.controller.snapshot(config.id);
    const message = (text: string, icon: string, extra: Partial<MessageNode> = {}): MessageNode[] => [
      { kind: 'message', config, text, icon, ...extra },
    ];
    switch (state?.kind) {
      case undefined:
      case 'connecting':
        return message('connecting…', 'loading~spin');
      case 'error':
      case 'closed':
        return message(state.kind === 'error' ? state.message : 'disconnected', 'error', {
          command: { command: 'locksmith.locks.connect', title: 'Reconnect' },
        });
      case 'reconnecting':
        if (!snapshot?.locks.length) return message(`reconnecting: ${state.reason}`, 'sync~spin');
        break;
      case 'connected':
        break;
    }
    if (!snapshot || (snapshot.readAt === 0 && !snapshot.error)) return message('scanning for locks…', 'loading~spin');
    if (snapshot.error && !snapshot.locks.length) return message(`reading locks failed: ${snapshot.error}`, 'error');
    if (!snapshot.locks.length) {
      return message(`no locks match ${snapshot.patterns.join(', ')}`, 'info', {
        tooltip: 'Keys are found with SCAN MATCH over these patterns. Click to change them.',
        command: { command: 'locksmith.locks.editPatterns', title: 'Change Lock Patterns' },
      });
    }
    let rows = this.rows.get(config.id);
    if (!rows) {
      const nodes = this.shownLocks(snapshot).map((lock): LockNode => ({ kind: 'lock', config, lock }));
      rows = { nodes, more: snapshot.more, groups: nodes.length > GROUP_ABOVE ? this.group(config, nodes) : undefined };
      this.rows.set(config.id, rows);
    }
    if (!rows.nodes.length) {
      return message(`no locks match the filter '${this.filterText}'`, 'filter', {
        command: { command: 'locksmith.locks.clearFilter', title: 'Clear Filter' },
      });
    }
    const shown: LocksNode[] = rows.groups ?? rows.nodes;
    return rows.more ? [...shown, { kind: 'more', config }] : [...shown];
  }

  /** The rows by lock group, groups sorted by name; the keys keep their order within each. */
  private group(config: ConnectionConfig, nodes: readonly LockNode[]): GroupNode[] {
    const named = this.ctx.config.lockGroups;
    const groups = new Map<string, GroupNode>();
    for (const node of nodes) {
      const name = groupOf(escapeBytes(node.lock.key), named);
      let group = groups.get(name);
      if (!group) groups.set(name, (group = { kind: 'group', config, group: name, locks: [] }));
      group.locks.push(node);
    }
    return [...groups.values()].sort((a, b) => a.group.localeCompare(b.group));
  }

  /** Per group, the use of its locks in the last 10 minutes, from the connection's history. */
  private statsOf(config: ConnectionConfig): Map<string, GroupStats> {
    const named = this.ctx.config.lockGroups;
    const history = this.controller.history(config.id);
    return groupStats(
      history.holds(),
      Date.now(),
      (key) => groupOf(key, named),
      STATS_WINDOW_MS,
      history.waiterSamples(),
    );
  }

  /** The parent of a row, so the view can reveal a lock (from the timeline). */
  getParent(node: LocksNode): LocksNode | undefined {
    if (node.kind === 'connection') return undefined;
    const connection = this.connectionNodes.get(node.config.id);
    if (node.kind === 'lock' || node.kind === 'holder') {
      const rows = this.rows.get(node.config.id);
      const lockNode = node.kind === 'lock' ? node : rows?.nodes.find((each) => each.lock === node.lock);
      if (node.kind === 'holder') return lockNode;
      return rows?.groups?.find((group) => group.locks.includes(lockNode!)) ?? connection;
    }
    return connection;
  }

  /** The row of a lock shown under a connection, by the key as the view shows it. */
  lockNode(connectionId: string, key: string): LockNode | undefined {
    return this.rows.get(connectionId)?.nodes.find((node) => escapeBytes(node.lock.key) === key);
  }

  getTreeItem(node: LocksNode): vscode.TreeItem {
    switch (node.kind) {
      case 'connection':
        return this.connectionItem(node);
      case 'lock': {
        const collapsible = isHeldByMany(node.lock)
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
      case 'group': {
        const view = presentGroup(node.group, node.locks.length, this.statsOf(node.config).get(node.group));
        const item = viewItem(view, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${node.config.id}/group/${node.group}`;
        return item;
      }
      case 'holder': {
        const item = viewItem(presentHolder(node.lock, node.holder, Date.now()), vscode.TreeItemCollapsibleState.None);
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

  async resolveTreeItem(item: vscode.TreeItem, node: LocksNode): Promise<vscode.TreeItem> {
    if (node.kind === 'lock') {
      const now = Date.now();
      const history = recentHolds(this.controller.history(node.config.id).holdsOf(node.lock.key), now);
      item.tooltip = new vscode.MarkdownString(
        [presentLock(node.lock, now).tooltip, history].filter(Boolean).join('\n\n'),
      );
    }
    if (node.kind === 'connection') item.tooltip = await this.connectionTooltip(node.config);
    return item;
  }

  private connectionItem(node: ConnectionNode): vscode.TreeItem {
    const { config } = node;
    const state = this.ctx.connections.session(config.id)?.state;
    const item = new vscode.TreeItem(config.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `connection/${config.id}`;
    const insecure = verifiesNothing(config);
    const snapshot = this.controller.snapshot(config.id);
    const locks = snapshot?.locks.filter((lock) => lock.kind !== 'other').length ?? 0;
    const count = snapshot?.readAt ? `${locks}${snapshot.more ? '+' : ''} lock${locks === 1 ? '' : 's'}` : '';
    const live = snapshot?.live.kind === 'notifications' ? 'live' : '';
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
          snapshot?.live.kind === 'polling' && snapshot.live.enable
            ? 'connection.connected.notifiable'
            : 'connection.connected';
        break;
      case 'reconnecting':
        item.description = 'reconnecting…';
        item.iconPath = new vscode.ThemeIcon('sync~spin');
        item.contextValue = 'connection.reconnecting';
        break;
      case 'error':
        item.description = state.message;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
        item.contextValue = 'connection.error';
        break;
      default:
        item.description = 'connecting…';
        item.iconPath = new vscode.ThemeIcon('loading~spin');
        item.contextValue = 'connection.connecting';
    }
    // Built when hovered (resolveTreeItem), so "scanned N s ago" is the age at that moment.
    item.tooltip = undefined;
    return item;
  }

  /** The connection's URL and user, its state, how fresh the listing is, the commands locks run with, its replication, and a TLS warning. */
  async connectionTooltip(config: ConnectionConfig): Promise<string> {
    const session = this.ctx.connections.session(config.id);
    const state = session?.state;
    const lines = [`${config.url}${config.username ? ` as ${config.username}` : ''}`];
    if (state?.kind === 'reconnecting') lines.push(state.reason);
    if (state?.kind === 'error') lines.push(state.message);
    const snapshot = this.controller.snapshot(config.id);
    if (snapshot && state?.kind === 'connected') {
      lines.push(describeFreshness(snapshot, Date.now(), this.controller.isVisible, this.ctx.config.locks.intervalMs));
    }
    if (session && state?.kind === 'connected')
      lines.push(describePath(await this.ctx.connections.scripts(session).path()));
    if (snapshot && state?.kind === 'connected') lines.push(...describeReplication(snapshot.nodes, Date.now()));
    if (config.tls?.caFile) lines.push(`TLS verified with the CA in ${config.tls.caFile}.`);
    if (verifiesNothing(config)) lines.push('TLS certificate verification is OFF for this connection.');
    return lines.join('\n');
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

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
import { clockTime } from '../locks/historyModel';
import { describeFit, lockShaped } from '../locks/patternFit';
import { presentGroup, recentHolds, unobservedWithin } from '../locks/presentHistory';
import { HoverPause, rowIdentity } from './hoverPause';
import {
  connectionNode,
  type ConnectionNode,
  type GroupNode,
  type LocksNode,
  type LockNode,
  type MessageNode,
} from './nodes';

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
  /** What each lock row was last drawn with: only rows whose text changed are redrawn. */
  private readonly drawn = new WeakMap<LockNode, { description: string; identity: string }>();
  /** The line each connection without lock rows shows (undefined: it shows its locks). */
  private readonly messages = new Map<string, string | undefined>();
  /** Holds the redraws that would close the tooltip being read. */
  private readonly pause = new HoverPause<LocksNode | undefined>();
  /** The lock row whose tooltip was last asked for. */
  private hovered?: LockNode;
  private releaseTimer?: NodeJS.Timeout;
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
      if (id === undefined) return this.connectionsChanged();
      if (kind === 'values') return this.update(id);
      this.rebuild(id);
    });
  }

  /**
   * The saved connections changed (or were written again): the whole tree when connections came,
   * went or moved (held while a row of a connection still there is hovered), else only the rows
   * of connections whose settings changed.
   */
  private connectionsChanged(): void {
    const saved = this.ctx.connections.list();
    const ids = saved.map((config) => config.id).join('\n');
    if (ids === [...this.connectionNodes.keys()].join('\n')) {
      for (const config of saved) {
        const node = this.connectionNodes.get(config.id);
        if (!node || JSON.stringify(node.config) === JSON.stringify(config)) continue;
        node.config = config;
        this.rebuild(config.id);
      }
      return;
    }
    const hoveredStays = this.hovered && saved.some((config) => config.id === this.hovered!.config.id);
    if (hoveredStays && this.hold(undefined, Date.now())) return;
    this.redrawAll();
  }

  /** Every row read again, connections first. */
  private redrawAll(): void {
    const saved = new Set(this.ctx.connections.list().map((config) => config.id));
    for (const known of this.connectionNodes.keys()) if (!saved.has(known)) this.connectionNodes.delete(known);
    for (const known of this.messages.keys()) if (!saved.has(known)) this.messages.delete(known);
    this.rows.clear();
    this.changed.fire(undefined);
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
    const config = this.ctx.connections.get(id);
    // A connection that shows one line: redrawn only when the line changes.
    if (!rows && config && this.messages.get(id) !== undefined) {
      if (this.messageFor(config)?.text !== this.messages.get(id)) this.rebuild(id);
      return;
    }
    if (!rows || !snapshot || snapshot.error) return this.rebuild(id);
    const shown = this.shownLocks(snapshot);
    const same =
      rows.more === snapshot.more &&
      rows.nodes.length === shown.length &&
      rows.nodes.every((node, i) => node.lock.kind === shown[i].kind && node.lock.key.equals(shown[i].key));
    if (!same) return this.rebuild(id, this.hoveredRowChanged(id, shown));
    rows.nodes.forEach((node, i) => (node.lock = shown[i]));
    this.redrawChanged(rows.nodes);
  }

  /** The hovered row, under this connection, no longer says what its tooltip says (another holder, gone). */
  private hoveredRowChanged(id: string, shown: readonly LockEntry[]): boolean {
    const hovered = this.hovered;
    if (hovered?.config.id !== id) return false;
    const now = Date.now();
    const identity = rowIdentity(hovered.lock, now);
    return !shown.some((lock) => lock.key.equals(hovered.lock.key) && rowIdentity(lock, now) === identity);
  }

  private shownLocks(snapshot: MonitorSnapshot): LockEntry[] {
    return sortLocks(filterLocks(snapshot.locks, this.filterText), this.order, Date.now());
  }

  /**
   * Rows whose text changed; a hovered row only when what it says changed (another holder, a
   * waiter, the lease run out), not for its countdown: a redraw closes its tooltip.
   */
  private redrawChanged(nodes: readonly LockNode[]): void {
    const now = Date.now();
    for (const node of nodes) {
      const drawn = this.drawn.get(node);
      if (drawn?.description === presentLock(node.lock, now).description) continue;
      if (drawn?.identity !== rowIdentity(node.lock, now) || !this.hold(node, now)) this.changed.fire(node);
    }
  }

  /**
   * The countdown: only rows whose text changed, e.g. a TTL passing a displayed digit; group rows
   * after history changed; and what a hover held, once it is over.
   */
  private redrawAllChanged(): void {
    const now = Date.now();
    this.releaseHeld();
    for (const [id, { nodes, groups }] of this.rows) {
      this.redrawChanged(nodes);
      if (!groups || !this.historyChanged.has(id)) continue;
      for (const group of groups) if (!this.hold(group, now)) this.changed.fire(group);
    }
    this.historyChanged.clear();
  }

  /** Holds a redraw that would close the tooltip being read (true), and checks every second whether it may happen. */
  private hold(node: LocksNode | undefined, now: number): boolean {
    if (!this.pause.hold(node, now)) return false;
    this.releaseTimer ??= setInterval(() => {
      this.releaseHeld();
      if (this.pause.holding) return;
      clearInterval(this.releaseTimer);
      this.releaseTimer = undefined;
    }, 1_000);
    return true;
  }

  /** Draws what a hover held, once it may be: the hover moved on or is over. */
  private releaseHeld(): void {
    for (const node of this.pause.release(Date.now())) {
      if (node === undefined) this.redrawAll();
      else if (node.kind === 'connection') this.rebuild(node.config.id, true);
      else this.changed.fire(node);
    }
  }

  /** Rows read again from the controller; a connection whose row is hovered waits for the hover to end, unless `now`. */
  private rebuild(id?: string, now = false): void {
    const node = id === undefined ? undefined : this.connectionNodes.get(id);
    if (node && !now && this.hold(node, Date.now())) return;
    if (id) this.rows.delete(id);
    else this.rows.clear();
    // A connection the view does not list (gone, or not drawn yet) has no row to redraw.
    if (id === undefined || node) this.changed.fire(node);
  }

  getChildren(node?: LocksNode): LocksNode[] {
    if (!node) {
      // One node per connection for as long as it exists: events fire for the node the view knows.
      const nodes = this.ctx.connections.list().map((config) => {
        const node = this.connectionNodes.get(config.id) ?? connectionNode(config);
        node.config = config;
        return node;
      });
      this.connectionNodes.clear();
      for (const node of nodes) this.connectionNodes.set(node.config.id, node);
      return nodes;
    }
    if (node.kind === 'connection') return this.connectionChildren(node.config);
    if (node.kind === 'group') return node.locks;
    if (node.kind === 'lock' && isHeldByMany(node.lock)) {
      const lock = node.lock;
      return lock.holders.map((holder) => ({ kind: 'holder', config: node.config, lock, holder }));
    }
    return [];
  }

  /** The one line a connection shows instead of its locks (connecting, an error, none found), if any. */
  private messageFor(config: ConnectionConfig): MessageNode | undefined {
    const state = this.ctx.connections.session(config.id)?.state;
    const snapshot = this.controller.snapshot(config.id);
    const message = (text: string, icon: string, extra: Partial<MessageNode> = {}): MessageNode => ({
      kind: 'message',
      config,
      text,
      icon,
      ...extra,
    });
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
    return undefined;
  }

  private connectionChildren(config: ConnectionConfig): LocksNode[] {
    const shownMessage = this.messageFor(config);
    this.messages.set(config.id, shownMessage?.text);
    if (shownMessage) return [shownMessage];
    const snapshot = this.controller.snapshot(config.id)!;
    let rows = this.rows.get(config.id);
    if (!rows) {
      const nodes = this.shownLocks(snapshot).map((lock): LockNode => ({ kind: 'lock', config, lock }));
      rows = { nodes, more: snapshot.more, groups: nodes.length > GROUP_ABOVE ? this.group(config, nodes) : undefined };
      this.rows.set(config.id, rows);
    }
    if (!rows.nodes.length) {
      const text = `no locks match the filter '${this.filterText}'`;
      return [
        {
          kind: 'message',
          config,
          text,
          icon: 'filter',
          command: { command: 'locksmith.locks.clearFilter', title: 'Clear Filter' },
        },
      ];
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
        this.drawn.set(node, { description: view.description, identity: rowIdentity(node.lock, Date.now()) });
        const item = viewItem(view, collapsible);
        // Filled in by resolveTreeItem when hovered, so it shows the TTL at that moment.
        item.tooltip = undefined;
        item.id = `${node.config.id}/${node.lock.key.toString('base64')}`;
        return item;
      }
      case 'group': {
        const unobserved = unobservedWithin(
          this.controller.history(node.config.id).gaps(),
          Date.now(),
          STATS_WINDOW_MS,
        );
        const locks = node.locks.filter((each) => lockShaped(each.lock)).length;
        const count = { locks, other: node.locks.length - locks };
        const view = presentGroup(node.group, count, this.statsOf(node.config).get(node.group), unobserved);
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
        if (node.command) item.command = { ...node.command, arguments: [connectionNode(node.config)] };
        item.contextValue = 'message';
        return item;
      }
    }
  }

  /** Called when a row's tooltip is about to show: the pointer rests on it, so its redraws wait (hoverPause.ts). */
  resolveTreeItem(item: vscode.TreeItem, node: LocksNode): vscode.TreeItem {
    // The row, the rows above it, and the root: redrawing any of them redraws the row.
    const chain: Array<LocksNode | undefined> = [];
    for (let at: LocksNode | undefined = node; at; at = this.getParent(at)) chain.push(at);
    this.pause.hover([...chain, undefined], Date.now());
    this.hovered = chain.find((each): each is LockNode => each?.kind === 'lock');
    if (node.kind === 'lock') {
      const now = Date.now();
      const history = this.controller.history(node.config.id);
      const recent = recentHolds(history.holdsOf(node.lock.key), history.gaps(), now);
      item.tooltip = new vscode.MarkdownString(
        [presentLock(node.lock, now).tooltip, recent].filter(Boolean).join('\n\n'),
      );
    }
    if (node.kind === 'connection') item.tooltip = this.connectionTooltip(node.config);
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
    // Live only while notifications actually arrive: not while a subscriber is away.
    const live = this.controller.history(config.id).observation().kind === 'events' ? 'live' : '';
    switch (state?.kind) {
      case 'connected':
        // The count first: it is what a narrow side bar still shows.
        item.description = [
          count,
          live,
          this.fromWorkspace() && 'workspace patterns',
          `Redis ${state.version}`,
          state.role,
        ]
          .filter(Boolean)
          .join(' · ');
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

  /** The connection's URL and user, its state, how fresh the listing is, the commands locks run with, and a TLS warning. */
  connectionTooltip(config: ConnectionConfig): string {
    const state = this.ctx.connections.session(config.id)?.state;
    const lines = [`${config.url}${config.username ? ` as ${config.username}` : ''}`];
    if (state?.kind === 'reconnecting') lines.push(state.reason);
    if (state?.kind === 'error') lines.push(state.message);
    const snapshot = this.controller.snapshot(config.id);
    if (snapshot && state?.kind === 'connected') {
      lines.push(describeFreshness(snapshot, Date.now(), this.controller.isVisible, this.ctx.config.locks.intervalMs));
    }
    const observation = this.controller.history(config.id).observation();
    if (observation.kind === 'none' && observation.since) {
      lines.push(
        `Not observed since ${clockTime(observation.since)} (${observation.reason}): the lock history has a gap from then on.`,
      );
    }
    const path = state?.kind === 'connected' ? this.controller.nativePath(config.id) : undefined;
    if (path) lines.push(describePath(path));
    lines.push(...this.patternLines(config));
    if (config.tls?.caFile) lines.push(`TLS verified with the CA in ${config.tls.caFile}.`);
    if (verifiesNothing(config)) lines.push('TLS certificate verification is OFF for this connection.');
    return lines.join('\n');
  }

  /** A trusted workspace set the lock patterns (they apply to the user's own connections). */
  private fromWorkspace(): boolean {
    const { from } = this.ctx.config.lockPatternsOrigin;
    return from === 'workspace' || from === 'workspace folder';
  }

  /** Where the patterns come from when a workspace set them, and whether they fit the keys. */
  private patternLines(config: ConnectionConfig): string[] {
    const origin = this.ctx.config.lockPatternsOrigin;
    if (origin.from !== 'workspace' && origin.from !== 'workspace folder') return [];
    const snapshot = this.controller.snapshot(config.id);
    const patterns = (snapshot?.patterns.length ? snapshot.patterns : this.ctx.config.locks.patterns).join(', ');
    const lines = [
      `Lock patterns from this ${origin.from}'s settings${origin.file ? ` (${origin.file})` : ''}: ${patterns}. A trusted workspace may set them for your connections; remove them there to use your own.`,
    ];
    const fit = this.controller.patternFit(config.id);
    if (fit?.mostlyNotLocks) lines.push(`⚠ ${describeFit(fit, snapshot!.patterns, config.name)}`);
    return lines;
  }

  dispose(): void {
    clearInterval(this.releaseTimer);
    this.subscription.dispose();
    this.changed.dispose();
  }
}

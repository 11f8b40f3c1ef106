// The locks of one connection as the Locks view shows them, kept current: full re-reads (at
// most one in flight, cancellable), Load more, and, where the server publishes keyspace
// notifications, live updates that re-read only the keys that changed. No `vscode`.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { LockEntry } from './classify';
import { discoverOnNodes, readLocks, type NodesCursor } from './discovery';

/** What the monitor needs from a connection (a Session): its data nodes and their names. */
export interface MonitorSource {
  readonly db: number;
  masters(): Redis[];
  nodeName(node: Redis): string;
  /** Runs `action` on every node, replicas included: where notify-keyspace-events is set. */
  onEveryNode<T>(action: (node: Redis) => Promise<T>): Promise<T[]>;
}

export interface MonitorSettings {
  patterns: string[];
  /** Locks per page: the first read and each Load more. */
  limit: number;
}

/** How the listing stays current: pushed by the server, or re-read on the view's timer. */
export type LiveMode =
  | { kind: 'notifications' }
  /** `enable`: the flags to CONFIG SET, when CONFIG GET worked and only the flags are missing. */
  | { kind: 'polling'; reason: string; enable?: string };

// The event classes the view needs: K keyspace channels, g generic (del, expire, rename),
// $ string (set), x expired. `h` (hash) is added when enabling, for Redisson's hash locks.
const NEEDED = ['K', 'g', '$', 'x'];
const ENABLE = [...NEEDED, 'h'];
// Events after which the key no longer holds what the view shows.
const GONE = new Set(['del', 'expired', 'evicted', 'rename_from', 'unlink']);
// Changes arriving within this window are read back in one pipeline per node.
const BATCH_MS = 20;

/** The flags the view needs that `flags` (the value of notify-keyspace-events) lacks. */
export function missingLockEvents(flags: string): string[] {
  const expanded = flags.replace('A', 'g$lshzxetd');
  return NEEDED.filter((flag) => !expanded.includes(flag));
}

/** `flags` with what the view needs added; nothing the user set is removed. */
export function withLockEvents(flags: string): string {
  const expanded = flags.replace('A', 'g$lshzxetd');
  return flags + ENABLE.filter((flag) => !expanded.includes(flag)).join('');
}

export type ChangeKind = 'rows' | 'values';

export class LockMonitor {
  locks: LockEntry[] = [];
  /** Where Load more continues; undefined when every node was scanned through. */
  cursor?: NodesCursor;
  /** Locks the user asked to see (grows with Load more; a refresh re-reads that many). */
  wanted = 0;
  patterns: string[] = [];
  error?: string;
  /** When the last full read landed; 0 before the first. */
  readAt = 0;
  live: LiveMode = { kind: 'polling', reason: 'not started' };
  private inFlight?: AbortController;
  private readonly events = new EventEmitter();
  private subscribers: Redis[] = [];
  private readonly pending = new Map<string, { key: Buffer; node: Redis; gone: boolean }>();
  private flushTimer?: NodeJS.Timeout;
  /** Bumped by every start and stop of the live updates: an older start that finishes late backs off. */
  private generation = 0;
  private disposed = false;

  constructor(
    readonly source: MonitorSource,
    private readonly settings: () => MonitorSettings,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** A read is running (the first one, a refresh or Load more). */
  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  /** `rows`: keys came or went (the rows must be rebuilt); `values`: the same keys with new values. */
  onDidChange(listener: (kind: ChangeKind) => void): { dispose(): void } {
    this.events.on('change', listener);
    return { dispose: () => this.events.off('change', listener) };
  }

  /**
   * Re-reads the listing. At most one read is in flight: without `cancel` a call while one runs
   * returns at once; with it, the running read is aborted and a new one starts.
   */
  async refresh(cancel = false): Promise<void> {
    if (this.inFlight) {
      if (!cancel) return;
      this.inFlight.abort();
    }
    await this.read(false);
  }

  /** Continues the scan where the last page stopped. */
  async loadMore(): Promise<void> {
    if (!this.cursor || this.inFlight) return;
    await this.read(true);
  }

  private async read(more: boolean): Promise<void> {
    const { patterns, limit } = this.settings();
    const wanted = more ? this.wanted + limit : Math.max(limit, this.wanted);
    const controller = new AbortController();
    this.inFlight = controller;
    const nodes = new Map(this.source.masters().map((node) => [this.source.nodeName(node), node]));
    try {
      const page = await discoverOnNodes(nodes, {
        patterns,
        limit: more ? limit : wanted,
        after: more ? this.cursor : undefined,
        signal: controller.signal,
      });
      if (controller.signal.aborted || this.disposed) return;
      this.log(
        `SCAN MATCH ${patterns.join(' | ')} on ${nodes.size} node${nodes.size === 1 ? '' : 's'}: ${page.entries.length} keys${page.next ? ', more to load' : ''}`,
      );
      this.locks = more ? [...this.locks, ...page.entries] : page.entries;
      this.cursor = page.next;
      this.wanted = wanted;
      this.patterns = patterns;
      this.error = undefined;
      this.readAt = Date.now();
    } catch (error) {
      if (controller.signal.aborted || this.disposed) return;
      this.error = (error as Error).message;
      this.log(`reading locks failed: ${this.error}`);
    } finally {
      if (this.inFlight === controller) this.inFlight = undefined;
    }
    this.events.emit('change', 'rows');
    // Changes notified while the read ran may be older or newer than what it saw: read them again.
    if (this.pending.size) this.scheduleFlush();
  }

  /**
   * Subscribes to keyspace notifications for the lock patterns on every data node, when each
   * publishes them; otherwise stays on polling and says why. Call again after a reconnect or a
   * failover: the new nodes are checked and subscribed, the old subscriptions dropped.
   */
  async startLive(): Promise<LiveMode> {
    this.stopLive();
    const generation = ++this.generation;
    const nodes = this.source.masters();
    let mode: LiveMode = { kind: 'notifications' };
    try {
      for (const node of nodes) {
        const [, flags = ''] = (await node.config('GET', 'notify-keyspace-events')) as string[];
        const missing = missingLockEvents(flags);
        if (missing.length) {
          const reason = `${this.source.nodeName(node)} has notify-keyspace-events '${flags}', without ${missing.join('')}`;
          mode = { kind: 'polling', reason, enable: withLockEvents(flags) };
          break;
        }
      }
      if (mode.kind === 'notifications') await Promise.all(nodes.map((node) => this.subscribe(node)));
    } catch (error) {
      // A browse-only ACL user, or a managed service that hides CONFIG: polling is all there is.
      mode = { kind: 'polling', reason: `cannot use keyspace notifications (${(error as Error).message})` };
    }
    // A later call (a reconnect while this one ran) or dispose() owns the subscriptions now.
    if (generation !== this.generation) return this.live;
    if (mode.kind === 'polling') this.stopLive();
    this.live = mode;
    this.log(mode.kind === 'notifications' ? 'live: keyspace notifications' : `live: polling, ${mode.reason}`);
    return mode;
  }

  private async subscribe(node: Redis): Promise<void> {
    const subscriber = node.duplicate({ connectionName: 'redis-locksmith-events', lazyConnect: true });
    this.subscribers.push(subscriber);
    subscriber.on('error', () => {}); // the data connection reports the same outage
    const prefix = Buffer.from(`__keyspace@${this.source.db}__:`);
    subscriber.on('pmessageBuffer', (_pattern: Buffer, channel: Buffer, event: Buffer) => {
      this.noteChange(channel.subarray(prefix.length), node, event.toString());
    });
    let ready = false;
    // Events published while the subscriber was away are lost: a full re-read makes up for them.
    subscriber.on('ready', () => {
      if (ready) void this.refresh(true);
      ready = true;
    });
    await subscriber.connect();
    await subscriber.psubscribe(...this.settings().patterns.map((pattern) => `${prefix.toString()}${pattern}`));
  }

  stopLive(): void {
    this.generation++;
    for (const subscriber of this.subscribers) subscriber.disconnect();
    this.subscribers = [];
    this.live = { kind: 'polling', reason: 'stopped' };
  }

  /**
   * Sets notify-keyspace-events to each node's current flags plus the ones the view needs, on
   * every node (a Cluster's replicas too, so a promoted replica keeps publishing), then
   * subscribes. Only on the user's explicit confirmation: it changes the server's config.
   */
  async enableNotifications(): Promise<LiveMode> {
    await this.source.onEveryNode(async (node) => {
      const [, flags = ''] = (await node.config('GET', 'notify-keyspace-events')) as string[];
      if (missingLockEvents(flags).length) await node.config('SET', 'notify-keyspace-events', withLockEvents(flags));
    });
    const mode = await this.startLive();
    if (mode.kind === 'notifications') await this.refresh(true);
    return mode;
  }

  private noteChange(key: Buffer, node: Redis, event: string): void {
    const id = key.toString('latin1');
    const gone = GONE.has(event);
    this.pending.set(id, { key, node, gone });
    if (!this.inFlight) this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, BATCH_MS);
  }

  /** Applies the changes noted since the last flush: drops gone keys, re-reads the others per node. */
  private async flush(): Promise<void> {
    if (this.inFlight || this.disposed) return;
    const changes = [...this.pending.values()];
    this.pending.clear();
    const byNode = new Map<Redis, Buffer[]>();
    for (const { key, node, gone } of changes) if (!gone) byNode.set(node, [...(byNode.get(node) ?? []), key]);
    let fresh: LockEntry[];
    try {
      fresh = (await Promise.all([...byNode].map(([node, keys]) => readLocks(node, keys)))).flat();
    } catch (error) {
      // The connection is down: the re-read after it is back covers these keys.
      this.log(`reading changed keys failed: ${(error as Error).message}`);
      return;
    }
    if (this.disposed) return;
    const changed = new Set(changes.map(({ key }) => key.toString('latin1')));
    const byId = new Map(fresh.map((entry) => [entry.key.toString('latin1'), entry]));
    const before = this.locks.length;
    let rows = false;
    const next: LockEntry[] = [];
    for (const lock of this.locks) {
      const id = lock.key.toString('latin1');
      if (!changed.has(id)) next.push(lock);
      else if (byId.has(id)) {
        const entry = byId.get(id)!;
        rows ||= entry.kind !== lock.kind;
        next.push(entry);
        byId.delete(id);
      }
    }
    // A key not listed yet is added only to a complete listing: a partial one shows the first
    // pages of the scan, and Load more would list the key again.
    if (!this.cursor) next.push(...byId.values());
    rows ||= next.length !== before;
    this.locks = next;
    this.events.emit('change', rows ? 'rows' : 'values');
  }

  dispose(): void {
    this.disposed = true;
    this.inFlight?.abort();
    this.inFlight = undefined;
    clearTimeout(this.flushTimer);
    this.stopLive();
    this.events.removeAllListeners();
  }
}

// The locks of one connection as the Locks view shows them, kept current at a cost of O(locks),
// not O(keyspace): the listed locks are re-read on every tick (pipelined), while full scans for
// new lock keys run per node on a schedule that keeps them under 2 % of the server's time (see
// schedule.ts). Where the server publishes keyspace notifications, changed keys are re-read as
// they change and nothing runs on a timer. At most one read in flight; an explicit refresh
// cancels it and scans at once. No `vscode`.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { LockEntry } from './classify';
import { discoverLocks, readLocks } from './discovery';
import type { Observation, ObservedEvent } from './history';
import { KeyspaceEvents, type KeyEvent, type LiveMode, type MonitorSource } from './keyspaceEvents';
import { ScanPacer, ScanSchedule } from './schedule';

export type { LiveMode, MonitorSource } from './keyspaceEvents';

export interface MonitorSettings {
  patterns: readonly string[];
  /** Locks per page: the first read and each Load more. */
  limit: number;
  /** The view's refresh interval: listed locks are re-read this often, and no scan runs more often. */
  intervalMs: number;
}

/** What the view shows of a connection, as of the last read. */
export interface MonitorSnapshot {
  readonly locks: readonly LockEntry[];
  /** More keys match than are listed: Load more continues. */
  readonly more: boolean;
  /** Why the last read failed; the listing before it stays. */
  readonly error?: string;
  /** When the listing was last read, in any way; 0 before the first read. */
  readonly readAt: number;
  /** When the key list was last complete: the oldest of the nodes' last full scans; 0 before. */
  readonly scannedAt: number;
  /** When the next scheduled full scan is due (polling only). */
  readonly nextScanAt?: number;
  /** Each data node's own schedule: when it was last scanned and when it is next due. */
  readonly nodes: readonly { name: string; scannedAt?: number; nextScanAt?: number }[];
  readonly live: LiveMode;
  readonly patterns: readonly string[];
  /** A read is running. */
  readonly busy: boolean;
}

export type ChangeKind = 'rows' | 'values';

/** Who learns what each read and each notification showed (the lock history). */
export interface MonitorObserver {
  /** How the server is observed from `at` on: notifications, reads on the view's timer, or not at all (and why). */
  observing(how: Observation, at: number): void;
  /** Keyspace notifications in arrival order, and what each changed key held when read after them (absent: gone). */
  events(events: readonly ObservedEvent[], read: ReadonlyMap<string, LockEntry>): void;
  /** A read: the locks it saw at `at`, and listed keys it found deleted. */
  reads(locks: readonly LockEntry[], gone: readonly Buffer[], at: number): void;
}

// Events after which the key no longer holds what the view shows.
const GONE = new Set(['del', 'expired', 'evicted', 'rename_from', 'unlink']);
// Changes arriving within this window are read back in one pipeline per node.
const BATCH_MS = 20;

/** One data node's part of the listing and its own scan schedule. */
interface NodeListing {
  readonly node: Redis;
  locks: LockEntry[];
  /** The last scan stopped at the page size with keys left. */
  more: boolean;
  readonly schedule: ScanSchedule;
  readonly pacer: ScanPacer;
}

export class LockMonitor {
  private readonly nodes = new Map<string, NodeListing>();
  /** Locks the user asked to see (grows with Load more). */
  private wanted = 0;
  private patterns: readonly string[] = [];
  private error?: string;
  private readAt = 0;
  private inFlight?: AbortController;
  private readonly events = new EventEmitter();
  private readonly keyspace: KeyspaceEvents;
  private readonly pending = new Map<string, KeyEvent>();
  /** Every notification since the last flush, in order (pending keeps the last per key). */
  private arrived: ObservedEvent[] = [];
  private flushTimer?: NodeJS.Timeout;
  private disposed = false;
  /** Why observing stopped (stopLive), until it starts again. */
  private stopped?: string = 'not started';

  constructor(
    readonly source: MonitorSource,
    private readonly settings: () => MonitorSettings,
    private readonly log: (line: string) => void = () => {},
    private readonly observer?: MonitorObserver,
  ) {
    this.keyspace = new KeyspaceEvents(
      source,
      () => this.settings().patterns,
      {
        change: (event) => this.noteChange(event),
        lost: () =>
          this.observer?.observing({ kind: 'none', reason: 'keyspace notifications were interrupted' }, Date.now()),
        // Events published while a subscriber was away are lost: a full read makes up for them.
        resubscribed: () => {
          this.announce();
          void this.refresh(true);
        },
      },
      log,
    );
  }

  snapshot(): MonitorSnapshot {
    const listings = [...this.nodes.values()];
    const scans = listings.map((listing) => listing.schedule);
    const scannedAt =
      scans.length && scans.every((scan) => scan.scannedAt) ? Math.min(...scans.map((s) => s.scannedAt!)) : 0;
    const nextScans = scans.map((scan) => scan.nextAt).filter((at): at is number => at !== undefined);
    const { locks, more } = mergeListings(listings, this.wanted);
    return {
      locks,
      more,
      error: this.error,
      readAt: this.readAt,
      scannedAt,
      nextScanAt: this.keyspace.live.kind === 'polling' && nextScans.length ? Math.min(...nextScans) : undefined,
      live: this.keyspace.live,
      patterns: this.patterns,
      busy: this.inFlight !== undefined,
      nodes: [...this.nodes].map(([name, { schedule }]) => ({
        name,
        scannedAt: schedule.scannedAt,
        nextScanAt: schedule.nextAt,
      })),
    };
  }

  /** `rows`: keys came or went (the rows must be rebuilt); `values`: the same keys with new values. */
  onDidChange(listener: (kind: ChangeKind) => void): { dispose(): void } {
    this.events.on('change', listener);
    return { dispose: () => this.events.off('change', listener) };
  }

  /**
   * A full read now: every node is scanned for lock keys. At most one read is in flight: without
   * `cancel` a call while one runs returns at once; with it (an explicit Refresh), the running
   * read is aborted and this one starts.
   */
  async refresh(cancel = false): Promise<void> {
    if (!this.claim(cancel)) return;
    const { limit } = this.settings();
    this.wanted = Math.max(limit, this.wanted);
    await this.read('scan-all');
  }

  /**
   * The view's timer, while polling: re-reads the listed locks (owners and TTLs stay current),
   * and scans the nodes whose schedule is due for new lock keys. Does nothing while a read runs
   * or while keyspace notifications keep the listing current.
   */
  async tick(): Promise<void> {
    if (this.keyspace.live.kind === 'notifications' || this.readAt === 0) return;
    // The interval may have changed: reads are as far apart as it says.
    this.announce();
    if (!this.claim(false)) return;
    await this.read('tick');
  }

  /** Lists `limit` more locks: every node is scanned again for the larger page. */
  async loadMore(): Promise<void> {
    if (!this.snapshot().more || !this.claim(false)) return;
    this.wanted += this.settings().limit;
    await this.read('scan-all');
  }

  /** Takes the one read slot; with `cancel`, from a read that holds it. */
  private claim(cancel: boolean): boolean {
    if (this.inFlight) {
      if (!cancel) return false;
      this.inFlight.abort();
    }
    this.inFlight = new AbortController();
    return true;
  }

  private async read(kind: 'scan-all' | 'tick'): Promise<void> {
    const controller = this.inFlight!;
    const { signal } = controller;
    const settings = this.settings();
    const patternsChanged = settings.patterns.join('\n') !== this.patterns.join('\n');
    const listings = this.currentNodes();
    let rows = kind === 'scan-all';
    try {
      const work = [...listings].map(async ([name, listing]) => {
        if (kind === 'scan-all' || patternsChanged || listing.schedule.due(Date.now())) {
          const before = listing.locks.length;
          await this.scan(name, listing, settings, signal);
          rows ||= listing.locks.length !== before;
        } else {
          rows = (await this.reread(listing, signal)) || rows;
        }
      });
      await Promise.all(work);
      if (signal.aborted || this.disposed) return;
      this.patterns = settings.patterns;
      this.error = undefined;
      this.readAt = Date.now();
    } catch (error) {
      if (signal.aborted || this.disposed) return;
      this.error = (error as Error).message;
      this.log(`reading locks failed: ${this.error}`);
      rows = true;
    } finally {
      if (this.inFlight === controller) this.inFlight = undefined;
    }
    this.events.emit('change', rows ? 'rows' : 'values');
    // Changes notified while the read ran may be older or newer than what it saw: read them again.
    if (this.pending.size) this.scheduleFlush();
  }

  /** The data nodes now, by name: listings of nodes that are gone (a failover) are dropped. */
  private currentNodes(): Map<string, NodeListing> {
    const current = new Map(this.source.masters().map((node) => [this.source.nodeName(node), node]));
    for (const [name, listing] of this.nodes) {
      if (current.get(name) !== listing.node) this.nodes.delete(name);
    }
    for (const [name, node] of current) {
      if (!this.nodes.has(name)) {
        this.nodes.set(name, { node, locks: [], more: false, schedule: new ScanSchedule(), pacer: new ScanPacer() });
      }
    }
    return this.nodes;
  }

  /** A full scan of one node for lock keys, timed for its schedule. */
  private async scan(name: string, listing: NodeListing, settings: MonitorSettings, signal: AbortSignal) {
    const pinged = performance.now();
    await abortable(listing.node.ping(), signal);
    listing.pacer.recordRoundTrip(performance.now() - pinged);
    const started = performance.now();
    const page = await discoverLocks(listing.node, {
      patterns: settings.patterns,
      limit: this.wanted,
      signal,
      pacer: listing.pacer,
    });
    const took = performance.now() - started;
    if (signal.aborted) return;
    // Listed keys the scan did not find again are gone, unless the page was cut short.
    const found = new Set(page.entries.map((entry) => entry.key.toString('latin1')));
    const gone = page.next ? [] : listing.locks.filter((lock) => !found.has(lock.key.toString('latin1')));
    this.observer?.reads(
      page.entries,
      gone.map((lock) => lock.key),
      Date.now(),
    );
    listing.locks = page.entries;
    listing.more = page.next !== undefined;
    listing.schedule.record(took, Date.now(), settings.intervalMs);
    const next = Math.round((listing.schedule.nextAt! - Date.now()) / 1000);
    this.log(
      `${name}: SCAN MATCH ${settings.patterns.join(' | ')}: ${page.entries.length} keys${page.next ? ', more to load' : ''} in ${Math.round(took)} ms; next scan in ${next} s`,
    );
  }

  /** Re-reads the keys listed for one node; keys that are gone drop out. True when rows changed. */
  private async reread(listing: NodeListing, signal: AbortSignal): Promise<boolean> {
    if (!listing.locks.length) return false;
    const fresh = await readLocks(
      listing.node,
      listing.locks.map((lock) => lock.key),
      signal,
    );
    if (signal.aborted) return false;
    const before = listing.locks;
    const found = new Set(fresh.map((entry) => entry.key.toString('latin1')));
    const gone = before.filter((lock) => !found.has(lock.key.toString('latin1'))).map((lock) => lock.key);
    this.observer?.reads(fresh, gone, Date.now());
    listing.locks = fresh;
    return fresh.length !== before.length || fresh.some((lock, i) => lock.kind !== before[i].kind);
  }

  /**
   * Subscribes to keyspace notifications where the server publishes them; otherwise the view's
   * timer reads (tick). Either way the server is observed from now on, until stopLive.
   */
  async startLive(): Promise<LiveMode> {
    const mode = await this.keyspace.start();
    if (!this.disposed) this.announce();
    return mode;
  }

  /** Stops observing: no subscription, and the reads stop too (the caller stops its timer); `reason` says why. */
  stopLive(reason = 'observation stopped'): void {
    this.keyspace.stop();
    this.stopped = reason;
    this.observer?.observing({ kind: 'none', reason }, Date.now());
  }

  /** Tells the observer how the server is observed now (after a start, or with a new interval). */
  private announce(): void {
    this.stopped = undefined;
    const how: Observation =
      this.keyspace.live.kind === 'notifications'
        ? { kind: 'events' }
        : { kind: 'reads', everyMs: this.settings().intervalMs };
    this.observer?.observing(how, Date.now());
  }

  /**
   * Turns keyspace notifications on (every node, replicas included) and subscribes, then reads
   * the listing again. Only on the user's explicit confirmation: it changes the server's config.
   */
  async enableNotifications(): Promise<LiveMode> {
    const mode = await this.keyspace.enable();
    if (this.stopped === undefined) this.announce();
    if (mode.kind === 'notifications') await this.refresh(true);
    return mode;
  }

  private noteChange(event: KeyEvent): void {
    this.pending.set(event.key.toString('latin1'), event);
    if (this.observer) this.arrived.push({ key: event.key, event: event.event, at: Date.now() });
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
    const arrived = this.arrived;
    this.arrived = [];
    const byNode = new Map<Redis, Buffer[]>();
    for (const { key, node, event } of changes) {
      if (!GONE.has(event)) byNode.set(node, [...(byNode.get(node) ?? []), key]);
    }
    let fresh: LockEntry[];
    try {
      fresh = (await Promise.all([...byNode].map(([node, keys]) => readLocks(node, keys)))).flat();
    } catch (error) {
      // The connection is down: the read after it is back covers these keys.
      this.log(`reading changed keys failed: ${(error as Error).message}`);
      return;
    }
    if (this.disposed) return;
    const changed = new Set(changes.map(({ key }) => key.toString('latin1')));
    const byId = new Map(fresh.map((entry) => [entry.key.toString('latin1'), entry]));
    this.observer?.events(arrived, new Map(byId));
    let rows = false;
    for (const listing of this.nodes.values()) {
      const next: LockEntry[] = [];
      for (const lock of listing.locks) {
        const id = lock.key.toString('latin1');
        const entry = byId.get(id);
        if (!changed.has(id)) next.push(lock);
        else if (entry) {
          rows ||= entry.kind !== lock.kind;
          next.push(entry);
          byId.delete(id);
        }
      }
      rows ||= next.length !== listing.locks.length;
      listing.locks = next;
    }
    // A key not listed yet is added to its node's listing when that listing is complete: a partial
    // one shows the first keys of the scan, and the next scan decides.
    for (const { key, node } of changes) {
      const entry = byId.get(key.toString('latin1'));
      const listing = [...this.nodes.values()].find((each) => each.node === node);
      if (entry && listing && !listing.more) {
        listing.locks.push(entry);
        byId.delete(key.toString('latin1'));
        rows = true;
      }
    }
    this.events.emit('change', rows ? 'rows' : 'values');
  }

  /** Stops for good; `reason` is why the server is no longer observed (a new session takes over, the connection went). */
  dispose(reason = 'the connection was lost'): void {
    if (!this.disposed && this.stopped === undefined) this.observer?.observing({ kind: 'none', reason }, Date.now());
    this.disposed = true;
    this.inFlight?.abort();
    this.inFlight = undefined;
    clearTimeout(this.flushTimer);
    this.keyspace.stop();
    this.events.removeAllListeners();
  }
}

/**
 * The listing across nodes: at most `wanted` locks, taken from the nodes in turn so that every
 * node is represented; `more` when a node has keys left or some were cut.
 */
export function mergeListings(
  listings: readonly { locks: readonly LockEntry[]; more: boolean }[],
  wanted: number,
): { locks: LockEntry[]; more: boolean } {
  if (listings.length === 1) {
    const [only] = listings;
    return { locks: only.locks.slice(0, wanted), more: only.more || only.locks.length > wanted };
  }
  const locks: LockEntry[] = [];
  const total = listings.reduce((sum, listing) => sum + listing.locks.length, 0);
  for (let round = 0; locks.length < Math.min(wanted, total); round++) {
    for (const listing of listings) {
      if (locks.length < wanted && round < listing.locks.length) locks.push(listing.locks[round]);
    }
  }
  return { locks, more: listings.some((listing) => listing.more) || total > wanted };
}

/** `work`, or a rejection with the abort reason as soon as `signal` aborts (the reply is left unread). */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

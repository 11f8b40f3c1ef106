// What happened to each lock of one connection: the sequence of holders, when each took the
// lock, its extensions, and how each hold ended (released, expired: the lease ran out while the
// holder may still have worked, forced from the view, overwritten by someone else's SET,
// evicted). Built from keyspace notifications with the value read after them, or, without
// notifications, from successive reads (then marked approximate). Only while someone observes:
// a stretch nobody observed is kept as a gap, and a hold is never ended by a guess across one.
// Kept in memory only, bounded, nothing written to Redis. Pure: the caller passes times. No `vscode`.
import { escapeBytes, waitingCount, type LockEntry } from './classify';
import type { HoldEnd, Observation, ObservationGap, ObservationState, UnseenStart } from './historyModel';

export type { HoldEnd, Observation, ObservationGap, ObservationState, UnseenStart } from './historyModel';

export interface Hold {
  /** Unique within the history, in order of acquisition. */
  readonly id: number;
  /** The key's bytes as one char per byte (latin1): a map key. */
  readonly keyId: string;
  /** The key escaped for display, as the tree shows it. */
  readonly key: string;
  readonly owner: string;
  readonly token: string;
  /** When it began; with `startUnseen`, when it was first seen held. */
  from: number;
  to?: number;
  end?: HoldEnd;
  readonly extensions: number[];
  /** The lease (PTTL) when last read, and when that was: the hold should end by readAt + leaseMs. */
  leaseMs?: number;
  readAt?: number;
  /** Derived from reads every few seconds, not from notifications: times are within one interval. */
  approximate: boolean;
  /** Already held when first seen (observation began or resumed then): its start was not seen. */
  startUnseen?: UnseenStart;
}

/** What one observation changed: holds that began, were extended or ended, holds dropped under the bound, new waiter counts, gaps that began or closed, and a new observation. */
export interface HistoryChange {
  holds: readonly Hold[];
  removed: readonly number[];
  waiters: readonly WaiterSamples[];
  gaps: readonly ObservationGap[];
  observation?: ObservationState;
}

/** How many waited for a key over time, where that could be counted: [epoch ms, count], oldest first. */
export interface WaiterSamples {
  key: string;
  samples: Array<[at: number, count: number]>;
}

/** Waiter counts kept per key: the newest. */
const WAITER_SAMPLES_PER_KEY = 1_000;
/** Gaps kept: the newest (they come with a hidden view or a lost connection, rarely). */
const GAPS_KEPT = 1_000;

/** A keyspace notification about a key, when it arrived. */
export interface ObservedEvent {
  key: Buffer;
  /** Redis's event name: set, expire, del, expired, evicted, hset, hincrby, hdel, zadd, zrem, ... */
  event: string;
  at: number;
}

/** How long after the view's own Release a `del` counts as that release (forced). */
const FORCED_WINDOW_MS = 5_000;
/** A lease that should have run out this long before a key was seen gone counts as expired. */
const EXPIRY_SLACK_MS = 250;
const ENDING: Record<string, HoldEnd> = {
  del: 'released',
  unlink: 'released',
  expired: 'expired',
  evicted: 'evicted',
  rename_from: 'released',
};
const EXTENDING = new Set(['expire', 'pexpire', 'persist']);

/** Reads further apart than this leave the time between them unobserved: what changed then is not known. */
export function readGapMs(everyMs: number): number {
  return Math.max(3 * everyMs, everyMs + 5_000);
}

/** 42 s, 3 min: how long reads stopped. */
const roughly = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/** The holder a lock entry shows, when it is a lock with one: owner and token. */
function holderOf(entry: LockEntry | undefined): { owner: string; token: string } | undefined {
  if (!entry) return undefined;
  if (entry.kind === 'token' || entry.kind === 'timestamp') {
    return { owner: entry.kind === 'token' ? entry.owner : 'timestamp', token: escapeBytes(entry.token) };
  }
  if (entry.kind === 'reentrant' && entry.holders.length) {
    const [first] = entry.holders;
    return { owner: first.owner, token: escapeBytes(first.field) };
  }
  return undefined;
}

export class LockHistory {
  private readonly all: Hold[] = [];
  private readonly open = new Map<string, Hold>();
  private readonly forced = new Map<string, { token: string; at: number }>();
  private nextId = 1;
  private events = 0;
  private listeners: Array<(change: HistoryChange) => void> = [];
  /** Ids of holds dropped under the bound since the last change was told. */
  private removed: number[] = [];
  private readonly waiting = new Map<string, WaiterSamples>();
  /** Waiter samples taken since the last change was told. */
  private sampled: WaiterSamples[] = [];
  private state: ObservationState = { kind: 'none', reason: 'not observed yet', since: 0 };
  private readonly gapList: ObservationGap[] = [];
  /** Gaps that began or closed since the last change was told. */
  private gapsChanged: ObservationGap[] = [];
  private stateChanged = false;
  /** Holds first seen from now on were already held: observation began or resumed, and no read has come since. */
  private unseenStart?: UnseenStart;
  /** The last read while observing by reads: reads further apart than readGapMs leave a gap. */
  private lastReadAt?: number;

  constructor(private readonly maxEvents: number) {}

  /** Every hold kept, oldest first. */
  holds(): readonly Hold[] {
    return this.all;
  }

  /** The stretches nobody observed, oldest first; the last one open while it lasts. */
  gaps(): readonly ObservationGap[] {
    return this.gapList;
  }

  /** How the history sees the server now, and since when. */
  observation(): ObservationState {
    return { ...this.state };
  }

  /** Waiter counts per key, where they could be counted. */
  waiterSamples(): WaiterSamples[] {
    return [...this.waiting.values()].map(({ key, samples }) => ({ key, samples: [...samples] }));
  }

  /** The holds of one key, oldest first. */
  holdsOf(key: Buffer): Hold[] {
    const id = key.toString('latin1');
    return this.all.filter((hold) => hold.keyId === id);
  }

  /** Called with the holds that began, changed or ended in one observation, and those dropped. */
  onDidChange(listener: (change: HistoryChange) => void): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((each) => each !== listener)) };
  }

  /** The view is about to release `key` held by `token`: the `del` that follows is a forced end. */
  markForced(key: Buffer, token: Buffer, at: number): void {
    this.forced.set(key.toString('latin1'), { token: escapeBytes(token), at });
  }

  /**
   * How the server is observed from `at` on. Stopping cuts the open holds there (how they end is
   * not known) and opens a gap; resuming closes it, and the holders the next read finds were
   * already held: their start was not seen.
   */
  observe(how: Observation, at: number): void {
    const changed = new Set<Hold>();
    const was = this.state;
    if (how.kind === was.kind && (how.kind !== 'reads' || was.kind !== 'reads' || how.everyMs === was.everyMs)) return;
    if (how.kind === 'none') {
      this.stop(at, how.reason, changed);
    } else if (was.kind === 'none') {
      const gap = this.gapList[this.gapList.length - 1];
      if (gap && gap.to === undefined) {
        gap.to = at;
        this.gapsChanged.push(gap);
      }
      this.unseenStart = { gapFrom: gap?.from };
    }
    this.lastReadAt = undefined;
    this.state = { ...how, since: at };
    this.stateChanged = true;
    this.emit(changed);
  }

  /**
   * Keyspace notifications in the order they arrived, and what each changed key held when read
   * after them (by latin1 key; absent: gone). The value read belongs to the last event of its key
   * that sets a value (`SET ... PX` sends `set` then `expire`; a waiter's acquire follows a `del`).
   */
  observeEvents(events: readonly ObservedEvent[], read: ReadonlyMap<string, LockEntry>): void {
    if (this.state.kind === 'none') return;
    const lastSetting = new Map<string, number>();
    events.forEach(({ key, event }, i) => {
      if (!ENDING[event] && !EXTENDING.has(event)) lastSetting.set(key.toString('latin1'), i);
    });
    for (const entry of read.values()) this.sampleWaiters(entry, entry.readAt);
    const changed = new Set<Hold>();
    const previous = new Map<string, string>();
    for (const [i, { key, event, at }] of events.entries()) {
      const id = key.toString('latin1');
      const entry = lastSetting.get(id) === i ? read.get(id) : undefined;
      const before = previous.get(id);
      previous.set(id, event);
      // `SET ... PX` sends `set` then `expire`: the lease of the acquisition, not an extension.
      if (EXTENDING.has(event) && before !== undefined && !ENDING[before] && !EXTENDING.has(before)) continue;
      const current = this.open.get(id);
      const ending = ENDING[event];
      if (ending) {
        if (current) changed.add(this.close(current, at, this.forcedEnd(id, current, at) ?? ending));
        continue;
      }
      if (EXTENDING.has(event)) {
        if (current) changed.add(this.extend(current, at, entry));
        continue;
      }
      // set, hset, hincrby, zadd, ...: the value says who holds it now.
      const holder = holderOf(entry);
      if (current && holder?.token === current.token && current.approximate && at <= current.from) {
        // A read found the hold before its own event came through: this event is its start, seen.
        changed.add(this.seenStart(current, at, entry));
      } else if (current && holder?.token === current.token) {
        // The same owner again (a refresh by acquire, or a re-entry): an extension of its hold.
        changed.add(this.extend(current, at, entry));
      } else {
        if (current) changed.add(this.close(current, at, holder ? 'overwritten' : 'released'));
        if (holder) changed.add(this.begin(key, holder, at, entry, false));
      }
    }
    this.emit(changed);
  }

  /**
   * A read: `locks` as read at `at`; `gone`, listed keys the read found deleted. With
   * notifications it only finds the holders their events have not shown (those held before
   * observation began); without, changes between two reads are placed at the read that saw them,
   * and reads too far apart leave a gap.
   */
  observeReads(locks: readonly LockEntry[], gone: readonly Buffer[], at: number): void {
    const { state } = this;
    if (state.kind === 'none') return;
    const changed = new Set<Hold>();
    if (state.kind === 'reads' && this.lastReadAt !== undefined && at - this.lastReadAt > readGapMs(state.everyMs)) {
      this.stop(this.lastReadAt, `no read for ${roughly(at - this.lastReadAt)}`, changed);
      this.gapList[this.gapList.length - 1].to = at;
      this.unseenStart = { gapFrom: this.lastReadAt };
    }
    const unseen = this.unseenStart;
    this.unseenStart = undefined;
    if (state.kind === 'reads') this.lastReadAt = at;
    const byReads = state.kind === 'reads';
    for (const key of byReads ? gone : []) {
      const current = this.open.get(key.toString('latin1'));
      if (current)
        changed.add(this.close(current, at, this.forcedEnd(current.keyId, current, at) ?? this.guessEnd(current, at)));
    }
    for (const entry of locks) {
      this.sampleWaiters(entry, at);
      const holder = holderOf(entry);
      if (!holder) continue;
      const current = this.open.get(entry.key.toString('latin1'));
      if (current?.token === holder.token) {
        const expectedLeft = current.leaseMs !== undefined ? current.leaseMs - (at - current.readAt!) : undefined;
        // More time left than the last read allowed for: the lease was extended in between.
        if (byReads && expectedLeft !== undefined && entry.pttl > expectedLeft + EXPIRY_SLACK_MS)
          changed.add(this.extend(current, at, entry));
        else this.note(current, entry);
        continue;
      }
      // With notifications, the events say how a hold ended and who holds next.
      if (current && !byReads) continue;
      if (current) changed.add(this.close(current, at, this.guessEnd(current, at)));
      const begun = this.begin(entry.key, holder, at, entry, true);
      // Held before this first read of an observation, or (with notifications) before its event came.
      if (unseen || !byReads) begun.startUnseen = unseen ?? {};
      changed.add(begun);
    }
    this.emit(changed);
  }

  /** Observation stops at `at`: the open holds are cut there, and a gap opens. */
  private stop(at: number, reason: string, changed: Set<Hold>): void {
    for (const hold of [...this.open.values()]) changed.add(this.close(hold, at, 'unobserved'));
    const gap: ObservationGap = { from: at, reason };
    this.gapList.push(gap);
    if (this.gapList.length > GAPS_KEPT) this.gapList.shift();
    this.gapsChanged.push(gap);
  }

  /** A new sample when the number of waiters changed (a key never waited for keeps no samples). */
  private sampleWaiters(entry: LockEntry, at: number): void {
    if (!entry.waiters) return;
    const id = entry.key.toString('latin1');
    const count = waitingCount(entry) ?? 0;
    const known = this.waiting.get(id);
    const last = known?.samples[known.samples.length - 1];
    if (last ? last[1] === count : count === 0) return;
    const series = known ?? { key: escapeBytes(entry.key), samples: [] };
    series.samples.push([at, count]);
    if (series.samples.length > WAITER_SAMPLES_PER_KEY) series.samples.shift();
    this.waiting.set(id, series);
    this.sampled.push({ key: series.key, samples: [[at, count]] });
  }

  private forcedEnd(id: string, hold: Hold, at: number): HoldEnd | undefined {
    const forced = this.forced.get(id);
    if (!forced || forced.token !== hold.token || at - forced.at > FORCED_WINDOW_MS) return undefined;
    this.forced.delete(id);
    return 'forced';
  }

  /**
   * Seen gone or replaced between two contiguous reads (a gap would have cut it first): expired
   * if its lease had run out by then, else released.
   */
  private guessEnd(hold: Hold, at: number): HoldEnd {
    if (hold.leaseMs === undefined || hold.readAt === undefined) return 'released';
    return hold.readAt + hold.leaseMs <= at + EXPIRY_SLACK_MS ? 'expired' : 'released';
  }

  private begin(
    key: Buffer,
    holder: { owner: string; token: string },
    at: number,
    entry: LockEntry | undefined,
    approximate: boolean,
  ): Hold {
    const hold: Hold = {
      id: this.nextId++,
      keyId: key.toString('latin1'),
      key: escapeBytes(key),
      ...holder,
      from: at,
      extensions: [],
      approximate,
    };
    this.note(hold, entry);
    this.all.push(hold);
    this.open.set(hold.keyId, hold);
    this.count();
    return hold;
  }

  private seenStart(hold: Hold, at: number, entry: LockEntry | undefined): Hold {
    hold.from = at;
    hold.approximate = false;
    delete hold.startUnseen;
    this.note(hold, entry);
    return hold;
  }

  private extend(hold: Hold, at: number, entry: LockEntry | undefined): Hold {
    hold.extensions.push(at);
    this.note(hold, entry);
    this.count();
    return hold;
  }

  private close(hold: Hold, at: number, end: HoldEnd): Hold {
    hold.to = Math.max(at, hold.from);
    hold.end = end;
    this.open.delete(hold.keyId);
    this.count();
    return hold;
  }

  private note(hold: Hold, entry: LockEntry | undefined): void {
    if (entry && entry.pttl >= 0) {
      hold.leaseMs = entry.pttl;
      hold.readAt = entry.readAt;
    }
  }

  /** One more event; past the bound the oldest holds go, events and all. */
  private count(): void {
    this.events++;
    while (this.events > this.maxEvents && this.all.length > 1) {
      const oldest = this.all.shift()!;
      this.removed.push(oldest.id);
      this.events -= 1 + oldest.extensions.length + (oldest.end ? 1 : 0);
      if (this.open.get(oldest.keyId) === oldest) this.open.delete(oldest.keyId);
    }
  }

  private emit(changed: Set<Hold>): void {
    if (!changed.size && !this.sampled.length && !this.gapsChanged.length && !this.stateChanged) return;
    const removed = new Set(this.removed);
    const change: HistoryChange = {
      holds: [...changed].filter((hold) => !removed.has(hold.id)),
      removed: [...removed],
      waiters: this.sampled,
      gaps: this.gapsChanged.map((gap) => ({ ...gap })),
      ...(this.stateChanged && { observation: this.observation() }),
    };
    this.removed = [];
    this.sampled = [];
    this.gapsChanged = [];
    this.stateChanged = false;
    for (const listener of this.listeners) listener(change);
  }
}

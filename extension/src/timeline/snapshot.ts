// The panel's copy of what it shows, and the changes not yet posted. The webview is rebuilt
// whenever the panel is hidden and shown again (no retained context), so the extension side keeps
// the whole picture to send as a `reset`; and updates that arrive faster than the webview needs
// them are merged into one message.
import type {
  ObservationGap,
  ObservationState,
  TimelineData,
  TimelineDelta,
  TimelineHold,
  TimelineWaiters,
} from './protocol';

type Sample = [at: number, count: number];

/** Appends the samples newer than the last one already there (a delta may repeat or reorder old ones). */
export function appendSamples(samples: Sample[], incoming: readonly Sample[]): void {
  for (const sample of incoming) {
    const last = samples[samples.length - 1];
    if (!last || sample[0] > last[0]) samples.push([sample[0], sample[1]]);
  }
}

/** Gaps by their start, oldest first. */
export function sortedGaps(gaps: ReadonlyMap<number, ObservationGap>): ObservationGap[] {
  return [...gaps.values()].sort((a, b) => a.from - b.from);
}

const NOT_SHOWN: ObservationState = { kind: 'none', reason: 'nothing shown yet', since: 0 };

/** The whole picture as of the last reset and every delta since. */
export class TimelineState {
  private connection = '';
  private connectionId = '';
  private now = 0;
  private sampledEveryMs?: number;
  private observation = NOT_SHOWN;
  private readonly holds = new Map<number, TimelineHold>();
  private readonly waiters = new Map<string, Sample[]>();
  private readonly gaps = new Map<number, ObservationGap>();

  /** The connection shown, by id; empty before the first reset. */
  get shownConnectionId(): string {
    return this.connectionId;
  }

  reset(data: TimelineData): void {
    this.connection = data.connection;
    this.connectionId = data.connectionId;
    this.now = data.now;
    this.sampledEveryMs = data.sampledEveryMs;
    this.holds.clear();
    this.waiters.clear();
    this.gaps.clear();
    this.apply({
      now: data.now,
      holds: data.holds,
      waiters: data.waiters,
      gaps: data.gaps,
      observation: data.observation,
    });
  }

  apply(delta: TimelineDelta): void {
    this.now = Math.max(this.now, delta.now);
    for (const hold of delta.holds) this.holds.set(hold.id, hold);
    for (const id of delta.removed ?? []) this.holds.delete(id);
    for (const { key, samples } of delta.waiters) {
      let known = this.waiters.get(key);
      if (!known) this.waiters.set(key, (known = []));
      appendSamples(known, samples);
    }
    for (const gap of delta.gaps ?? []) this.gaps.set(gap.from, gap);
    if (delta.observation) this.observation = delta.observation;
  }

  data(): TimelineData {
    return {
      connection: this.connection,
      connectionId: this.connectionId,
      now: this.now,
      holds: [...this.holds.values()],
      waiters: [...this.waiters].map(([key, samples]) => ({ key, samples })),
      ...(this.sampledEveryMs === undefined ? {} : { sampledEveryMs: this.sampledEveryMs }),
      gaps: sortedGaps(this.gaps),
      observation: this.observation,
    };
  }
}

/** Deltas not yet posted, merged: the last version of each hold and gap, removals, the new waiter samples, the last observation. */
export class PendingDelta {
  private now = 0;
  private readonly holds = new Map<number, TimelineHold>();
  private readonly removed = new Set<number>();
  private readonly waiters = new Map<string, Sample[]>();
  private readonly gaps = new Map<number, ObservationGap>();
  private observation?: ObservationState;

  get isEmpty(): boolean {
    return (
      this.holds.size === 0 &&
      this.removed.size === 0 &&
      this.waiters.size === 0 &&
      this.gaps.size === 0 &&
      !this.observation
    );
  }

  add(delta: TimelineDelta): void {
    this.now = Math.max(this.now, delta.now);
    for (const hold of delta.holds) {
      this.holds.set(hold.id, hold);
      this.removed.delete(hold.id);
    }
    for (const id of delta.removed ?? []) {
      this.holds.delete(id);
      this.removed.add(id);
    }
    for (const { key, samples } of delta.waiters) {
      let pending = this.waiters.get(key);
      if (!pending) this.waiters.set(key, (pending = []));
      appendSamples(pending, samples);
    }
    for (const gap of delta.gaps ?? []) this.gaps.set(gap.from, gap);
    if (delta.observation) this.observation = delta.observation;
  }

  /** The merged delta, and empties this; undefined when nothing is pending. */
  take(): TimelineDelta | undefined {
    if (this.isEmpty) return undefined;
    const waiters: TimelineWaiters[] = [...this.waiters].map(([key, samples]) => ({ key, samples }));
    const delta: TimelineDelta = { now: this.now, holds: [...this.holds.values()], waiters };
    if (this.removed.size > 0) delta.removed = [...this.removed];
    if (this.gaps.size > 0) delta.gaps = sortedGaps(this.gaps);
    if (this.observation) delta.observation = this.observation;
    this.holds.clear();
    this.removed.clear();
    this.waiters.clear();
    this.gaps.clear();
    this.observation = undefined;
    return delta;
  }
}

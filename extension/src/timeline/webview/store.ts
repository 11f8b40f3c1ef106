// The renderer's data: holds grouped into one row per key, each row's holds sorted by start so
// that a frame finds the holds in view by binary search (a frame costs what is visible, not
// what is stored), rows in natural key order, and the key filter.
import { appendSamples } from '../snapshot';
import type { ObservationGap, ObservationState, TimelineData, TimelineDelta, TimelineHold } from '../protocol';

type Sample = [at: number, count: number];

export interface Row {
  readonly key: string;
  /** Sorted by `from`. */
  readonly holds: TimelineHold[];
  /** Holds without an end yet (also in `holds`). */
  readonly open: Set<TimelineHold>;
  /** The longest ended hold: a hold in view starts at most this long before the view does. */
  longestEnded: number;
  /** Waiter counts, oldest first; empty where waiters are not counted. */
  readonly waiters: Sample[];
}

const collator = new Intl.Collator('en', { numeric: true });

/** The first index whose element's value is >= target, in an array sorted by value. */
function lowerBound<T>(items: readonly T[], target: number, value: (item: T) => number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (value(items[mid]) < target) low = mid + 1;
    else high = mid;
  }
  return low;
}

const holdStart = (hold: TimelineHold) => hold.from;
const gapStart = (gap: ObservationGap) => gap.from;
const sampleTime = (sample: Sample) => sample[0];

export class TimelineStore {
  sampledEveryMs?: number;
  /** How the connection is observed now. */
  observation: ObservationState = { kind: 'none', reason: 'nothing received yet', since: 0 };
  /** Stretches nobody observed, by start. */
  private readonly gapList: ObservationGap[] = [];
  private readonly byId = new Map<number, TimelineHold>();
  private readonly rowsByKey = new Map<string, Row>();
  /** Every row, in natural key order. */
  private readonly sorted: Row[] = [];
  private filterText = '';
  private filteredRows?: Row[];
  private earliestStart = Infinity;

  get holdCount(): number {
    return this.byId.size;
  }

  get keyCount(): number {
    return this.sorted.length;
  }

  /** The earliest start of any hold (Infinity when there is none): how far back panning goes. */
  get earliest(): number {
    return this.earliestStart;
  }

  get filter(): string {
    return this.filterText;
  }

  /** Keys containing the text, case-insensitive, as the Locks view filters. */
  setFilter(text: string): void {
    const normalized = text.trim().toLowerCase();
    if (normalized === this.filterText) return;
    this.filterText = normalized;
    this.filteredRows = undefined;
  }

  /** Every key, shown or filtered out. */
  keys(): string[] {
    return this.sorted.map((row) => row.key);
  }

  /** The rows shown: every key that passes the filter, in natural order. */
  rows(): readonly Row[] {
    this.filteredRows ??= this.filterText
      ? this.sorted.filter((row) => row.key.toLowerCase().includes(this.filterText))
      : this.sorted;
    return this.filteredRows;
  }

  /** The gaps, oldest first. */
  gaps(): readonly ObservationGap[] {
    return this.gapList;
  }

  /** The gap that covers `at` (an open gap reaches `now`), if any. */
  gapAt(at: number, now: number): ObservationGap | undefined {
    return this.gapList.find((gap) => gap.from <= at && at <= (gap.to ?? now));
  }

  reset(data: TimelineData): void {
    this.sampledEveryMs = data.sampledEveryMs;
    this.observation = data.observation;
    this.gapList.length = 0;
    this.putGaps(data.gaps);
    this.byId.clear();
    this.rowsByKey.clear();
    this.sorted.length = 0;
    this.filteredRows = undefined;
    this.earliestStart = Infinity;
    // Built in bulk: each row sorted once rather than one insertion at a time.
    for (const hold of data.holds) this.byId.set(hold.id, hold);
    for (const hold of this.byId.values()) {
      const row = this.row(hold.key, false);
      row.holds.push(hold);
      this.noteAdded(row, hold);
    }
    for (const row of this.rowsByKey.values()) {
      row.holds.sort((a, b) => a.from - b.from);
      this.sorted.push(row);
    }
    for (const { key, samples } of data.waiters) appendSamples(this.row(key, false).waiters, samples);
    for (const row of this.rowsByKey.values()) if (!row.holds.length) this.sorted.push(row);
    this.sorted.sort((a, b) => collator.compare(a.key, b.key));
  }

  apply(delta: TimelineDelta): void {
    for (const hold of delta.holds) {
      this.remove(hold.id);
      this.byId.set(hold.id, hold);
      const row = this.row(hold.key, true);
      row.holds.splice(lowerBound(row.holds, hold.from + 1, holdStart), 0, hold);
      this.noteAdded(row, hold);
    }
    for (const id of delta.removed ?? []) this.remove(id);
    for (const { key, samples } of delta.waiters) appendSamples(this.row(key, true).waiters, samples);
    this.putGaps(delta.gaps ?? []);
    if (delta.observation) this.observation = delta.observation;
  }

  /** New gaps and closed ones (a gap's start is its identity), kept in order. */
  private putGaps(gaps: readonly ObservationGap[]): void {
    for (const gap of gaps) {
      const index = this.gapList.findIndex((known) => known.from === gap.from);
      if (index >= 0) this.gapList[index] = gap;
      else this.gapList.splice(lowerBound(this.gapList, gap.from, gapStart), 0, gap);
    }
  }

  /** Calls `visit` for each hold of the row that overlaps [start, end]; holds still held end at `now`. */
  forEachHoldIn(row: Row, start: number, end: number, now: number, visit: (hold: TimelineHold) => void): void {
    const earliest = start - row.longestEnded;
    for (const hold of row.open) if (hold.from < earliest && hold.from <= end) visit(hold);
    const { holds } = row;
    for (let i = lowerBound(holds, earliest, holdStart); i < holds.length && holds[i].from <= end; i++) {
      const hold = holds[i];
      if ((hold.to ?? now) >= start) visit(hold);
    }
  }

  /** The index of the first waiter sample at or after `at`. */
  waiterIndex(row: Row, at: number): number {
    return lowerBound(row.waiters, at, sampleTime);
  }

  /** The waiter count at `at` (the last sample before it), or undefined where none was counted. */
  waitersAt(row: Row, at: number): number | undefined {
    const index = lowerBound(row.waiters, at + 1, sampleTime) - 1;
    return index >= 0 ? row.waiters[index][1] : undefined;
  }

  private row(key: string, keepOrder: boolean): Row {
    let row = this.rowsByKey.get(key);
    if (row) return row;
    row = { key, holds: [], open: new Set(), longestEnded: 0, waiters: [] };
    this.rowsByKey.set(key, row);
    if (keepOrder) {
      let low = 0;
      let high = this.sorted.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (collator.compare(this.sorted[mid].key, key) < 0) low = mid + 1;
        else high = mid;
      }
      this.sorted.splice(low, 0, row);
      this.filteredRows = undefined;
    }
    return row;
  }

  private noteAdded(row: Row, hold: TimelineHold): void {
    if (hold.to === undefined) row.open.add(hold);
    else row.longestEnded = Math.max(row.longestEnded, hold.to - hold.from);
    this.earliestStart = Math.min(this.earliestStart, hold.from);
  }

  private remove(id: number): void {
    const hold = this.byId.get(id);
    if (!hold) return;
    this.byId.delete(id);
    const row = this.rowsByKey.get(hold.key);
    if (!row) return;
    row.open.delete(hold);
    for (let i = lowerBound(row.holds, hold.from, holdStart); i < row.holds.length; i++) {
      if (row.holds[i] === hold) {
        row.holds.splice(i, 1);
        break;
      }
    }
    if (row.holds.length === 0 && row.waiters.length === 0) {
      this.rowsByKey.delete(row.key);
      this.sorted.splice(this.sorted.indexOf(row), 1);
      this.filteredRows = undefined;
    }
  }
}

// The lock history's vocabulary as plain data, with no Node and no vscode: the history
// (history.ts) records it, the Locks view and the Lock Timeline's webview (through
// timeline/protocol.ts) show it. The protocol builds on this, never the reverse.

/**
 * How a hold ended, as seen: released by compare-and-delete, its lease ran out, released from the
 * view, SET by someone else, evicted; or `unobserved`: observation stopped while it was held, so
 * how and when it ended is not known.
 */
export type HoldEnd = 'released' | 'expired' | 'forced' | 'overwritten' | 'evicted' | 'unobserved';

/**
 * How the history sees a server: every change as it happens (keyspace notifications), by reads
 * every `everyMs` (changes placed at the read that saw them), or not at all.
 */
export type Observation = { kind: 'events' } | { kind: 'reads'; everyMs: number } | { kind: 'none'; reason: string };

/** An observation and when it began. */
export type ObservationState = Observation & { since: number };

/** A stretch of time nobody observed: what happened to the locks in it is not known. */
export interface ObservationGap {
  /** Epoch ms when observation stopped; also the gap's identity. */
  from: number;
  /** When it resumed; absent while the gap lasts. */
  to?: number;
  /** Why, in the past tense: "the Locks view was hidden", "the connection was lost". */
  reason: string;
}

/**
 * A hold already held when first seen, so its start was not seen: observation began then, or
 * resumed after the gap that began at `gapFrom`.
 */
export interface UnseenStart {
  gapFrom?: number;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** 10:53:07, local time. */
export function clockTime(at: number): string {
  const date = new Date(at);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** What the views say of a gap: "Not observed from 10:53:07 to 10:56:40 (the Locks view was hidden)". */
export function describeGap(gap: ObservationGap): string {
  const when =
    gap.to === undefined ? `since ${clockTime(gap.from)}` : `from ${clockTime(gap.from)} to ${clockTime(gap.to)}`;
  return `Not observed ${when} (${gap.reason}): what happened to the locks then is not known.`;
}

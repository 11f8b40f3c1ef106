// Text the timeline shows: time-axis ticks and their labels, durations, and a hold's details
// for the tooltip and the screen reader.
import type { HoldEnd, ObservationGap, ObservationState, TimelineHold } from '../protocol';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const TICK_STEPS = [
  10,
  20,
  50,
  100,
  200,
  500,
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
];

/** The smallest round step that keeps ticks at least `minGapPx` apart, and the ticks in [start, end]. */
export function timeTicks(start: number, end: number, widthPx: number, minGapPx: number) {
  const perPx = (end - start) / Math.max(1, widthPx);
  const step = TICK_STEPS.find((candidate) => candidate / perPx >= minGapPx) ?? TICK_STEPS[TICK_STEPS.length - 1];
  // Local time: steps of an hour or less fall on round local times (time zones differ by whole quarters of an hour).
  const offset = new Date(start).getTimezoneOffset() * MINUTE;
  const ticks: number[] = [];
  for (let tick = Math.ceil((start - offset) / step) * step + offset; tick <= end; tick += step) ticks.push(tick);
  return { step, ticks };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** A clock time, as precise as `step` needs: 14:03, 14:03:10, 14:03:10.250. */
export function clockTime(time: number, step: number): string {
  const date = new Date(time);
  const minutes = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  if (step >= MINUTE && date.getSeconds() === 0) return minutes;
  const seconds = `${minutes}:${pad(date.getSeconds())}`;
  return step >= SECOND ? seconds : `${seconds}.${pad(date.getMilliseconds(), 3)}`;
}

/** 850 ms, 12.4 s, 3 min 05 s, 2 h 10 min. */
export function duration(ms: number): string {
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  if (ms % SECOND === 0 && ms < MINUTE) return `${ms / SECOND} s`;
  if (ms < 10 * SECOND) return `${(ms / SECOND).toFixed(2)} s`;
  if (ms < MINUTE) return `${(ms / SECOND).toFixed(1)} s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ${pad(Math.floor((ms % MINUTE) / SECOND))} s`;
  return `${Math.floor(ms / HOUR)} h ${pad(Math.floor((ms % HOUR) / MINUTE))} min`;
}

export const END_LABELS: Record<HoldEnd, string> = {
  released: 'released (compare-and-delete)',
  expired: 'expired: the lease ran out while held, so the holder lost the lock',
  forced: 'forced: released from the Locks view',
  overwritten: 'overwritten: another client SET the key',
  evicted: 'evicted: Redis dropped the key under memory pressure',
  unobserved: 'not observed: observation stopped while it was held, so how it ended is not known',
};

/** The lines of a hold's tooltip: [label, value]. */
export function holdDetails(hold: TimelineHold, now: number, sampledEveryMs?: number): Array<[string, string]> {
  const end = hold.to ?? now;
  // What was not seen is not measured: a start or an end beyond a gap bounds the hold from below.
  const atLeast = hold.startUnseen || hold.end === 'unobserved' ? 'at least ' : '';
  const lines: Array<[string, string]> = [
    ['Key', hold.key],
    ['Owner', hold.owner],
    ['Token', hold.token],
    [
      'From',
      hold.startUnseen ? `before ${clockTime(hold.from, 1)}: already held when first seen` : clockTime(hold.from, 1),
    ],
    ['To', hold.to === undefined ? 'still held' : clockTime(hold.to, 1)],
    ['Held for', atLeast + duration(end - hold.from) + (hold.to === undefined ? ' so far' : '')],
    ['Ended', hold.end ? END_LABELS[hold.end] : hold.to === undefined ? 'not yet' : 'unknown'],
  ];
  if (hold.startUnseen) {
    const { gapFrom } = hold.startUnseen;
    lines.push([
      'Not seen',
      gapFrom === undefined
        ? 'observation began while it was held'
        : `not observed from ${clockTime(gapFrom, 1)}: it may have begun any time since`,
    ]);
  }
  if (hold.leaseMs !== undefined) lines.push(['Lease', `${duration(hold.leaseMs)} when last read`]);
  if (hold.extensions.length) {
    const last = hold.extensions[hold.extensions.length - 1];
    lines.push(['Extended', `${hold.extensions.length}× (last at ${clockTime(last, 1)})`]);
  }
  if (hold.approximate) {
    const every = sampledEveryMs === undefined ? 'periodic reads' : `reads every ${duration(sampledEveryMs)}`;
    lines.push(['Approximate', `seen by ${every}: start and end are known to within one read`]);
  }
  return lines;
}

/** The lines of a gap's tooltip: when nobody observed, and why. */
export function gapDetails(gap: ObservationGap, now: number): Array<[string, string]> {
  const to = gap.to ?? now;
  return [
    ['Not observed', `from ${clockTime(gap.from, 1)} to ${gap.to === undefined ? 'now' : clockTime(gap.to, 1)}`],
    ['For', duration(to - gap.from)],
    ['Why', gap.reason],
    ['', 'What happened to the locks then is not known: no release or expiry is shown for it.'],
  ];
}

/** The status bar's account of how the connection is observed: live, read every few seconds, or not at all since when. */
export function observationText(observation: ObservationState): string {
  switch (observation.kind) {
    case 'events':
      return 'live: keyspace notifications';
    case 'reads':
      return `approximate: read every ${duration(observation.everyMs)}`;
    case 'none':
      return observation.since
        ? `not observed since ${clockTime(observation.since, 1)} (${observation.reason})`
        : 'not observed';
  }
}

/** One sentence for the screen reader. */
export function holdSummary(hold: TimelineHold, now: number): string {
  const held = duration((hold.to ?? now) - hold.from);
  const how = hold.end ?? (hold.to === undefined ? 'still held' : 'ended');
  const approximate = hold.approximate ? ', approximate' : '';
  return `${hold.owner} held ${hold.key} from ${clockTime(hold.from, SECOND)} for ${held}, ${how}${approximate}`;
}

// How the Locks view shows history: a lock's recent holders in its tooltip, and a group row with
// its count, its use and a warning when leases ran out; and what was not observed, as a gap,
// never as an end. Pure: the caller passes `now`.
import type { GroupStats } from './groups';
import type { Hold, HoldEnd, ObservationGap } from './history';
import { describeGap } from './historyModel';
import { code, formatDuration, type LockView } from './present';

const RECENT_HOLDS = 5;
/** Gaps a lock's tooltip names at most: the newest among its recent holders. */
const RECENT_GAPS = 3;

const ENDED: Record<HoldEnd, string> = {
  released: 'released',
  expired: '**expired** (the lease ran out: the holder lost the lock)',
  forced: 'released from the view',
  overwritten: 'overwritten by another SET',
  evicted: 'evicted (maxmemory)',
  unobserved: 'then not observed (how it ended is not known)',
};

/** One holder's line: when it was first seen, how long it held and how that ended, as far as seen. */
function holdLine(hold: Hold, now: number): string {
  const ago = `${formatDuration(Math.max(0, now - hold.from))} ago`;
  const since = hold.startUnseen ? `already held when first seen ${ago}` : `from ${ago}`;
  const atLeast = hold.startUnseen || hold.end === 'unobserved' ? 'at least ' : '';
  const held =
    hold.to === undefined ? 'holding' : `held ${atLeast}${formatDuration(hold.to - hold.from)}, ${ENDED[hold.end!]}`;
  const extended = hold.extensions.length ? `, extended ${hold.extensions.length}×` : '';
  return `- ${hold.owner}: ${since}, ${held}${extended}${hold.approximate ? ' (approximate)' : ''}`;
}

/**
 * Markdown: the last holds of a lock, newest first, and the gaps in observation since the oldest
 * of them; nothing before any was seen.
 */
export function recentHolds(holds: readonly Hold[], gaps: readonly ObservationGap[], now: number): string | undefined {
  if (!holds.length) return undefined;
  const recent = holds.slice(-RECENT_HOLDS);
  const rows = [...recent].reverse().map((hold) => holdLine(hold, now));
  const unobserved = gaps
    .filter((gap) => (gap.to ?? now) >= recent[0].from)
    .slice(-RECENT_GAPS)
    .map((gap) => `⚠ ${describeGap(gap)}`);
  return [[`**Recent holders** (${holds.length} seen)`, ...rows].join('\n'), ...unobserved].join('\n\n');
}

/** How much of the `windowMs` before `now` nobody observed. */
export function unobservedWithin(gaps: readonly ObservationGap[], now: number, windowMs: number): number {
  const since = now - windowMs;
  return gaps.reduce((sum, gap) => sum + Math.max(0, Math.min(gap.to ?? now, now) - Math.max(gap.from, since)), 0);
}

/** `37 locks`, `40 other keys`, `2 locks · 3 other keys`: keys the patterns matched that are not locks are not counted as locks. */
function keyCount({ locks, other }: { locks: number; other: number }): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [locks || !other ? plural(locks, 'lock') : '', other ? plural(other, 'other key') : '']
    .filter(Boolean)
    .join(' · ');
}

/**
 * A group row: `lock:{orders:*}` · 37 locks · 4 of 37 expired. `unobservedMs`: how much of the
 * stats' window nobody observed (the counts cover the rest).
 */
export function presentGroup(
  group: string,
  count: { locks: number; other: number },
  stats: GroupStats | undefined,
  unobservedMs = 0,
): LockView {
  const use = stats?.acquisitions
    ? [
        `${stats.acquisitionsPerMinute.toFixed(stats.acquisitionsPerMinute < 10 ? 1 : 0)} acquisitions/min`,
        stats.holdP50 !== undefined &&
          `held p50 ${formatDuration(stats.holdP50)}, p99 ${formatDuration(stats.holdP99!)}, max ${formatDuration(stats.holdMax!)}`,
        `${stats.expired} expired, ${stats.released} released${stats.other ? `, ${stats.other} other` : ''} of ${stats.ended} ended`,
        stats.maxWaiting && `up to ${stats.maxWaiting} waiting at once`,
      ]
        .filter(Boolean)
        .join('\n\n')
    : 'No acquisitions seen in the last 10 min (history builds while the view is open).';
  const gap =
    unobservedMs > 0 &&
    `Not observed for ${formatDuration(unobservedMs)} of the last 10 min: these counts cover the rest.`;
  return {
    label: group,
    description: [keyCount(count), stats?.expired ? `${stats.expired} of ${stats.ended} expired` : '']
      .filter(Boolean)
      .join(' · '),
    tooltip: [`**Lock group** ${code(group)}`, use, gap, stats?.warning && `⚠ ${stats.warning}`]
      .filter(Boolean)
      .join('\n\n'),
    icon: stats?.expired ? 'warning' : 'symbol-namespace',
    warning: !!stats?.expired,
    contextValue: 'lockGroup',
  };
}

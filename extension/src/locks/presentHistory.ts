// How the Locks view shows history: a lock's recent holders in its tooltip, and a group row with
// its count, its use and a warning when leases ran out. Pure: the caller passes `now`.
import type { GroupStats } from './groups';
import type { Hold, HoldEnd } from './history';
import { code, formatDuration, type LockView } from './present';

const RECENT_HOLDS = 5;

const ENDED: Record<HoldEnd, string> = {
  released: 'released',
  expired: '**expired** (the lease ran out: the holder lost the lock)',
  forced: 'released from the view',
  overwritten: 'overwritten by another SET',
  evicted: 'evicted (maxmemory)',
};

/** Markdown: the last holds of a lock, newest first, or nothing before any was seen. */
export function recentHolds(holds: readonly Hold[], now: number): string | undefined {
  if (!holds.length) return undefined;
  const rows = holds
    .slice(-RECENT_HOLDS)
    .reverse()
    .map((hold) => {
      const since = `${formatDuration(Math.max(0, now - hold.from))} ago`;
      const held =
        hold.to === undefined ? 'holding' : `held ${formatDuration(hold.to - hold.from)}, ${ENDED[hold.end!]}`;
      const extended = hold.extensions.length ? `, extended ${hold.extensions.length}×` : '';
      return `- ${hold.owner}: from ${since}, ${held}${extended}${hold.approximate ? ' (approximate)' : ''}`;
    });
  return [`**Recent holders** (${holds.length} seen)`, ...rows].join('\n');
}

/** A group row: `lock:{orders:*}` · 37 locks · 4 of 37 expired. */
export function presentGroup(group: string, count: number, stats: GroupStats | undefined): LockView {
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
  return {
    label: group,
    description: [
      `${count} lock${count === 1 ? '' : 's'}`,
      stats?.expired ? `${stats.expired} of ${stats.ended} expired` : '',
    ]
      .filter(Boolean)
      .join(' · '),
    tooltip: [`**Lock group** ${code(group)}`, use, stats?.warning && `⚠ ${stats.warning}`]
      .filter(Boolean)
      .join('\n\n'),
    icon: stats?.expired ? 'warning' : 'symbol-namespace',
    warning: !!stats?.expired,
    contextValue: 'lockGroup',
  };
}

// Lock groups: keys that differ only in their id part (`lock:{orders:42}`, `lock:{orders:43}`
// are `lock:{orders:*}`), or that match a pattern the user named; and per group, from the
// history, how the locks are used: acquisitions per minute, hold times, and how many holds
// expired (the lease ran out: the holder lost the lock) against those released. Pure.
import { globMatches } from './glob';
import type { Hold, WaiterSamples } from './history';

// A key splits into words and the separators between them; only words that look like ids vary.
const SEPARATORS = /([:./{}\\[\]|,#@=\s-]+)/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function isIdWord(word: string): boolean {
  if (/^\d+$/.test(word)) return true;
  if (UUID.test(word)) return true;
  // Hex or base36-ish ids: long enough, with digits in them (`7f3a9c01`, `a1b2c3`), not words like `v2`.
  return word.length >= 6 && /\d/.test(word) && /^[0-9a-z_]+$/i.test(word);
}

/** The shape of a key: each id-like word replaced by `*` (`lock:{orders:42}` -> `lock:{orders:*}`). */
export function keyShape(key: string): string {
  // A uuid is one word even though `-` separates words elsewhere.
  const uuids: string[] = [];
  const masked = key.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (uuid) => {
    uuids.push(uuid);
    return '\u0000';
  });
  return masked
    .split(SEPARATORS)
    .map((part, i) => (i % 2 === 1 ? part : part === '\u0000' || isIdWord(part) ? '*' : part))
    .join('');
}

/** The group of a key: the first named pattern it matches, else its shape. */
export function groupOf(key: string, named: readonly string[]): string {
  const bytes = Buffer.from(key);
  return named.find((pattern) => globMatches(Buffer.from(pattern), bytes)) ?? keyShape(key);
}

export interface GroupStats {
  group: string;
  /** Holds that began within the window. */
  acquisitions: number;
  acquisitionsPerMinute: number;
  /** Durations of the holds that ended within the window, in ms. */
  holdP50?: number;
  holdP99?: number;
  holdMax?: number;
  ended: number;
  expired: number;
  released: number;
  /** Forced from the view, overwritten by someone else's SET, or evicted (holds cut by a gap are not counted). */
  other: number;
  /** The most clients seen waiting for one of the group's locks, where waiters could be counted. */
  maxWaiting?: number;
  /** Some holds ended by expiring in the window: what it likely means. */
  warning?: string;
}

export const STATS_WINDOW_MS = 10 * 60_000;

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Per group, the use of its locks in the `windowMs` before `now`. */
export function groupStats(
  holds: readonly Hold[],
  now: number,
  group: (key: string) => string,
  windowMs = STATS_WINDOW_MS,
  waiters: readonly WaiterSamples[] = [],
): Map<string, GroupStats> {
  const since = now - windowMs;
  const byGroup = new Map<string, { stats: GroupStats; durations: number[] }>();
  const of = (key: string) => {
    const name = group(key);
    let entry = byGroup.get(name);
    if (!entry) {
      entry = {
        stats: { group: name, acquisitions: 0, acquisitionsPerMinute: 0, ended: 0, expired: 0, released: 0, other: 0 },
        durations: [],
      };
      byGroup.set(name, entry);
    }
    return entry;
  };
  for (const hold of holds) {
    const entry = of(hold.key);
    // Only what was seen: a hold found already held began unseen, one cut by a gap ended unseen.
    if (hold.from >= since && !hold.startUnseen) entry.stats.acquisitions++;
    if (hold.to === undefined || hold.to < since || hold.end === 'unobserved') continue;
    entry.stats.ended++;
    entry.durations.push(hold.to - hold.from);
    if (hold.end === 'expired') entry.stats.expired++;
    else if (hold.end === 'released') entry.stats.released++;
    else entry.stats.other++;
  }
  for (const { key, samples } of waiters) {
    const counts = samples.filter(([at]) => at >= since).map(([, count]) => count);
    if (!counts.length) continue;
    const { stats } = of(key);
    stats.maxWaiting = Math.max(stats.maxWaiting ?? 0, ...counts);
  }
  const minutes = windowMs / 60_000;
  for (const { stats, durations } of byGroup.values()) {
    stats.acquisitionsPerMinute = stats.acquisitions / minutes;
    if (durations.length) {
      const sorted = durations.sort((a, b) => a - b);
      stats.holdP50 = percentile(sorted, 50);
      stats.holdP99 = percentile(sorted, 99);
      stats.holdMax = sorted[sorted.length - 1];
    }
    if (stats.expired > 0) {
      stats.warning = `${stats.expired} of ${stats.ended} holds expired in the last ${minutes} min: lease too short, or holders crashing`;
    }
  }
  return new Map([...byGroup].map(([name, { stats }]) => [name, stats]));
}

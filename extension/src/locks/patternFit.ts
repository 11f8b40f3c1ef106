// How well a connection's lock patterns fit its keys: how many keys they matched, and how many of
// those are locks (or a lock's fencing counter or waiter queue). Broad patterns from a workspace
// (`*`) match the whole keyspace, and the view would read every key: worth saying, once. Pure.
import type { LockEntry } from './classify';

/** Below this many matched keys a listing says too little to call the patterns too broad. */
const FEW_KEYS = 20;
/** Matched keys that must be something other than locks for the patterns to count as too broad. */
const NOT_LOCKS_SHARE = 0.8;

export interface PatternFit {
  /** Keys read (`more`: and more the listing did not read). */
  matched: number;
  locks: number;
  more: boolean;
  /** Far more keys than locks: at least FEW_KEYS keys, NOT_LOCKS_SHARE of them not lock-shaped. */
  mostlyNotLocks: boolean;
}

/** A lock, or a key that belongs to one (its fencing counter, its queue of waiters). */
export function lockShaped(entry: LockEntry): boolean {
  return entry.kind !== 'other' || entry.why === 'fence' || entry.why === 'queue';
}

export function patternFit(entries: readonly LockEntry[], more: boolean): PatternFit {
  const locks = entries.filter(lockShaped).length;
  const matched = entries.length;
  return { matched, locks, more, mostlyNotLocks: matched >= FEW_KEYS && matched - locks >= NOT_LOCKS_SHARE * matched };
}

/** "The lock patterns (*) match 402 keys on prod, and only 2 of them are locks: ..." */
export function describeFit(fit: PatternFit, patterns: readonly string[], connection: string): string {
  const matched = `${fit.matched}${fit.more ? '+' : ''} key${fit.matched === 1 ? '' : 's'}`;
  const locks =
    fit.locks === 0
      ? 'none of them is a lock'
      : `only ${fit.locks} of them ${fit.locks === 1 ? 'is a lock' : 'are locks'}`;
  return `The lock patterns (${patterns.join(', ')}) match ${matched} on ${connection}, and ${locks}: the Locks view reads every key they match.`;
}

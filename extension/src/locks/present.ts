// How the Locks view shows an entry: label, description, tooltip, icon and menu context. Pure:
// the caller passes `now`, so a TTL counts down locally between reads.
import {
  escapeBytes,
  waitingCount,
  type HeldByMany,
  type LockEntry,
  type LockHolder,
  type OtherKey,
  type ReadWriteLock,
  type ReentrantLock,
  type SemaphoreLock,
  type TimestampLock,
  type TokenLock,
} from './classify';
import type { NativePath } from '../../../pack/native';
import type { MonitorSnapshot } from './monitor';

export interface LockView {
  /** The key, escaped where it is not printable text. */
  readonly label: string;
  /** Owner and time left, e.g. `api-1#4711 · 4.2 s`. */
  readonly description: string;
  /** Markdown: the full token, TTL in ms, type, fencing counter, what a warning means. */
  readonly tooltip: string;
  /** A codicon id. */
  readonly icon: string;
  /** The entry is unsafe as it stands (no TTL, legacy timestamp lock): colour the icon. */
  readonly warning: boolean;
  /** One of CONTEXT_VALUES, for menus' `viewItem ==` clauses. */
  readonly contextValue: string;
}

/**
 * What menus may offer. `token` and `timestamp`: release with the value shown (the pack's
 * compare-and-delete, so a lock that changed hands is left alone); `token` also extends
 * (compare-and-extend, which gives a lock without TTL one). `hash`, `holder`, `other`: view only.
 */
export const CONTEXT_VALUES = {
  token: 'lock.token',
  timestamp: 'lock.timestamp',
  reentrant: 'lock.hash',
  holder: 'lock.holder',
  releasableHolder: 'lock.holder.releasable',
  readWrite: 'lock.readwrite',
  semaphore: 'lock.semaphore',
  other: 'lock.other',
} as const;

export type SortOrder = 'ttl' | 'key';

export function presentLock(lock: LockEntry, now: number): LockView {
  const view = presentKind(lock, now);
  const waiting = waitingCount(lock);
  if (!waiting) return view;
  const { subscribed, queued } = lock.waiters!;
  const counted = [
    queued && `${queued} queued`,
    subscribed && `${subscribed} client${subscribed === 1 ? '' : 's'} subscribed to its wake-ups`,
  ];
  return {
    ...view,
    description: `${view.description} · ${waiting} waiting`,
    tooltip: lines(view.tooltip, `Waiting: ${counted.filter(Boolean).join(', ')}`),
  };
}

function presentKind(lock: LockEntry, now: number): LockView {
  switch (lock.kind) {
    case 'token':
      return presentToken(lock, now);
    case 'timestamp':
      return presentTimestamp(lock, now);
    case 'reentrant':
      return presentReentrant(lock, now);
    case 'readwrite':
      return presentReadWrite(lock, now);
    case 'semaphore':
      return presentSemaphore(lock, now);
    case 'other':
      return presentOther(lock, now);
  }
}

const ROLE_TEXT = {
  read: 'reader',
  write: 'writer',
  wait: 'writer waiting for readers',
  hold: 'permit holder',
} as const;

/** A holder of a reentrant lock, a read-write lock or a semaphore, shown as the lock's child. */
export function presentHolder(lock: HeldByMany, holder: LockHolder, now: number): LockView {
  const left = holder.leftMs === undefined ? undefined : holder.leftMs - (now - lock.readAt);
  const lease = left === undefined ? undefined : left > 0 ? countdown(left) : 'expired';
  const role = holder.role && ROLE_TEXT[holder.role];
  return {
    label: holder.owner,
    description: [role ?? `entered ${holder.count}×`, lease].filter(Boolean).join(' · '),
    tooltip: lines(
      `**${role ? role[0].toUpperCase() + role.slice(1) : 'Holder'}** of ${code(escapeBytes(lock.key))}`,
      `Token: ${code(escapeBytes(holder.token))}`,
      holder.role
        ? `Own lease: ${lease ?? 'unknown'}`
        : `Reentrancy count: ${holder.count} (the holder must unlock as many times)`,
    ),
    icon: holder.role === 'wait' ? 'watch' : 'symbol-field',
    warning: false,
    // A waiting writer holds nothing to release.
    contextValue: holder.role === 'wait' ? CONTEXT_VALUES.holder : CONTEXT_VALUES.releasableHolder,
  };
}

/** Milliseconds left at `now` (negative once past); undefined when nothing makes it expire. */
export function remainingMs(lock: LockEntry, now: number): number | undefined {
  const byTtl = lock.pttl >= 0 ? lock.pttl - (now - lock.readAt) : undefined;
  if (lock.kind !== 'timestamp') return byTtl;
  const byValue = lock.expiresAt - now;
  return byTtl === undefined ? byValue : Math.min(byTtl, byValue);
}

/** A sorted copy: `ttl`, soonest to expire first and those without TTL last; `key`, by key bytes. */
export function sortLocks(locks: readonly LockEntry[], order: SortOrder, now: number): LockEntry[] {
  const byKey = (a: LockEntry, b: LockEntry) => Buffer.compare(a.key, b.key);
  if (order === 'key') return [...locks].sort(byKey);
  const left = new Map(locks.map((lock) => [lock, remainingMs(lock, now) ?? Infinity]));
  return [...locks].sort((a, b) => left.get(a)! - left.get(b)! || byKey(a, b));
}

/** The locks whose key, owner or token contains `text`, ignoring case; all of them for an empty `text`. */
export function filterLocks(locks: readonly LockEntry[], text: string): LockEntry[] {
  const needle = text.trim().toLowerCase();
  if (needle === '') return [...locks];
  return locks.filter((lock) => searchableText(lock).some((haystack) => haystack.toLowerCase().includes(needle)));
}

function searchableText(lock: LockEntry): string[] {
  const key = escapeBytes(lock.key);
  switch (lock.kind) {
    case 'token':
      return [key, lock.owner, escapeBytes(lock.token)];
    case 'timestamp':
      return [key];
    case 'reentrant':
    case 'readwrite':
    case 'semaphore':
      return [key, ...lock.holders.flatMap((holder) => [holder.owner, escapeBytes(holder.token)])];
    case 'other':
      return [key];
  }
}

function presentToken(lock: TokenLock, now: number): LockView {
  const noTtl = lock.pttl < 0;
  const heldWith = lock.heldWith ?? [];
  const others = heldWith.length;
  return {
    label: escapeBytes(lock.key),
    description: [
      lock.handoff ? `handed to ${lock.owner}, unconfirmed` : lock.owner,
      ttlText(lock, now),
      others > 0 ? `+ ${others} key${others === 1 ? '' : 's'}, same token` : undefined,
    ]
      .filter(Boolean)
      .join(' · '),
    tooltip: lines(
      `**${lock.handoff ? 'Token lock, handed over' : 'Token lock'}** ${code(escapeBytes(lock.key))}`,
      `Owner token: ${code(escapeBytes(lock.token))}`,
      lock.handoff ? HANDOFF_TEXT : undefined,
      others > 0
        ? `Held with ${heldWith.map((key) => code(escapeBytes(key))).join(', ')} by the same token: ` +
            'one owner holding several locks, as a multi-key lock does (all or nothing).'
        : undefined,
      ttlLine(lock, now),
      'Type: string',
      fenceLine(lock),
      noTtl ? NO_TTL_WARNING : undefined,
    ),
    icon: noTtl ? 'warning' : lock.handoff ? 'arrow-right' : 'lock',
    warning: noTtl,
    contextValue: CONTEXT_VALUES.token,
  };
}

const HANDOFF_TEXT =
  "Handed over by the previous holder's release (the pack's one-hop queue) to the first waiter in line, " +
  'whose token it holds for a short claim: the waiter confirms it with its next call (the lease above then ' +
  'becomes its own), or the claim lapses and the next waiter takes the lock.';

function presentTimestamp(lock: TimestampLock, now: number): LockView {
  const left = lock.expiresAt - now;
  const when = left > 0 ? `expires in ${countdown(left)}` : `expired ${countdown(-left)} ago`;
  return {
    label: escapeBytes(lock.key),
    description: when,
    tooltip: lines(
      `**Timestamp lock** ${code(escapeBytes(lock.key))}`,
      `Value: ${code(escapeBytes(lock.token))}, read as ${new Date(lock.expiresAt).toISOString()}: ${when}`,
      ttlLine(lock, now),
      'Type: string',
      fenceLine(lock),
      '⚠ **Legacy SETNX + GETSET lock.** The value is the time the lock expires. Once it has passed, ' +
        'any client may take the lock over with GETSET; two clients can race for it and it relies on ' +
        'synchronised clocks. Prefer `SET key token NX PX ttl` with a compare-and-delete release.',
    ),
    icon: 'history',
    warning: true,
    contextValue: CONTEXT_VALUES.timestamp,
  };
}

function presentReentrant(lock: ReentrantLock, now: number): LockView {
  const noTtl = lock.pttl < 0;
  const [first] = lock.holders;
  const others = lock.holderCount - 1;
  const holders = `${first.owner}${others > 0 ? ` +${others}` : ''}`;
  return {
    label: escapeBytes(lock.key),
    description: [lock.mode, holders, ttlText(lock, now)].filter(Boolean).join(' · '),
    tooltip: lines(
      `**Reentrant lock** ${code(escapeBytes(lock.key))} (Redisson-style hash${lock.mode ? `, ${lock.mode} mode` : ''})`,
      [
        `Holders: ${lock.holderCount}${lock.holders.length < lock.holderCount ? ` (${lock.holders.length} read)` : ''}`,
        ...lock.holders.map((holder) => `- ${code(escapeBytes(holder.field))} entered ${holder.count}×`),
      ].join('\n'),
      ttlLine(lock, now),
      'Type: hash',
      fenceLine(lock),
      noTtl ? NO_TTL_WARNING : undefined,
    ),
    icon: noTtl ? 'warning' : 'lock',
    warning: noTtl,
    contextValue: CONTEXT_VALUES.reentrant,
  };
}

function presentReadWrite(lock: ReadWriteLock, now: number): LockView {
  const readers = lock.holders.filter((holder) => holder.role === 'read');
  const writer = lock.holders.find((holder) => holder.role === 'write');
  const who =
    lock.mode === 'write'
      ? `write · ${writer!.owner}`
      : lock.mode === 'read'
        ? `read · ${readers.length} reader${readers.length === 1 ? '' : 's'}`
        : 'free';
  return {
    label: escapeBytes(lock.key),
    description: [who, lock.writerWaiting && 'writer waiting', ttlText(lock, now)].filter(Boolean).join(' · '),
    tooltip: lines(
      `**Read-write lock** ${code(escapeBytes(lock.key))} (the pack's: a sorted set of holders, each with its own lease)`,
      [
        `Mode: ${lock.mode}${lock.writerWaiting ? '; a writer waits, so new readers wait too' : ''}`,
        ...lock.holders.map((holder) => `- ${ROLE_TEXT[holder.role!]} ${code(escapeBytes(holder.token))}`),
      ].join('\n'),
      ttlLine(lock, now),
      'Type: zset',
    ),
    icon: lock.mode === 'write' ? 'lock' : 'unlock',
    warning: false,
    contextValue: CONTEXT_VALUES.readWrite,
  };
}

function presentSemaphore(lock: SemaphoreLock, now: number): LockView {
  const used = lock.holders.length;
  return {
    label: escapeBytes(lock.key),
    description: [`${used}/${lock.permits} permits`, ttlText(lock, now)].join(' · '),
    tooltip: lines(
      `**Semaphore** ${code(escapeBytes(lock.key))} (the pack's: each holder has its own lease, so a dead holder's permit comes back)`,
      [
        `Permits used: ${used} of ${lock.permits}`,
        ...lock.holders.map((holder) => `- ${code(escapeBytes(holder.token))}`),
      ].join('\n'),
      ttlLine(lock, now),
      'Type: zset',
    ),
    icon: used >= lock.permits ? 'lock' : 'unlock',
    warning: false,
    contextValue: CONTEXT_VALUES.semaphore,
  };
}

// By reason first, then by type.
const OTHER_ICONS: Record<string, string> = {
  fence: 'symbol-numeric',
  queue: 'watch',
  binary: 'file-binary',
  string: 'symbol-string',
  hash: 'symbol-object',
  list: 'list-ordered',
  set: 'symbol-array',
  zset: 'sort-precedence',
  stream: 'pulse',
};

function presentOther(lock: OtherKey, now: number): LockView {
  const size = sizeText(lock);
  return {
    label: escapeBytes(lock.key),
    description: [lock.type, size, lock.pttl >= 0 ? ttlText(lock, now) : undefined].filter(Boolean).join(' · '),
    tooltip: lines(
      `**Not a lock** ${code(escapeBytes(lock.key))}: ${OTHER_REASONS[lock.why](lock)}`,
      `Type: ${lock.type}${size ? `, ${size}` : ''}`,
      lock.pttl >= 0 ? ttlLine(lock, now) : 'No TTL',
      lock.preview ? `Preview: ${code(lock.preview)}` : undefined,
    ),
    // Own properties only: TYPE may answer a module type named `__proto__`.
    icon: ownIcon(lock.why) ?? ownIcon(lock.type) ?? 'symbol-misc',
    warning: false,
    contextValue: CONTEXT_VALUES.other,
  };
}

const OTHER_REASONS: Record<OtherKey['why'], (lock: OtherKey) => string> = {
  fence: () => 'a fencing counter, incremented on each acquisition of its lock.',
  empty: () => 'an empty string has no owner token to compare-and-delete with.',
  long: (lock) => `a string of ${formatBytes(lock.size ?? 0)} is too long to be an owner token.`,
  binary: () => 'not printable UTF-8 text, so not an owner token (shown escaped or as hex).',
  hash: () => 'a hash whose fields are not `<uuid>:<threadId>` lock holders.',
  queue: (lock) =>
    lock.type === 'hash'
      ? `the tickets of the clients queued for ${code(lock.preview)}: how long each counts as waiting, and who was handed the lock (the pack's one-hop queue).`
      : `the queue of clients waiting for ${code(lock.preview)}, in arrival order (the pack's queue_acquire and acquire_queued).`,
  value: () =>
    'its key is not named like a lock, and its value does not look like an owner token (host:pid:random, a UUID, a random id): data the lock patterns matched.',
  type: (lock) => `a ${lock.type} that matched a lock pattern.`,
};

function ownIcon(name: string): string | undefined {
  return Object.hasOwn(OTHER_ICONS, name) ? OTHER_ICONS[name] : undefined;
}

function sizeText(lock: OtherKey): string | undefined {
  if (lock.size === undefined) return undefined;
  if (lock.type === 'string') return formatBytes(lock.size);
  const unit = lock.type === 'hash' ? 'field' : lock.type === 'set' || lock.type === 'zset' ? 'member' : 'entry';
  return `${lock.size} ${lock.size === 1 ? unit : unit === 'entry' ? 'entries' : `${unit}s`}`;
}

const NO_TTL_WARNING =
  '⚠ **No TTL.** If the owner crashed, this lock is held until someone deletes it. Take locks with ' +
  "`SET key token NX PX ttl` (or the pack's `acquire.lua`), never SETNX followed by EXPIRE; Extend gives this one a TTL.";

function ttlText(lock: LockEntry, now: number): string {
  const left = remainingMs(lock, now);
  if (left === undefined) return 'no TTL';
  return left > 0 ? countdown(left) : 'expired';
}

function ttlLine(lock: LockEntry, now: number): string {
  if (lock.pttl < 0) return 'TTL: none';
  const ago = formatDuration(Math.max(0, now - lock.readAt));
  const left = lock.pttl - (now - lock.readAt);
  return `TTL: ${left > 0 ? `${Math.floor(left)} ms left` : 'ran out'} (PTTL ${lock.pttl} ms, read ${ago} ago)`;
}

function fenceLine(lock: LockEntry): string | undefined {
  return lock.fence && `Fencing counter: ${lock.fence.value} in ${code(escapeBytes(lock.fence.key))}`;
}

/**
 * A row's countdown: whole seconds (`<1 s`, `4 s`, `42 s`), then as formatDuration; rounded down,
 * so it never shows more than is left. A row changes once a second at most: a redraw closes its
 * tooltip, and VS Code shows one only after the pointer rested half a second on an unchanged row.
 */
export function countdown(ms: number): string {
  if (ms < 1_000) return '<1 s';
  return ms < 10_000 ? `${Math.floor(ms / 1_000)} s` : formatDuration(ms);
}

/** `4.2 s` under 10 s, then `42 s`, `12 min`, `5 h`, `3 d`; rounded down, so a countdown never shows more than is left. */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 10) return `${(Math.floor(seconds * 10) / 10).toFixed(1)} s`;
  if (seconds < 100) return `${Math.floor(seconds)} s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 2 * 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Markdown inline code that holds any text: a fence longer than any backtick run inside. */
export function code(text: string): string {
  // A loop, not Math.max(...runs): a key with 200k backtick runs would overflow the call stack.
  let longestRun = 0;
  for (const [run] of text.matchAll(/`+/g)) longestRun = Math.max(longestRun, run.length);
  const fence = '`'.repeat(longestRun + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text === '' ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Markdown paragraphs, skipping absent ones. */
function lines(...parts: (string | undefined)[]): string {
  return parts.filter((part) => part !== undefined).join('\n\n');
}

/**
 * How current a connection's listing is, for its tooltip: live from keyspace notifications, or
 * TTLs re-read every interval while new keys are found by scans on the budgeted schedule.
 */
export function describeFreshness(
  snapshot: Pick<MonitorSnapshot, 'live' | 'scannedAt' | 'nextScanAt'>,
  now: number,
  visible: boolean,
  intervalMs: number,
): string {
  if (snapshot.live.kind === 'notifications')
    return 'Live: keyspace notifications update changed locks as they happen.';
  if (!visible) return 'Not read while the Locks view is hidden.';
  const scanned = snapshot.scannedAt
    ? `keys scanned ${formatDuration(now - snapshot.scannedAt)} ago`
    : 'keys not scanned yet';
  const next = snapshot.nextScanAt ? `, next scan in ${formatDuration(Math.max(0, snapshot.nextScanAt - now))}` : '';
  return `${scanned}${next}; TTLs live (re-read every ${intervalMs / 1000} s). New keys are found by scans kept under 2 % of the server's time; Refresh scans at once. (${snapshot.live.reason})`;
}

/** Which commands Release and Extend run on a connection: the server's own (Valkey 9) or the pack's Lua. */
export function describePath(path: NativePath): string {
  const native = [path.release, path.extend].filter((command) => !command.endsWith('.lua'));
  return native.length
    ? `Release and extend run natively (${path.release}, ${path.extend}): no Lua, a fraction of the server time.`
    : "Release and extend run the pack's Lua scripts (this server has no DELIFEQ / SET IFEQ).";
}

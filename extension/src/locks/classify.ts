// What a key found by discovery is: a token lock, a legacy timestamp lock, a Redisson-style
// reentrant hash lock, or other data that merely matched a lock pattern. Pure: no Redis, no clock.
import { isUtf8 } from 'node:buffer';
import { lockOfQueuePart, parseMember, sortedSetKind, type WaiterTicket } from '../../../pack/layout';

/** What discovery read about one key, in one pipeline (so TTL and value belong together). */
export interface KeySnapshot {
  /** The exact key bytes: commands on the key (release, extend) must use these, not the label. */
  readonly key: Buffer;
  /** TYPE: `string`, `hash`, `list`, `set`, `zset`, `stream`, or a module type's name. */
  readonly type: string;
  /** PTTL in ms as read; -1: the key has no TTL. */
  readonly pttl: number;
  /** Date.now() when the PTTL was sent: a countdown from here never shows more time than is left. */
  readonly readAt: number;
  readonly value: ValueSample;
  /** The fencing counter kept next to the lock (see `fenceKeyFor`), if it exists. */
  readonly fence?: FenceCounter;
  /** Who waits for it, where that can be counted. */
  readonly waiters?: Waiters;
}

/** Waiters of a lock: clients subscribed to its wake-up channel (SHARDNUMSUB), and the pack's queue (ZCARD). */
export interface Waiters {
  readonly subscribed?: number;
  readonly queued?: number;
  /** The one-hop queue's tickets read (a sample of at most a few dozen): who waits, and who was handed the lock. */
  readonly tickets?: readonly QueueTicket[];
}

/** One waiter's ticket in the one-hop queue (queue_acquire / queue_release), as read. */
export interface QueueTicket extends WaiterTicket {
  readonly token: Buffer;
}

/** How many wait for `lock`: the queue when the lock has one, else the subscribed clients; undefined when uncounted or none. */
export function waitingCount(lock: KeySnapshot): number | undefined {
  const count = lock.waiters?.queued || lock.waiters?.subscribed;
  return count ? count : undefined;
}

export type ValueSample =
  /** `head` is the first bytes of the value, all of it when `head.length === length` (STRLEN). */
  | { readonly type: 'string'; readonly head: Buffer; readonly length: number }
  /** `fields` are all of them when `fields.length === length` (HLEN); a sample of a big hash otherwise. */
  | { readonly type: 'hash'; readonly fields: readonly HashField[]; readonly length: number }
  /** Sorted sets: their size and the first members with their scores (the pack's read-write locks and semaphores). */
  | { readonly type: 'sortedSet'; readonly members: readonly SortedSetMember[]; readonly length: number }
  /** Lists, sets, streams: their element count. */
  | { readonly type: 'collection'; readonly length: number }
  /** Module types and anything else TYPE may answer: nothing read. */
  | { readonly type: 'unread' };

export interface SortedSetMember {
  readonly member: Buffer;
  readonly score: number;
}

export interface HashField {
  readonly name: Buffer;
  readonly value: Buffer;
}

export interface FenceCounter {
  readonly key: Buffer;
  readonly value: bigint;
}

/** A string lock whose value is the owner's token: releasable and extendable with that token. */
export interface TokenLock extends KeySnapshot {
  readonly kind: 'token';
  /** The exact value, for compare-and-delete and compare-and-extend. */
  readonly token: Buffer;
  /** A short owner for display, from `shortOwner`. */
  readonly owner: string;
  /**
   * Handed over by a release of the one-hop queue and not confirmed yet: the holder's ticket says
   * `hand`, and the lock is its own until `claimEndsAt` (server ms) unless it confirms.
   */
  readonly handoff?: { readonly claimEndsAt: number };
  /** Other keys read with this one that hold the same token: one holder of several locks (a multi-key lock). */
  readonly heldWith?: readonly Buffer[];
}

/** The old SETNX + GETSET pattern: the value is a Unix time at which the lock expires. */
export interface TimestampLock extends KeySnapshot {
  readonly kind: 'timestamp';
  readonly token: Buffer;
  /** The value as epoch milliseconds. */
  readonly expiresAt: number;
}

/** Redisson's RLock shape: a hash of holders `<uuid>:<threadId>` to reentrancy counts. */
export interface ReentrantLock extends KeySnapshot {
  readonly kind: 'reentrant';
  /** The holders read; fewer than `holderCount` when only a sample of a big hash was read. */
  readonly holders: readonly LockHolder[];
  readonly holderCount: number;
  /** RReadWriteLock keeps its mode in a `mode` field. */
  readonly mode?: 'read' | 'write';
}

export interface LockHolder {
  /** The exact field (hash) or member (sorted set) bytes. */
  readonly field: Buffer;
  readonly owner: string;
  /** How many times the holder has entered the lock (1 for read-write locks and semaphores). */
  readonly count: number;
  /** The token to release with: the field of a hash lock, the member's token of a sorted set. */
  readonly token: Buffer;
  /** Read-write locks: reader, writer, or a writer waiting for readers to drain; semaphores: holder. */
  readonly role?: 'read' | 'write' | 'wait' | 'hold';
  /** Sorted sets: ms left of this holder's own lease when read. */
  readonly leftMs?: number;
}

/** The pack's read-write lock: readers with a lease each, or one writer; a waiting writer keeps new readers out. */
export interface ReadWriteLock extends KeySnapshot {
  readonly kind: 'readwrite';
  readonly holders: readonly LockHolder[];
  readonly mode: 'read' | 'write' | 'free';
  readonly writerWaiting: boolean;
}

/** The pack's semaphore: N permits, each holder with its own lease. */
export interface SemaphoreLock extends KeySnapshot {
  readonly kind: 'semaphore';
  readonly holders: readonly LockHolder[];
  readonly permits: number;
}

/** Anything else that matched a lock pattern: shown with its type, size and a safe preview. */
export interface OtherKey extends KeySnapshot {
  readonly kind: 'other';
  readonly why: OtherReason;
  /** Bytes for strings, fields or elements otherwise; undefined when not read. */
  readonly size?: number;
  /** Escaped text, or hex for bytes that are not UTF-8 text; may be cut short. */
  readonly preview: string;
}

export type OtherReason =
  | 'fence' // a fencing counter (see `fenceKeyFor`) that matched a lock pattern
  | 'empty' // an empty string: no token to compare
  | 'long' // a string too long to be a token
  | 'binary' // not UTF-8 text, or control characters
  | 'hash' // a hash whose fields are not lock holders
  | 'queue' // the pack's queue of waiters for a plain lock, or its tickets (preview: that lock's key)
  | 'value' // under a key not named like a lock, a value that does not look like an owner token
  | 'type'; // a list, set, sorted set, stream or module type

export type LockEntry = TokenLock | TimestampLock | ReentrantLock | ReadWriteLock | SemaphoreLock | OtherKey;

/** Entries whose children are their holders. */
export type HeldByMany = ReentrantLock | ReadWriteLock | SemaphoreLock;

export const isHeldByMany = (lock: LockEntry): lock is HeldByMany =>
  lock.kind === 'reentrant' || lock.kind === 'readwrite' || lock.kind === 'semaphore';

/** Longer string values are data, not tokens (a host:pid:random token is well under this). */
const TOKEN_MAX_BYTES = 256;
const PREVIEW_CHARS = 120;
const PREVIEW_BYTES = 48;

export function classifyKey(snapshot: KeySnapshot): LockEntry {
  const { value } = snapshot;
  switch (value.type) {
    case 'string':
      return classifyString(snapshot, value.head, value.length);
    case 'hash':
      return classifyHash(snapshot, value.fields, value.length);
    case 'sortedSet':
      return classifySortedSet(snapshot, value.members, value.length);
    case 'collection':
      return { ...snapshot, kind: 'other', why: 'type', size: value.length, preview: '' };
    case 'unread':
      return { ...snapshot, kind: 'other', why: 'type', preview: '' };
  }
}

function classifyString(snapshot: KeySnapshot, head: Buffer, length: number): LockEntry {
  const whole = head.length === length;
  const why = stringNotToken(snapshot.key, head, length);
  if (why !== undefined) {
    // Only other data gets a preview: most keys are locks, and a preview costs.
    const preview = previewBytes(whole ? head : withoutPartialChar(head));
    return { ...snapshot, kind: 'other', why, size: length, preview };
  }
  const text = head.toString('utf8');
  // Broad patterns (a workspace's `*`) match data too: there, only a token names an owner.
  if (!namedLikeLock(snapshot.key) && !tokenShaped(text)) {
    return { ...snapshot, kind: 'other', why: 'value', size: length, preview: previewBytes(head) };
  }
  const expiresAt = unixTimeMs(text);
  if (expiresAt !== undefined) return { ...snapshot, kind: 'timestamp', token: head, expiresAt };
  const handed = snapshot.waiters?.tickets?.find((ticket) => ticket.state === 'hand' && ticket.token.equals(head));
  return {
    ...snapshot,
    kind: 'token',
    token: head,
    owner: shortOwner(text),
    ...(handed && { handoff: { claimEndsAt: handed.until } }),
  };
}

/**
 * Marks the token locks among `entries` that hold the same token as others (`heldWith`): what a
 * multi-key lock (LockScripts.multi, multi_acquire.lua) looks like, one plain lock per key.
 */
export function linkSharedTokens(entries: LockEntry[]): LockEntry[] {
  const byToken = new Map<string, Buffer[]>();
  for (const entry of entries) {
    if (entry.kind !== 'token') continue;
    const id = entry.token.toString('latin1');
    byToken.set(id, [...(byToken.get(id) ?? []), entry.key]);
  }
  return entries.map((entry) => {
    if (entry.kind !== 'token') return entry;
    const keys = byToken.get(entry.token.toString('latin1'))!;
    return keys.length < 2 ? entry : { ...entry, heldWith: keys.filter((key) => key !== entry.key) };
  });
}

// Words that name a lock in a key: `lock:{orders:42}`, `report:lock`, `job-lock:x`, `orderLock`, `app.mutex`.
const LOCK_WORDS = new Set(['lock', 'locks', 'redlock', 'mutex', 'lease', 'semaphore']);

/** A key with a word that names a lock (as every key the default patterns match has), camelCase included. */
export function namedLikeLock(key: Buffer): boolean {
  const words = key
    .toString('latin1')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => LOCK_WORDS.has(word));
}

/** An owner token as lock libraries make them: host:pid:random, a UUID (Redisson's with a thread), random hex or base64. */
function tokenShaped(text: string): boolean {
  const redisson = HOLDER_FIELD.exec(text);
  return (
    HOST_PID_RANDOM.test(text) ||
    UUID.test(text) ||
    (redisson !== null && UUID.test(redisson[1])) ||
    RANDOM_HEX.test(text) ||
    RANDOM_BASE64.test(text)
  );
}

/** Why a string value is not a lock token, or undefined when it is one. */
function stringNotToken(key: Buffer, head: Buffer, length: number): OtherReason | undefined {
  if (isFenceKey(key)) return 'fence';
  if (length === 0) return 'empty';
  if (length > TOKEN_MAX_BYTES || head.length < length) return 'long';
  if (printableText(head) === undefined) return 'binary';
  return undefined;
}

// Redisson's holder field: `<connection manager uuid>:<thread id>`, `:write` for a write lock.
const HOLDER_FIELD = /^(.+):(\d+)(:write)?$/;
const COUNT = /^[1-9]\d{0,15}$/;

function classifyHash(snapshot: KeySnapshot, fields: readonly HashField[], length: number): LockEntry {
  const queueOf = lockOfQueuePart(snapshot.key);
  if (queueOf?.part === 'tickets') {
    return { ...snapshot, kind: 'other', why: 'queue', size: length, preview: escapeBytes(queueOf.lock) };
  }
  const lockNamed = namedLikeLock(snapshot.key);
  const holders: LockHolder[] = [];
  let mode: 'read' | 'write' | undefined;
  for (const { name, value } of fields) {
    const fieldName = printableText(name);
    const fieldValue = printableText(value);
    if (fieldName === 'mode' && (fieldValue === 'read' || fieldValue === 'write')) {
      mode = fieldValue;
      continue;
    }
    // A holder: Redisson's `<uuid>:<threadId>`, or the pack's owner token; its value a count. Under
    // a key not named like a lock only a token-shaped field holds (a hash of counters does not).
    const holderShaped = fieldName !== undefined && (lockNamed || tokenShaped(fieldName));
    if (!holderShaped || fieldValue === undefined || !COUNT.test(fieldValue) || /\s/.test(fieldName)) {
      const preview = fields.map((field) => `${previewBytes(field.name)}=${previewBytes(field.value)}`).join(' ');
      return { ...snapshot, kind: 'other', why: 'hash', size: length, preview: truncate(preview, PREVIEW_CHARS) };
    }
    // Redisson's `<uuid>:<threadId>`; anything else is the pack's owner token (`host:pid:random`).
    const redisson = HOLDER_FIELD.exec(fieldName);
    const owner =
      redisson && (UUID.test(redisson[1]) || redisson[3])
        ? truncate(`${shortOwner(redisson[1])}#${redisson[2]}`, HOST_PID_MAX_CHARS)
        : shortOwner(fieldName);
    holders.push({ field: name, token: name, owner, count: Number(fieldValue) });
  }
  if (holders.length === 0) return { ...snapshot, kind: 'other', why: 'hash', size: length, preview: '' };
  const holderCount = length - (mode === undefined ? 0 : 1);
  return { ...snapshot, kind: 'reentrant', holders, holderCount, mode };
}

/**
 * The pack's read-write locks and semaphores: members `<role>:<token>` scored by the end of each
 * holder's lease in server ms. The key expires with the longest lease, so the server's clock at
 * the read is that score minus the key's PTTL: each holder's time left follows from it.
 */
function classifySortedSet(snapshot: KeySnapshot, members: readonly SortedSetMember[], length: number): LockEntry {
  const queueOf = lockOfQueuePart(snapshot.key);
  if (queueOf?.part === 'waiters') {
    return { ...snapshot, kind: 'other', why: 'queue', size: length, preview: escapeBytes(queueOf.lock) };
  }
  const texts = members.map(({ member }) => printableText(member));
  const kind = texts.every((text): text is string => text !== undefined) ? sortedSetKind(texts) : undefined;
  if (!kind) return { ...snapshot, kind: 'other', why: 'type', size: length, preview: '' };
  const leases = members.map(({ score }) => score).filter(Number.isFinite);
  const serverNow = snapshot.pttl >= 0 && leases.length ? Math.max(...leases) - snapshot.pttl : undefined;
  const holders: LockHolder[] = [];
  let permits = 0;
  members.forEach(({ member, score }, i) => {
    const { role, token } = parseMember(texts[i]!)!;
    if (role === 'limit') {
      permits = Number(token);
      return;
    }
    holders.push({
      field: member,
      token: Buffer.from(token),
      owner: shortOwner(token),
      count: 1,
      role,
      ...(serverNow !== undefined && { leftMs: score - serverNow }),
    });
  });
  if (kind === 'semaphore') return { ...snapshot, kind: 'semaphore', holders, permits };
  const active = holders.filter((holder) => holder.role !== 'wait');
  const mode = active.some((holder) => holder.role === 'write') ? 'write' : active.length ? 'read' : 'free';
  return {
    ...snapshot,
    kind: 'readwrite',
    holders,
    mode,
    writerWaiting: holders.some((holder) => holder.role === 'wait'),
  };
}

/**
 * Where a lock's fencing counter lives, by convention:
 * - string locks (the pack's): the key's first `lock` segment (between start, end, `:` or `.`)
 *   replaced by `fence`: `lock:{order:42}` -> `fence:{order:42}`, `order:42:lock` -> `order:42:fence`.
 *   With a hash tag, as the pack's README advises, both keys share a slot in Cluster.
 * - hash locks: Redisson's FencedLock, `redisson_lock_token:{name}` (`redisson_lock_token:name`
 *   when the name already has a hash tag).
 */
export function fenceKeyFor(key: Buffer, type: string): Buffer | undefined {
  if (type === 'hash') {
    return key.includes(OPEN_BRACE)
      ? Buffer.concat([REDISSON_TOKEN, key])
      : Buffer.concat([REDISSON_TOKEN, OPEN_BRACE, key, CLOSE_BRACE]);
  }
  if (type !== 'string') return undefined;
  const at = segmentAt(key, LOCK);
  return at === -1 ? undefined : Buffer.concat([key.subarray(0, at), FENCE, key.subarray(at + LOCK.length)]);
}

/** A key named like a fencing counter by `fenceKeyFor`: a `fence` segment, or Redisson's token prefix. */
function isFenceKey(key: Buffer): boolean {
  return key.indexOf(REDISSON_TOKEN) === 0 || segmentAt(key, FENCE) !== -1;
}

/** Where `word` first stands as a whole segment of `key` (between start, end, `:` or `.`), or -1. */
function segmentAt(key: Buffer, word: Buffer): number {
  for (let at = key.indexOf(word); at !== -1; at = key.indexOf(word, at + 1)) {
    if (isSegmentEdge(key, at - 1) && isSegmentEdge(key, at + word.length)) return at;
  }
  return -1;
}

function isSegmentEdge(key: Buffer, i: number): boolean {
  return i < 0 || i >= key.length || key[i] === 0x3a || key[i] === 0x2e;
}

const LOCK = Buffer.from('lock');
const FENCE = Buffer.from('fence');
const REDISSON_TOKEN = Buffer.from('redisson_lock_token:');
const OPEN_BRACE = Buffer.from('{');
const CLOSE_BRACE = Buffer.from('}');

// Plausible lock expiry times: 2001-01-01 to 2100-01-01. Below that a number is more likely a
// pid or a counter ("1", "4711") than a timestamp.
const UNIX_MIN_S = 978_307_200;
const UNIX_MAX_S = 4_102_444_800;
const DECIMAL = /^[1-9]\d*(\.\d+)?$/;

/** `text` read as a Unix time in seconds or milliseconds, with or without decimals, in epoch ms. */
export function unixTimeMs(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const n = Number(text);
  if (n >= UNIX_MIN_S && n < UNIX_MAX_S) return Math.round(n * 1000);
  if (n >= UNIX_MIN_S * 1000 && n < UNIX_MAX_S * 1000) return Math.round(n);
  return undefined;
}

// host:pid:random, as the pack's README and the snippets make them.
const HOST_PID_RANDOM = /^([^:\s]+):(\d+):[0-9A-Za-z_-]+$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
// Random tokens: hex (redlock, redis-py's Lock) or base64 (redsync, python-redis-lock).
const RANDOM_HEX = /^[0-9a-f]{16,}$/i;
const RANDOM_BASE64 = /^(?=.*\d)[A-Za-z0-9+/_-]{16,}={0,2}$/;
const OWNER_MAX_CHARS = 24;
// host#pid in full up to this (host names run long: pods, cloud DNS), cut short beyond.
const HOST_PID_MAX_CHARS = 64;

/** A short owner for display: `host#pid`, the first 8 characters of a random id, or `text` cut short. */
export function shortOwner(text: string): string {
  const hostPid = HOST_PID_RANDOM.exec(text);
  if (hostPid) return truncate(`${hostPid[1]}#${hostPid[2]}`, HOST_PID_MAX_CHARS);
  if (UUID.test(text) || RANDOM_HEX.test(text) || RANDOM_BASE64.test(text)) return text.slice(0, 8);
  return truncate(escapeText(text), OWNER_MAX_CHARS);
}

/** `bytes` as text when they are UTF-8 with no control characters, else undefined. */
function printableText(bytes: Buffer): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  const text = bytes.toString('utf8');
  return UNSAFE_CHAR.test(text) ? undefined : text;
}

// Control characters, and the invisible ones that can make a label lie (bidi marks and
// overrides, zero width, line and paragraph separators): shown escaped so that what the tree
// shows is what the key holds.
const UNSAFE_CHAR = /[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const ESCAPED_CHARS = new RegExp(`\\\\|${UNSAFE_CHAR.source}`, 'g');
const NAMED_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  if (NAMED_ESCAPES[char]) return NAMED_ESCAPES[char];
  if (code >= 0x100) return `\\u{${code.toString(16)}}`;
  // C1 controls as their UTF-8 bytes (U+0085 is \xc2\x85, as redis-cli shows it): a lone \x85 is the byte 0x85.
  return Array.from(Buffer.from(char, 'utf8'), (byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
}

function escapeText(text: string): string {
  return text.replace(ESCAPED_CHARS, escapeChar);
}

/**
 * `bytes` as a readable, unambiguous string: UTF-8 text as is, but with backslashes, control
 * and invisible characters escaped; bytes that are not UTF-8 as `\xNN`, like redis-cli.
 */
export function escapeBytes(bytes: Buffer): string {
  if (isUtf8(bytes)) return escapeText(bytes.toString('utf8'));
  let out = '';
  for (const byte of bytes) {
    if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** Escaped text for UTF-8, spaced hex bytes otherwise; both cut short. */
function previewBytes(bytes: Buffer): string {
  if (isUtf8(bytes)) return truncate(escapeText(bytes.toString('utf8')), PREVIEW_CHARS);
  const hex = bytes
    .subarray(0, PREVIEW_BYTES)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');
  return bytes.length > PREVIEW_BYTES ? `${hex} …` : hex;
}

/** `bytes` without a UTF-8 character cut off at the end, so a prefix of text still reads as text. */
function withoutPartialChar(bytes: Buffer): Buffer {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const charLength = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return charLength > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}

/** `text` cut to `max` characters, the last one `…`; never inside a surrogate pair. */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

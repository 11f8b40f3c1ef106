// How the pack's locks look in Redis, for anyone who reads them (the Locks view) or waits on
// them: key types, member naming, the wake-up channel and the waiter queue's key. The scripts in
// scripts-lua/ write exactly this; scripts-lua/README.md documents it for other languages.

export type RedisName = string | Buffer;

/**
 * The kinds of lock the pack writes, by what their key holds:
 * - `plain`: a string holding the owner token (acquire, acquire_queued).
 * - `reentrant`: a hash {owner token: hold count}, one field while held.
 * - `rw`: a sorted set of `read:<token>`, `write:<token>` and `wait:<token>` members scored by
 *   the end of their lease in server ms (wait: a writer's intent that keeps new readers out).
 * - `semaphore`: a sorted set of `hold:<token>` members scored by the end of their lease in
 *   server ms, and one `limit:<N>` member scored +inf.
 */
export const LOCK_KINDS = ['plain', 'reentrant', 'rw', 'semaphore'] as const;
export type LockKind = (typeof LOCK_KINDS)[number];

/** Roles of sorted-set members: `<role>:<token>`. */
export const MEMBER_ROLES = { rw: ['read', 'write', 'wait'], semaphore: ['hold', 'limit'] } as const;
export type MemberRole = (typeof MEMBER_ROLES)[keyof typeof MEMBER_ROLES][number];

/** Splits a sorted-set member of an rw lock or a semaphore into its role and token (or N for `limit`). */
export function parseMember(member: string): { role: MemberRole; token: string } | undefined {
  const colon = member.indexOf(':');
  const role = member.slice(0, colon) as MemberRole;
  if (colon < 1 || ![...MEMBER_ROLES.rw, ...MEMBER_ROLES.semaphore].includes(role)) return undefined;
  return { role, token: member.slice(colon + 1) };
}

/**
 * Tells a sorted set written by the pack by its members: `rw` when every member is read:, write:
 * or wait:; `semaphore` when every member is hold: and there is one limit:<N>; else undefined.
 */
export function sortedSetKind(members: string[]): 'rw' | 'semaphore' | undefined {
  const roles = members.map((member) => parseMember(member)?.role);
  if (roles.length === 0 || roles.includes(undefined)) return undefined;
  if (roles.every((role) => (MEMBER_ROLES.rw as readonly string[]).includes(role!))) return 'rw';
  const limits = roles.filter((role) => role === 'limit').length;
  if (limits === 1 && roles.every((role) => role === 'hold' || role === 'limit')) return 'semaphore';
  return undefined;
}

/** Wake-up payloads (SPUBLISH message): wake one waiter per subscribed client, or all of them; any other payload is the token of the one waiter to wake. */
export const WAKE_ONE = '';
export const WAKE_ALL = '*';

/**
 * The sharded pub/sub channel on which the scripts that free `lock` wake its waiters: the lock
 * key's own name. Channels and keys are separate namespaces, and a channel hashes to its Cluster
 * slot like a key does, so this is in the lock's slot for every key name, hash tag or not (a
 * derived name cannot be: `a}b` or `{}x` have no other name in their slot short of a CRC16
 * collision). Subscribe with SSUBSCRIBE; count subscribed clients with PUBSUB SHARDNUMSUB.
 */
export function wakeChannel<T extends RedisName>(lock: T): T {
  return lock;
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }

/** The bytes Redis Cluster hashes for `key`: the first non-empty {...} tag, else the whole key. */
export function hashTag(key: RedisName): Buffer | undefined {
  const bytes = Buffer.from(key);
  const open = bytes.indexOf(OPEN);
  if (open < 0) return undefined;
  const close = bytes.indexOf(CLOSE, open + 1);
  if (close <= open + 1) return undefined;
  return bytes.subarray(open + 1, close);
}

/** The keys a plain lock's queue lives in, named after the lock with these suffixes. */
const QUEUE_SUFFIXES = { waiters: ':waiters', tickets: ':tickets' } as const;
export type QueuePart = keyof typeof QUEUE_SUFFIXES;

/** `lock` + `suffix` in the lock's slot: its hash tag kept, or the whole name made the tag. */
function queuePartKey<T extends RedisName>(lock: T, part: QueuePart): T | undefined {
  const bytes = Buffer.from(lock);
  const suffix = Buffer.from(QUEUE_SUFFIXES[part]);
  let name: Buffer;
  if (hashTag(bytes)) name = Buffer.concat([bytes, suffix]);
  else if (!bytes.includes(CLOSE)) name = Buffer.concat([Buffer.from('{'), bytes, Buffer.from('}'), suffix]);
  else return undefined;
  return (typeof lock === 'string' ? name.toString() : name) as T;
}

/**
 * The waiter queue of a plain lock (acquire_queued, queue_acquire, release, queue_release): a
 * sorted set in the lock's slot. `lock:{order:42}` -> `lock:{order:42}:waiters` (its tag kept);
 * `lock:order:42` -> `{lock:order:42}:waiters` (the whole name as the tag). A key with `}` and no
 * hash tag has no such name: undefined, and its waiters wake by the empty payload instead of by
 * place in a queue.
 */
export function waitersKey<T extends RedisName>(lock: T): T | undefined {
  return queuePartKey(lock, 'waiters');
}

/** The queued waiters' tickets of a plain lock (queue_acquire, queue_release): a hash named like waitersKey. */
export function ticketsKey<T extends RedisName>(lock: T): T | undefined {
  return queuePartKey(lock, 'tickets');
}

/**
 * The sharded channel on which queue_release wakes the queued waiters of one client: the lock's
 * tickets key name, ':' and `client`, the text of their tickets up to the first '.'. In the
 * lock's slot (the tickets key's hash tag), and heard by that client alone: a hand-over wakes
 * the two clients it names, not every client waiting on the lock.
 */
export function handoffChannel(tickets: RedisName, client: string): Buffer {
  return Buffer.concat([Buffer.from(tickets), Buffer.from(`:${client}`)]);
}

/** The plain lock whose queue `key` is part of, and which part, or undefined when it is none. */
export function lockOfQueuePart(key: Buffer): { lock: Buffer; part: QueuePart } | undefined {
  for (const part of Object.keys(QUEUE_SUFFIXES) as QueuePart[]) {
    const suffix = Buffer.from(QUEUE_SUFFIXES[part]);
    if (key.length <= suffix.length || !key.subarray(key.length - suffix.length).equals(suffix)) continue;
    const stem = key.subarray(0, key.length - suffix.length);
    const candidates = [stem];
    if (stem[0] === OPEN && stem[stem.length - 1] === CLOSE) candidates.push(stem.subarray(1, stem.length - 1));
    const lock = candidates.find((candidate) => queuePartKey(candidate, part)?.equals(key));
    if (lock) return { lock, part };
  }
  return undefined;
}

/**
 * A queued waiter's ticket, as queue_acquire and queue_release write it in the tickets hash:
 * waiting (live until `until`, server ms) or handed the lock (its claim ends at `until`).
 */
export interface WaiterTicket {
  state: 'wait' | 'hand';
  until: number;
  /** The claim lease asked for (waiting tickets only). */
  claimMs?: number;
  ticket: string;
}

export function parseTicket(entry: string): WaiterTicket | undefined {
  const wait = /^wait (\d+) (\d+) ([\w.-]+)$/.exec(entry);
  if (wait) return { state: 'wait', until: Number(wait[1]), claimMs: Number(wait[2]), ticket: wait[3] };
  const hand = /^hand (\d+) ([\w.-]+)$/.exec(entry);
  return hand ? { state: 'hand', until: Number(hand[1]), ticket: hand[2] } : undefined;
}

/**
 * A hand-over's wake-up (queue_release): the ticket of the waiter now holding the lock, the
 * server's time of the hand-over (ms), and the ticket of the live waiter after it.
 */
export function parseHandoff(payload: string): { handed: string; at: number; next?: string } | undefined {
  const match = /^hand ([\w.-]+) (\d+)(?: next ([\w.-]+))?$/.exec(payload);
  return match ? { handed: match[1], at: Number(match[2]), ...(match[3] && { next: match[3] }) } : undefined;
}

/** CRC16-CCITT (XMODEM), the checksum Redis Cluster takes mod 16384 for a key's slot. */
function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The Cluster slot of a key or sharded channel name. */
export function keySlot(key: RedisName): number {
  return crc16(hashTag(key) ?? Buffer.from(key)) % 16384;
}

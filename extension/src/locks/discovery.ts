// Finds lock keys on one Redis node, a page at a time: SCAN with MATCH and COUNT (never KEYS),
// then each key's type, TTL and a bounded sample of its value in pipelines. Every command is
// O(1) or bounded by a small COUNT, so none blocks a big production keyspace for long.
import type { ChainableCommander, Redis } from 'ioredis';
import {
  classifyKey,
  fenceKeyFor,
  linkSharedTokens,
  type FenceCounter,
  type HashField,
  type KeySnapshot,
  type LockEntry,
  type QueueTicket,
  type SortedSetMember,
  type ValueSample,
  type Waiters,
} from './classify';
import { escapeGlob, globMatches, literalRuns } from './glob';
import { MAX_SCAN_COUNT, type ScanPacer } from './schedule';
import { parseTicket, ticketsKey, waitersKey, wakeChannel } from '../../../pack/layout';

/**
 * Common lock key names, plus ShedLock's default `job-lock:` prefix. Redisson names its lock
 * hashes after the user's lock name with no prefix of its own, so no Redisson pattern can find
 * them without matching unrelated data; its locks show up when named like these.
 */
export const DEFAULT_LOCK_PATTERNS: readonly string[] = [
  'lock:*',
  'lock.*',
  'locks:*',
  '*:lock',
  '*:lock:*',
  'redlock:*',
  'job-lock:*',
];

export interface DiscoverOptions {
  /** Redis glob patterns (default DEFAULT_LOCK_PATTERNS); ignored with `after`, which keeps its own. */
  readonly patterns?: readonly (string | Buffer)[];
  /** At most this many locks in the page (default 200); Infinity reads every matching key. */
  readonly limit?: number;
  /** The previous page's `next`: go on where it stopped. Never changed, so a failed page can be retried. */
  readonly after?: DiscoveryCursor;
  /** Aborting rejects the page with `signal.reason` at once; commands already sent finish unread. */
  readonly signal?: AbortSignal;
  /** Sizes each SCAN step from the last ones' latency (the monitor keeps one per node); COUNT 1000 without. */
  readonly pacer?: ScanPacer;
}

export interface DiscoveryPage {
  /** Locks and other keys matching the patterns, in the order they were read; each key appears once across all pages. */
  readonly entries: LockEntry[];
  /** For "Load more": pass as `after`; undefined when the keyspace has been scanned through. */
  readonly next?: DiscoveryCursor;
}

/** Where a discovery stopped. Opaque: keep it and pass it back as `after`. */
export interface DiscoveryCursor {
  readonly scans: readonly ScanProgress[];
  /** Keys found by SCAN whose details are not read yet. */
  readonly found: readonly Buffer[];
  /** Keys found so far, one char per byte (latin1): SCAN may return a key twice, several patterns may match it. */
  readonly seen: ReadonlySet<string>;
}

export interface ScanProgress {
  readonly scan: PlannedScan;
  readonly cursor: string;
  readonly done: boolean;
}

/** One SCAN over the keyspace: MATCH `match`, and when it is wider than the patterns, keep only keys matching one of `patterns`. */
export interface PlannedScan {
  readonly match: Buffer;
  readonly patterns?: readonly Buffer[];
}

// Keys per detail pipeline, and pipelines in flight: enough to keep the connection busy while
// bounding what one burst asks of the server.
const DETAIL_BATCH = 256;
const DETAIL_PIPELINES = 4;
// A token is far shorter; a 1 MB value is not pulled whole.
const VALUE_HEAD_BYTES = 1024;
// The pack's read-write locks and semaphores are sorted sets of holders: the first members, by lease end.
const ZSET_MEMBERS = 32;
// HSCAN returns a small (listpack) hash whole whatever the COUNT, so this is HGETALL for small
// hashes and a sample of a few fields for big ones, without waiting for HLEN first. The one-hop
// queue's tickets are read the same way.
const HASH_FIELDS = 16;
// Patterns sharing a literal at least this long are scanned once with `*literal*`; a shorter
// one (`:`) would match most of the keyspace.
const MIN_SHARED_LITERAL = 4;
const DEFAULT_LIMIT = 200;

/** Reads one page of lock keys from `node`, starting where `options.after` stopped. */
export async function discoverLocks(node: Redis, options: DiscoverOptions = {}): Promise<DiscoveryPage> {
  options.signal?.throwIfAborted();
  const limit = checkLimit(options.limit);
  const start = options.after ?? startCursor(options.patterns ?? DEFAULT_LOCK_PATTERNS);
  const { entries, cursor } = await new PageRead(node, limit, start, options.pacer).run(options.signal);
  return { entries: linkSharedTokens(entries), next: hasMore(cursor) ? cursor : undefined };
}

/** The current details of `keys` on `node`, in the same pipelines as discovery; keys that are gone are left out. */
export async function readLocks(node: Redis, keys: readonly Buffer[], signal?: AbortSignal): Promise<LockEntry[]> {
  const { entries } = await new PageRead(node, Infinity, { scans: [], found: keys, seen: new Set() }).run(signal);
  return linkSharedTokens(entries);
}

function checkLimit(limit = DEFAULT_LIMIT): number {
  if (!(limit >= 1)) throw new RangeError(`limit must be at least 1, got ${limit}`);
  return limit;
}

function hasMore(cursor: DiscoveryCursor): boolean {
  return cursor.found.length > 0 || cursor.scans.some((scan) => !scan.done);
}

function startCursor(patterns: readonly (string | Buffer)[]): DiscoveryCursor {
  const scans = planScans(patterns.map((pattern) => Buffer.from(pattern)));
  return { scans: scans.map((scan) => ({ scan, cursor: '0', done: false })), found: [], seen: new Set() };
}

/**
 * The SCANs that cover `patterns`: patterns sharing a literal of 4+ bytes are merged into one
 * SCAN of `*literal*` filtered here with Redis's own glob rules, so the default patterns cost
 * one pass over the keyspace instead of one each. The others get a SCAN each.
 */
export function planScans(patterns: readonly Buffer[]): PlannedScan[] {
  const groups: { patterns: Buffer[]; literals: Buffer[] }[] = [];
  const unique = patterns.filter((pattern, i) => patterns.findIndex((other) => other.equals(pattern)) === i);
  next: for (const pattern of unique) {
    const literals = literalRuns(pattern);
    for (const group of groups) {
      const shared = longestSharedRun(group.literals, literals);
      if (shared.length >= MIN_SHARED_LITERAL) {
        group.patterns.push(pattern);
        group.literals = [shared];
        continue next;
      }
    }
    groups.push({ patterns: [pattern], literals });
  }
  return groups.map(({ patterns: [first, ...rest], literals }) =>
    rest.length === 0
      ? { match: first }
      : { match: Buffer.concat([STAR, escapeGlob(literals[0]), STAR]), patterns: [first, ...rest] },
  );
}

const STAR = Buffer.from('*');

function longestSharedRun(runs: readonly Buffer[], others: readonly Buffer[]): Buffer {
  let best: Buffer = Buffer.alloc(0);
  for (const run of runs) {
    for (let from = 0; from < run.length; from++) {
      for (let end = from + best.length + 1; end <= run.length; end++) {
        const candidate = run.subarray(from, end);
        if (!others.some((other) => other.includes(candidate))) break;
        best = candidate;
      }
    }
  }
  return best;
}

// Per type, the commands that sample a value: its size, and for strings and hashes the start.
// A string's size is its head's unless the head fills VALUE_HEAD_BYTES: only then is STRLEN
// asked, afterwards, which spares a command for nearly every lock.
const VALUE_READS: Record<string, (pipe: ChainableCommander, key: Buffer) => unknown> = {
  string: (pipe, key) => pipe.getrangeBuffer(key, 0, VALUE_HEAD_BYTES - 1),
  hash: (pipe, key) => pipe.hlen(key).hscanBuffer(key, 0, 'COUNT', HASH_FIELDS),
  list: (pipe, key) => pipe.llen(key),
  set: (pipe, key) => pipe.scard(key),
  zset: (pipe, key) => pipe.zcard(key).zrangeBuffer(key, 0, ZSET_MEMBERS - 1, 'WITHSCORES'),
  stream: (pipe, key) => pipe.xlen(key),
};

type Replies = [error: Error | null, result: unknown][];

/**
 * One page: SCANs (one per planned scan, each waiting for its own cursor) and detail
 * pipelines run side by side on the connection, so round trips overlap; scanning pauses once
 * enough keys are found for the page, and the rest is kept in the next cursor.
 */
class PageRead {
  private readonly entries: LockEntry[] = [];
  private readonly scans: { scan: PlannedScan; cursor: string; done: boolean; busy: boolean }[];
  private readonly found: Buffer[];
  private readonly seen: Set<string>;
  private keysInDetail = 0;
  private pipelinesInDetail = 0;
  private readonly tasks = new Set<Promise<void>>();
  private failure?: { error: unknown };
  private wake = () => {};

  constructor(
    private readonly node: Redis,
    private readonly limit: number,
    start: DiscoveryCursor,
    private readonly pacer?: ScanPacer,
  ) {
    this.scans = start.scans.map((progress) => ({ ...progress, busy: false }));
    this.found = [...start.found];
    this.seen = new Set(start.seen);
  }

  async run(signal?: AbortSignal): Promise<{ entries: LockEntry[]; cursor: DiscoveryCursor }> {
    const onAbort = () => this.wake();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        this.schedule();
        if (this.tasks.size === 0) break;
        await new Promise<void>((resolve) => (this.wake = resolve));
        signal?.throwIfAborted();
        if (this.failure) throw this.failure.error;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const cursor: DiscoveryCursor = {
      scans: this.scans.map(({ scan, cursor, done }) => ({ scan, cursor, done })),
      found: this.found,
      seen: this.seen,
    };
    return { entries: this.entries, cursor };
  }

  /** Locks the page still has room for, beyond those being read. */
  private get wanted(): number {
    return this.limit - this.entries.length - this.keysInDetail;
  }

  private schedule(): void {
    while (this.found.length > 0 && this.wanted > 0 && this.pipelinesInDetail < DETAIL_PIPELINES) {
      const keys = this.found.splice(0, Math.min(DETAIL_BATCH, this.wanted));
      this.keysInDetail += keys.length;
      this.pipelinesInDetail++;
      this.track(this.readDetails(keys), () => {
        this.keysInDetail -= keys.length;
        this.pipelinesInDetail--;
      });
    }
    if (this.found.length >= this.wanted) return;
    for (const scan of this.scans) {
      if (scan.done || scan.busy) continue;
      scan.busy = true;
      this.track(this.scanStep(scan), () => (scan.busy = false));
    }
  }

  private track(work: Promise<void>, settle: () => void): void {
    const task: Promise<void> = work
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => {
        settle();
        this.tasks.delete(task);
        this.wake();
      });
    this.tasks.add(task);
  }

  private async scanStep(scan: { scan: PlannedScan; cursor: string; done: boolean }): Promise<void> {
    const { match, patterns } = scan.scan;
    const count = this.pacer?.count ?? MAX_SCAN_COUNT;
    // Steps sent side by side queue behind each other on the server: each is charged its share.
    const sharing = this.scans.filter((other) => other.busy).length;
    const sent = performance.now();
    const [cursor, keys] = (await this.node.callBuffer('SCAN', scan.cursor, 'MATCH', match, 'COUNT', count)) as [
      Buffer,
      Buffer[],
    ];
    this.pacer?.record((performance.now() - sent) / Math.max(1, sharing));
    scan.cursor = cursor.toString();
    scan.done = scan.cursor === '0';
    for (const key of keys) {
      if (patterns && !patterns.some((pattern) => globMatches(pattern, key))) continue;
      const id = key.toString('latin1');
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      this.found.push(key);
    }
  }

  /** TYPE first, then per type the TTL, a bounded value sample and the fence counter; STRLEN last, for long strings only. */
  private async readDetails(keys: Buffer[]): Promise<void> {
    const typing = this.node.pipeline();
    for (const key of keys) typing.type(key);
    const types = (await typing.exec()) as Replies;

    const pipe = this.node.pipeline();
    const reads: {
      key: Buffer;
      type: string;
      at: number;
      valuesEnd: number;
      fenceKey?: Buffer;
      waitersAt?: number;
      queued?: boolean;
    }[] = [];
    keys.forEach((key, i) => {
      const [error, type] = types[i] as [Error | null, string];
      if (keyChanged(error) || type === 'none') return;
      const at = pipe.length;
      pipe.pttl(key);
      // Own keys only: a module type named `__proto__` must not reach Object.prototype.
      if (Object.hasOwn(VALUE_READS, type)) VALUE_READS[type](pipe, key);
      const valuesEnd = pipe.length;
      const fenceKey = fenceKeyFor(key, type);
      if (fenceKey) pipe.get(fenceKey);
      // Waiters, where they can be counted: clients subscribed to the lock's wake-up channel, and
      // the pack's queue of waiters for a plain lock.
      let waitersAt: number | undefined;
      let queued = false;
      if (LOCK_TYPES.has(type)) {
        waitersAt = pipe.length;
        pipe.call('PUBSUB', 'SHARDNUMSUB', wakeChannel(key));
        const queue = type === 'string' ? waitersKey(key) : undefined;
        if (queue) {
          // The queue's size, and its tickets: who was handed the lock and has not confirmed yet.
          pipe.zcard(queue).hscanBuffer(ticketsKey(key)!, 0, 'COUNT', HASH_FIELDS);
          queued = true;
        }
      }
      reads.push({ key, type, at, valuesEnd, fenceKey, waitersAt, queued });
    });
    if (reads.length === 0) return;
    const readAt = Date.now();
    const replies = (await pipe.exec()) as Replies;

    const sampled: KeySnapshot[] = [];
    for (const { key, type, at, valuesEnd, fenceKey, waitersAt, queued } of reads) {
      const [pttlError, pttl] = replies[at];
      const valueReplies = replies.slice(at + 1, valuesEnd);
      if (keyChanged(pttlError) || pttl === -2 || valueReplies.some(([error]) => keyChanged(error))) continue;
      const fence = fenceKey && fenceCounter(fenceKey, replies[valuesEnd]);
      const waiters =
        waitersAt === undefined
          ? undefined
          : waitersOf(replies[waitersAt], queued ? replies.slice(waitersAt + 1, waitersAt + 3) : undefined);
      sampled.push({
        key,
        type,
        pttl: pttl as number,
        readAt,
        value: valueSample(type, valueReplies),
        ...(fence && { fence }),
        ...(waiters && { waiters }),
      });
    }

    const lengths = await this.cutStringLengths(sampled);
    for (const snapshot of sampled) {
      const length = lengths.get(snapshot);
      const { value } = snapshot;
      this.entries.push(
        classifyKey(
          length !== undefined && value.type === 'string' ? { ...snapshot, value: { ...value, length } } : snapshot,
        ),
      );
    }
  }

  /** STRLEN of the strings whose head filled VALUE_HEAD_BYTES, the only ones that can be longer. */
  private async cutStringLengths(snapshots: KeySnapshot[]): Promise<Map<KeySnapshot, number>> {
    const lengths = new Map<KeySnapshot, number>();
    const cut = snapshots.filter(({ value }) => value.type === 'string' && value.head.length === VALUE_HEAD_BYTES);
    if (cut.length === 0) return lengths;
    const sizing = this.node.pipeline();
    for (const { key } of cut) sizing.strlen(key);
    const replies = (await sizing.exec()) as Replies;
    cut.forEach((snapshot, i) => {
      const [error, length] = replies[i];
      // At least what was read: 0 if the key was deleted since.
      if (!keyChanged(error)) lengths.set(snapshot, Math.max(length as number, VALUE_HEAD_BYTES));
    });
    return lengths;
  }
}

// Gone (TYPE none, PTTL -2), of another type, or moved to another node since SCAN saw it: the
// key is left for the next refresh. Other errors (NOPERM, ...) fail the page.
const KEY_CHANGED = /^(WRONGTYPE|MOVED|ASK) /;

function keyChanged(error: Error | null): boolean {
  if (error && !KEY_CHANGED.test(error.message)) throw error;
  return error !== null;
}

function valueSample(type: string, [first, second]: Replies): ValueSample {
  if (type === 'string') {
    const head = first[1] as Buffer;
    return { type: 'string', head, length: head.length };
  }
  if (type === 'hash') {
    const flat = (second[1] as [Buffer, Buffer[]])[1];
    const fields: HashField[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) fields.push({ name: flat[i], value: flat[i + 1] });
    return { type: 'hash', length: first[1] as number, fields };
  }
  if (type === 'zset') {
    const flat = second[1] as Buffer[];
    const members: SortedSetMember[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      members.push({ member: flat[i], score: Number(flat[i + 1].toString()) });
    return { type: 'sortedSet', length: first[1] as number, members };
  }
  if (Object.hasOwn(VALUE_READS, type)) return { type: 'collection', length: first[1] as number };
  return { type: 'unread' };
}

/** The types a lock of the pack's (or Redisson's) can have: where waiters are worth counting. */
const LOCK_TYPES = new Set(['string', 'hash', 'zset']);

/**
 * SHARDNUMSUB's [channel, count], the queue's ZCARD and its tickets' HSCAN. A server without
 * sharded pub/sub (before Redis 7) has no count: not an error. NOPERM and the rest fail the page,
 * like every other read.
 */
function waitersOf([subError, subReply]: Replies[number], queue: Replies | undefined): Waiters | undefined {
  if (subError && !/unknown (sub)?command/i.test(subError.message)) throw subError;
  const subscribed = subError ? undefined : Number((subReply as [unknown, number])[1]);
  const [size, scan] = queue ?? [];
  const queued = size && !keyChanged(size[0]) ? (size[1] as number) : undefined;
  const scanned: unknown = scan && !keyChanged(scan[0]) ? scan[1] : undefined;
  const tickets = Array.isArray(scanned) && Array.isArray(scanned[1]) ? ticketsOf(scanned[1]) : undefined;
  if (subscribed === undefined && queued === undefined && !tickets?.length) return undefined;
  return {
    ...(subscribed !== undefined && { subscribed }),
    ...(queued !== undefined && { queued }),
    ...(tickets?.length && { tickets }),
  };
}

/** HSCAN's flat [field, value, ...] of a tickets hash: the entries that read as tickets. */
function ticketsOf(flat: unknown[]): QueueTicket[] {
  const tickets: QueueTicket[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [token, entry] = [flat[i], flat[i + 1]];
    const ticket = Buffer.isBuffer(entry) ? parseTicket(entry.toString('latin1')) : undefined;
    if (ticket && Buffer.isBuffer(token)) tickets.push({ token, ...ticket });
  }
  return tickets;
}

const COUNTER = /^\d{1,19}$/;

/** The counter's value; a missing key, another type or a key in another slot (MOVED) means none. */
function fenceCounter(key: Buffer, [error, value]: Replies[number]): FenceCounter | undefined {
  return !error && typeof value === 'string' && COUNTER.test(value) ? { key, value: BigInt(value) } : undefined;
}

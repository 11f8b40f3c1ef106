// What the demo puts in Redis: the workers' plans (live locks through the pack) and the keys
// seeded once, one of each kind the Locks view tells apart.
import type Redis from 'ioredis';

export interface DemoLock {
  key: string;
  /** The fencing counter next to the lock (same hash tag, so the same Cluster slot). */
  fence?: string;
}

export interface WorkerPlan {
  /** The locks it contends for, one at a time. */
  locks: DemoLock[];
  /** The lease it takes and renews, in ms. */
  ttlMs: number;
  /** How long it holds a lock it got, a random time in [min, max] ms, extending every ttl/3; or until killed. */
  holdMs: [number, number] | 'until killed';
  /** How long it waits after a release or a refusal: a random time in [min, max] ms. */
  pauseMs: [number, number];
  /** Queue for the lock up to this long (the pack's acquire_queued: woken by the holder's release), rather than give up at once. */
  waitMs?: number;
}

const ORDER_42: DemoLock = { key: 'lock:{orders:42}', fence: 'fence:{orders:42}' };
const ORDER_43: DemoLock = { key: 'lock:{orders:43}', fence: 'fence:{orders:43}' };
const PAYMENT_7: DemoLock = { key: 'lock:{payments:7}' };
const DAILY_REPORT: DemoLock = { key: 'lock:{reports:daily}' };

/** The worker the demo SIGKILLs while it holds its one lock. */
export const DOOMED_WORKER = 'report-runner';
/** When the demo kills it, in ms after the Locks view first listed the locks: late enough to be seen. */
export const KILL_AFTER_MS = 20_000;

export const WORKER_PLANS = {
  // Two workers queue for the same order: while one holds it the other waits (the view's waiters
  // column), and each release wakes the waiter, which takes it at once (the handoff).
  'api-1': { locks: [ORDER_42], ttlMs: 10_000, holdMs: [2_000, 6_000], pauseMs: [300, 1_000], waitMs: 30_000 },
  'api-2': { locks: [ORDER_42], ttlMs: 10_000, holdMs: [2_000, 6_000], pauseMs: [300, 1_000], waitMs: 30_000 },
  // Long jobs under a short lease: the TTL visibly goes back up at each extension. It also
  // takes over the daily report once the killed worker's lease has run out.
  batch: { locks: [PAYMENT_7, ORDER_43, DAILY_REPORT], ttlMs: 6_000, holdMs: [8_000, 20_000], pauseMs: [1_000, 4_000] },
  // Holds its lock until the demo kills it: no release, no more extensions.
  [DOOMED_WORKER]: { locks: [DAILY_REPORT], ttlMs: 15_000, holdMs: 'until killed', pauseMs: [1_000, 1_000] },
} satisfies Record<string, WorkerPlan>;

export type WorkerName = keyof typeof WORKER_PLANS;

/** What a worker tells the demo over IPC. */
export interface HoldingMessage {
  holding: string;
}

// Redisson's defaults: a 30 s lease that its watchdog renews every 10 s.
const REDISSON_LEASE_MS = 30_000;
const REDISSON_WATCHDOG_MS = 10_000;
const REENTRANT_LOCK = 'lock:inventory';
const NIGHTLY_REPORT = 'lock:nightly-report';
const INVOICE_SYNC = 'lock:invoice-sync';
const HISTORY = 'locks:history';
const BITMAP = 'lock:shards:bitmap';
/** How long before the start the timestamp lock expired. */
const STALE_BY_S = 150;

/** The keys no worker touches, with what each is: legacy locks, a hash lock, data that only looks like a lock. */
export const SEEDED_KEYS = {
  [NIGHTLY_REPORT]: 'SETNX lock, no TTL',
  [INVOICE_SYNC]: `timestamp lock, expired ${STALE_BY_S} s before the start`,
  [REENTRANT_LOCK]: 'Redisson-style reentrant hash lock',
  [HISTORY]: 'a list, not a lock',
  [BITMAP]: 'binary, not a lock',
};

export async function seedKeys(redis: Redis, now = Date.now()): Promise<void> {
  await redis
    .multi()
    // SETNX with the EXPIRE never sent: held until someone deletes it.
    .setnx(NIGHTLY_REPORT, 'cron-02:8812:5f1c9a07d3e4b6a1')
    // SETNX + GETSET takeover: the value is when the lock expires.
    .set(INVOICE_SYNC, String(Math.floor(now / 1000) - STALE_BY_S))
    // Redisson's RLock: field `<connection manager uuid>:<thread id>`, value how often it was entered.
    .hset(REENTRANT_LOCK, '8743c9c0-0795-4907-87fd-6c719a6b4586:57', 2)
    .pexpire(REENTRANT_LOCK, REDISSON_LEASE_MS)
    .rpush(HISTORY, 'orders:42 taken by api-1', 'orders:42 released', 'payments:7 taken by batch')
    .set(BITMAP, Buffer.from([0x89, 0xff, 0x0f, 0x80, 0x00, 0xa5]))
    .exec();
}

/** Renews the hash lock's lease as Redisson's watchdog would, so it stays while the demo runs. */
export function startRedissonWatchdog(redis: Redis): NodeJS.Timeout {
  return setInterval(() => void redis.pexpire(REENTRANT_LOCK, REDISSON_LEASE_MS), REDISSON_WATCHDOG_MS);
}

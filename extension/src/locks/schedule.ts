// How often the Locks view may scan a node's whole keyspace for new lock keys, and how big each
// SCAN step may be, so that the view never costs a production server noticeably. Pure: the
// caller passes durations and times.

/** The view's share of a server's time that full scans may take. */
export const SCAN_BUDGET = 0.02;
/** Above this a scan waits no longer, budget or not: new locks still show up on huge keyspaces. */
export const MAX_SCAN_INTERVAL_MS = 5 * 60_000;

/**
 * When the next full scan of one node is due: `duration / SCAN_BUDGET` after the last one (a scan
 * of 700 ms waits 35 s), never sooner than the view's refresh interval and never later than
 * MAX_SCAN_INTERVAL_MS. The duration is the scan's wall time as the client saw it: it includes
 * the round trips, so the server's real share is lower.
 */
export class ScanSchedule {
  private lastAt?: number;
  private intervalMs = 0;

  /** Records a full scan that ended at `at` and took `durationMs`. */
  record(durationMs: number, at: number, minIntervalMs: number): void {
    this.lastAt = at;
    this.intervalMs = Math.min(MAX_SCAN_INTERVAL_MS, Math.max(minIntervalMs, durationMs / SCAN_BUDGET));
  }

  /** Never scanned, or the interval has passed. */
  due(now: number): boolean {
    return this.lastAt === undefined || now >= this.lastAt + this.intervalMs;
  }

  /** When the last full scan ended; undefined before the first. */
  get scannedAt(): number | undefined {
    return this.lastAt;
  }

  get nextAt(): number | undefined {
    return this.lastAt === undefined ? undefined : this.lastAt + this.intervalMs;
  }
}

/**
 * SCAN's COUNT: the most buckets one step may visit (about 0.7 ms of server time on 10^6 short
 * keys), the fewest it is lowered to, and where a node's first scan starts: small, since nothing
 * is known yet of its keys' length or its speed.
 */
export const MAX_SCAN_COUNT = 1000;
export const MIN_SCAN_COUNT = 10;
export const FIRST_SCAN_COUNT = 100;
/** A step whose server time (latency beyond the connection's round trip) exceeds this halves COUNT. */
export const SLOW_STEP_MS = 4;
/** A step this fast lets COUNT grow back towards MAX_SCAN_COUNT. */
const FAST_STEP_MS = 1;

/**
 * Sizes SCAN steps on one node so that none keeps the server busy for long. The server time of a
 * step is estimated as its latency minus the round trip, measured with a PING before each scan:
 * a distant server is not mistaken for a slow one, and a slow one is not mistaken for a distant one.
 */
export class ScanPacer {
  private current = FIRST_SCAN_COUNT;
  private roundTripMs = 0;

  get count(): number {
    return this.current;
  }

  /** Records the latency of a PING: what any command costs on this connection besides the server's work. */
  recordRoundTrip(latencyMs: number): void {
    this.roundTripMs = latencyMs;
  }

  /** Records one SCAN step that took `latencyMs` from send to reply. */
  record(latencyMs: number): void {
    const serverMs = latencyMs - this.roundTripMs;
    if (serverMs > SLOW_STEP_MS) this.current = Math.max(MIN_SCAN_COUNT, Math.floor(this.current / 2));
    else if (serverMs < FAST_STEP_MS) this.current = Math.min(MAX_SCAN_COUNT, Math.ceil(this.current * 1.5));
  }
}

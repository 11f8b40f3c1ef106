// One subscriber connection per LockScripts, shared by all its waiters: SSUBSCRIBE once per lock
// channel, and route each wake-up to the local waiter it is for. A subscription outlives its last
// waiter by `lingerMs`, so a lock under steady contention costs no SSUBSCRIBE/SUNSUBSCRIBE per wait.
import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { parseHandoff, WAKE_ALL, WAKE_ONE, type RedisName } from './layout';

type Subscriber = Redis | Cluster;

/**
 * Why a wait ended: its time passed, a wake-up (a release), queue_release naming this waiter
 * the next in line after a hand-over, or queue_release handing it the lock (server time `at`)
 * under the ticket `ticket`.
 */
export type Wake =
  { kind: 'timeout' } | { kind: 'woken' } | { kind: 'next' } | { kind: 'handed'; ticket: string; at: number };

const TIMEOUT: Wake = { kind: 'timeout' };
/** Which of two wake-ups that came between waits is kept: a hand-over, then a plain wake-up, then "next". */
const URGENCY: Record<Wake['kind'], number> = { timeout: 0, next: 1, woken: 2, handed: 3 };
const WOKEN: Wake = { kind: 'woken' };

class LocalWaiter {
  /** A wake-up that came while no wait was pending (the most urgent, by URGENCY). */
  private pending?: Wake;
  private resolve?: (wake: Wake) => void;

  /** `session`: the prefix of this waiter's queue_acquire tickets (`<session>.<n>`), if it queues so. */
  constructor(
    readonly token: Buffer,
    readonly session?: string,
  ) {}

  wake(wake: Wake = WOKEN): void {
    if (this.resolve) this.resolve(wake);
    else if (!this.pending || URGENCY[wake.kind] >= URGENCY[this.pending.kind]) this.pending = wake;
  }

  /** How the wait ended: woken now or since the last wait, handed the lock, or after `ms`; rejects when `signal` aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<Wake> {
    signal?.throwIfAborted();
    const pending = this.pending;
    if (pending) {
      this.pending = undefined;
      return Promise.resolve(pending);
    }
    return new Promise((resolve, reject) => {
      const finish = (wake: Wake) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.resolve = undefined;
        resolve(wake);
      };
      const onAbort = () => {
        finish(TIMEOUT);
        const reason: unknown = signal!.reason;
        reject(reason instanceof Error ? reason : new Error(String(reason)));
      };
      const timer = setTimeout(() => finish(TIMEOUT), Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.resolve = finish;
    });
  }
}

interface Channel {
  name: RedisName;
  waiters: LocalWaiter[];
  /** Settles when SSUBSCRIBE is confirmed (or failed: the waiters then run on their timers). */
  subscribed: Promise<void>;
  live: boolean;
  linger?: NodeJS.Timeout;
}

export interface Waiter {
  wait(ms: number, signal?: AbortSignal): Promise<Wake>;
  /** Leaves the channel; the last waiter starts the linger timer. */
  leave(): void;
}

export class Wakeups {
  /** This subscriber's part of its waiters' tickets, and of its hand-over channels' names (layout's handoffChannel). */
  readonly client = randomBytes(6).toString('hex');
  private sessions = 0;
  private subscriber?: Subscriber;
  private readonly channels = new Map<string, Channel>();

  constructor(
    private readonly connect: () => Subscriber,
    private readonly lingerMs: number,
  ) {}

  /** True when `channel` is subscribed and confirmed: a waiter joining now misses no wake-up. */
  isLive(channel: RedisName): boolean {
    if (this.channels.size === 0) return false;
    return this.channels.get(idOf(channel))?.live ?? false;
  }

  /**
   * Joins `channel` as the waiter with `token`, and with `queued` also its client's hand-over
   * channel (queue_release) as the waiter whose tickets are `<session>.<n>`; resolves once the
   * subscriptions are confirmed or have failed, or after `patienceMs` (a stalled subscriber must
   * not stall the waiter: its timer covers).
   */
  async join(
    channel: RedisName,
    token: RedisName,
    patienceMs: number,
    queued?: { session: string; handoffChannel: RedisName },
  ): Promise<Waiter> {
    const waiter = new LocalWaiter(Buffer.from(token), queued?.session);
    const names = queued ? [channel, queued.handoffChannel] : [channel];
    const joined = names.map((name) => {
      const id = idOf(name);
      let entry = this.channels.get(id);
      if (!entry) {
        const subscriber = this.ensureSubscriber();
        const created: Channel = { name, waiters: [], subscribed: Promise.resolve(), live: false };
        created.subscribed = subscriber.ssubscribe(name).then(
          () => void (created.live = true),
          () => undefined,
        );
        this.channels.set(id, (entry = created));
      }
      clearTimeout(entry.linger);
      entry.waiters.push(waiter);
      return { id, entry };
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(joined.map(({ entry }) => entry.subscribed)),
      new Promise((resolve) => (timer = setTimeout(resolve, patienceMs))),
    ]);
    clearTimeout(timer);
    return {
      wait: (ms, signal) => waiter.wait(ms, signal),
      leave: () => {
        for (const { id, entry } of joined) this.leave(id, entry, waiter);
      },
    };
  }

  /** A new waiter session for queue_acquire tickets, `<client>.<n>`: `<client>` names this subscriber's hand-over channels. */
  newSession(): string {
    return `${this.client}.${(this.sessions++).toString(36)}`;
  }

  /** Channels currently subscribed (waiters or lingering). */
  get subscriptions(): number {
    return this.channels.size;
  }

  close(): void {
    for (const entry of this.channels.values()) clearTimeout(entry.linger);
    this.channels.clear();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }

  private leave(id: string, entry: Channel, waiter: LocalWaiter): void {
    entry.waiters = entry.waiters.filter((other) => other !== waiter);
    if (entry.waiters.length > 0 || this.channels.get(id) !== entry) return;
    entry.linger = setTimeout(() => {
      if (entry.waiters.length > 0 || this.channels.get(id) !== entry) return;
      this.channels.delete(id);
      if (entry.live) this.subscriber?.sunsubscribe(entry.name).catch(() => undefined);
    }, this.lingerMs);
    entry.linger.unref();
  }

  private ensureSubscriber(): Subscriber {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.connect();
    // Reconnects resubscribe by themselves; wake-ups lost meanwhile are covered by the retry timers.
    subscriber.on('error', () => undefined);
    subscriber.on('smessageBuffer', (channel: Buffer, message: Buffer) => this.deliver(channel, message));
    this.subscriber = subscriber;
    return subscriber;
  }

  private deliver(channel: Buffer, message: Buffer): void {
    const waiters = this.channels.get(idOf(channel))?.waiters ?? [];
    const payload = message.toString('latin1');
    if (payload === WAKE_ALL) for (const waiter of waiters) waiter.wake();
    else if (payload === WAKE_ONE) waiters[0]?.wake();
    else {
      const named = waiters.find((waiter) => waiter.token.equals(message));
      if (named) return named.wake();
      const handoff = parseHandoff(payload);
      if (!handoff) return;
      const sessionOf = (ticket: string) => ticket.slice(0, ticket.lastIndexOf('.'));
      const handed = waiters.find((waiter) => waiter.session === sessionOf(handoff.handed));
      handed?.wake({ kind: 'handed', ticket: handoff.handed, at: handoff.at });
      const next = handoff.next ? waiters.find((waiter) => waiter.session === sessionOf(handoff.next!)) : undefined;
      next?.wake({ kind: 'next' });
    }
  }
}

/** Channel names as map keys, byte for byte. */
function idOf(name: RedisName): string {
  return Buffer.from(name).toString('latin1');
}

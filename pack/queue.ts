// The waiting acquire of a plain lock with a queue (queue_acquire / queue_release): one hop from
// release to the next holder. The release hands the lock to the first live waiter in the same
// call and the wake-up names that waiter's ticket; the waiter holds the lock from then on and
// confirms it (extends it to its lease) with one more call, sent at once. By default the caller
// gets the lock when that confirmation returns: its lease is then `ttlMs`, as for any acquire.
//
// With handoff: 'wake' the caller gets it at the wake-up instead, which saves the confirmation's
// round trip but leaves it, until the confirmation reaches the server, only what is left of the
// claim: a pause longer than that (a GC, a starved CPU: bench/soak.ts saw a 78 ms one on a
// loaded machine against a 50 ms claim) lets the next waiter in while it works. That is safe
// while the claim lasts. The claim began at the hand-over's server time `at`, after this waiter's last queued
// call, which the server ran at its time T and this client sent at `sentAt`. So on this client's
// clock the claim ends no sooner than sentAt + (at - T) + claimMs: the waiter takes the lock at
// the wake-up while at least half the claim is left by that reckoning (less a millisecond for
// the rounding of server times, and 0.1 % of the interval for clocks that run at other rates),
// else it waits for the confirmation. Each call carries a fresh ticket, and only a wake-up
// naming the ticket of the last call (none in flight) counts: one for an older call may describe
// a claim that a later call already confirmed or found gone.
import { handoffChannel, wakeChannel, type RedisName } from './layout';
import type { ReplicaWait } from './replicas';
import type { Wakeups, Waiter } from './wakeups';

export interface QueueKeys {
  waiters: RedisName;
  tickets: RedisName;
}

export interface QueueOptions {
  waitMs: number;
  signal?: AbortSignal;
  fence?: RedisName;
  /** Take a free lock only as the first live waiter (no barging); default false. */
  fair?: boolean;
  /** 'confirmed' (default): a hand-over is the caller's once its confirmation returns; 'wake': at the wake-up. */
  handoff?: 'wake' | 'confirmed';
  /** The attempt that takes the lock counts once replicas have it (waitForReplicas); a hand-over is then 'confirmed'. */
  replicas?: ReplicaWait;
}

export interface QueueHost {
  readonly retryMs: number;
  readonly claimMs: number;
  readonly wakeups: Wakeups;
  integers(name: 'queue_acquire', keys: RedisName[], args: (RedisName | number)[]): Promise<number[]>;
  replicatedIntegers(
    name: 'queue_acquire',
    keys: RedisName[],
    args: (RedisName | number)[],
    replicas: ReplicaWait,
    release: () => Promise<unknown>,
  ): Promise<number[]>;
  integer(name: 'queue_release', keys: RedisName[], args: (RedisName | number)[]): Promise<number>;
}

/** What a waiting acquire got: 0, 1 or the fencing token; `confirmation` when the lock was taken at the wake-up. */
export interface QueueOutcome {
  result: number;
  confirmation?: Promise<number>;
}

/** How long a waiter counts as live after each call: it calls at least every retry bound. */
export const aliveMs = (retryMs: number) => 2 * retryMs + 500;

export async function acquireInQueue(
  host: QueueHost,
  lock: RedisName,
  queue: QueueKeys,
  token: RedisName,
  ttlMs: number,
  options: QueueOptions,
): Promise<QueueOutcome> {
  const { waitMs, signal, fence, fair = false, handoff = 'confirmed', replicas } = options;
  signal?.throwIfAborted();
  const keys = [lock, queue.waiters, queue.tickets, ...(fence === undefined ? [] : [fence])];
  const session = host.wakeups.newSession();
  let calls = 0;
  let lastQueued: { ticket: string; sentAt: number; serverAt: number } | undefined;
  const attempt = async () => {
    const ticket = `${session}.${calls++}`;
    const sentAt = performance.now();
    const args = [token, ttlMs, aliveMs(host.retryMs), host.claimMs, ticket, fair ? 1 : 0];
    const [result, retryIn, , serverAt] = replicas
      ? await host.replicatedIntegers('queue_acquire', keys, args, replicas, giveUp)
      : await host.integers('queue_acquire', keys, args);
    if (result === 0) lastQueued = { ticket, sentAt, serverAt };
    return { result, retryIn };
  };
  const giveUp = () => host.integer('queue_release', [lock, queue.waiters, queue.tickets], [token]).catch(() => 0);
  // At the wake-up only without a fence (the fencing token comes with the confirmation) or a wait
  // for replicas (they acknowledge the confirmation), and with half the claim left at least (see above).
  const mine = ({ ticket, at }: { ticket: string; at: number }) => {
    if (handoff !== 'wake' || fence !== undefined || replicas || ticket !== lastQueued?.ticket) return false;
    const elapsed = performance.now() - lastQueued.sentAt;
    const left = host.claimMs + (at - lastQueued.serverAt) - elapsed - 1 - elapsed / 1000;
    return left >= host.claimMs / 2;
  };

  const deadline = performance.now() + waitMs;
  const channel = wakeChannel(lock);
  const handoffs = handoffChannel(queue.tickets, host.wakeups.client);
  const join = () => host.wakeups.join(channel, token, host.retryMs, { session, handoffChannel: handoffs });
  const live = host.wakeups.isLive(channel) && host.wakeups.isLive(handoffs);
  let waiter: Waiter | undefined = live ? await join() : undefined;
  try {
    let outcome = await attempt();
    while (outcome.result === 0) {
      const left = deadline - performance.now();
      if (left <= 0) {
        await giveUp();
        return { result: 0 };
      }
      if (!waiter) {
        // A wake-up may have gone out before the subscription: ask once more once subscribed.
        waiter = await join();
      } else {
        const jittered = host.retryMs * (0.5 + Math.random() / 2);
        const until = Math.min(left, jittered, outcome.retryIn >= 0 ? outcome.retryIn : Infinity);
        let wake = await waiter.wait(until, signal);
        // Next in line after a hand-over: ask again when that claim would lapse, unless handed first.
        while (wake.kind === 'next') {
          wake = await waiter.wait(Math.min(deadline - performance.now(), host.claimMs), signal);
        }
        if (wake.kind === 'handed' && mine(wake)) {
          const confirmation = attempt().then(({ result }) => result);
          confirmation.catch(() => undefined);
          return { result: 1, confirmation };
        }
      }
      outcome = await attempt();
    }
    return { result: outcome.result };
  } catch (error) {
    if (signal?.aborted) await giveUp();
    throw error;
  } finally {
    waiter?.leave();
  }
}

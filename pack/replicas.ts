// waitForReplicas (docs/dev/wait-for-replicas.md): an acquire that counts only once replicas have it. The
// acquire and `WAIT` (or `WAITAOF`) go in one pipeline on one connection, as WAIT counts the
// replicas that have this connection's writes: sent alone after a reconnection it would count
// on a connection that wrote nothing and answer "every replica" at once.
import type { RedisString } from './runtime';

export interface WaitForReplicas {
  /** Replicas that must acknowledge the acquire (WAIT numreplicas). Default 1. */
  replicas?: number;
  /** How long the server waits for them, ms; shorter than the lease, which it spends. Default 100. */
  timeoutMs?: number;
  /**
   * Wait for the disk instead: WAITAOF 1 replicas timeoutMs (the master's AOF and the replicas'
   * fsynced). Needs appendonly yes on them and a server with WAITAOF. Default false.
   */
  fsync?: boolean;
  /**
   * 'release' (default): a shortfall gives the lock back and the acquire rejects with a
   * ReplicaShortfallError. A callback: the lock is kept, the callback gets the shortfall.
   */
  onShortfall?: 'release' | ((shortfall: ReplicaShortfall) => void);
}

export type ShortfallReason =
  /** Fewer than `replicas` acknowledged within `timeoutMs`. */
  | 'timeout'
  /** The connection closed after the acquire and before the wait answered. */
  | 'connection-lost'
  /** `fsync` on a server without WAITAOF. */
  | 'no-waitaof'
  /** `fsync` on a master with appendonly no. */
  | 'aof-off';

export interface ReplicaShortfall {
  lock: RedisString;
  reason: ShortfallReason;
  required: number;
  /** Replicas that acknowledged; absent when the wait gave no count. */
  acknowledged?: number;
  /** With `fsync`: whether the master's AOF has it. */
  fsyncedLocally?: boolean;
  timeoutMs: number;
}

export class ReplicaShortfallError extends Error {
  override name = 'ReplicaShortfallError';

  constructor(
    readonly shortfall: ReplicaShortfall,
    /** False when the compare-and-delete could not run: the lock then ends with its lease. */
    readonly released: boolean,
  ) {
    super(
      `${describeShortfall(shortfall)}: ${released ? 'released' : 'could not be released (it ends with its lease)'}, not held. ${fix(shortfall)}`,
    );
  }
}

/** The option with its defaults, checked against the lease. */
export interface ReplicaWait {
  replicas: number;
  timeoutMs: number;
  fsync: boolean;
  onShortfall: 'release' | ((shortfall: ReplicaShortfall) => void);
}

/** Fills the defaults and checks the values; a bad one is a RangeError naming it, before anything is sent. */
export function replicaWait(option: WaitForReplicas, ttlMs: number): ReplicaWait {
  const { replicas = 1, timeoutMs = 100, fsync = false, onShortfall = 'release' } = option;
  if (!Number.isSafeInteger(replicas) || replicas < 1) {
    throw new RangeError(`waitForReplicas.replicas must be a positive integer, got ${String(replicas)}`);
  }
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new RangeError(
      `waitForReplicas.timeoutMs must be a positive integer of milliseconds, got ${String(timeoutMs)}`,
    );
  }
  if (timeoutMs >= ttlMs) {
    throw new RangeError(
      `waitForReplicas.timeoutMs (${timeoutMs}) must be shorter than the lease (${ttlMs} ms): the wait spends it`,
    );
  }
  if (typeof fsync !== 'boolean')
    throw new RangeError(`waitForReplicas.fsync must be true or false, got ${String(fsync)}`);
  if (onShortfall !== 'release' && typeof onShortfall !== 'function') {
    throw new RangeError(`waitForReplicas.onShortfall must be 'release' or a function, got ${String(onShortfall)}`);
  }
  return { replicas, timeoutMs, fsync, onShortfall };
}

/** The command that follows the acquire in its pipeline. */
export function waitCommand({ replicas, timeoutMs, fsync }: ReplicaWait): [string, ...number[]] {
  return fsync ? ['WAITAOF', 1, replicas, timeoutMs] : ['WAIT', replicas, timeoutMs];
}

/**
 * The shortfall the wait's reply (or error) means; undefined when the replicas acknowledged.
 * An error that is not the server's reply (the connection closed, the command was aborted) is a
 * lost connection; a server error other than WAITAOF's two is thrown (the caller gives the lock back first).
 */
export function shortfallOf(
  lock: RedisString,
  wait: ReplicaWait,
  error: Error | null,
  reply: unknown,
): ReplicaShortfall | undefined {
  const base = { lock, required: wait.replicas, timeoutMs: wait.timeoutMs };
  if (error) {
    if (error.name !== 'ReplyError') return { ...base, reason: 'connection-lost' };
    if (/^ERR unknown command/i.test(error.message)) return { ...base, reason: 'no-waitaof' };
    if (/appendonly is disabled/i.test(error.message)) return { ...base, reason: 'aof-off' };
    throw error;
  }
  if (wait.fsync) {
    const counts: unknown[] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const [local, acknowledged] = counts;
    if (typeof local !== 'number' || typeof acknowledged !== 'number') {
      throw new TypeError(`WAITAOF replied ${JSON.stringify(reply)}, not [numlocal, numreplicas]`);
    }
    if (local >= 1 && acknowledged >= wait.replicas) return undefined;
    return { ...base, reason: 'timeout', acknowledged, fsyncedLocally: local >= 1 };
  }
  if (typeof reply !== 'number') throw new TypeError(`WAIT replied ${JSON.stringify(reply)}, not a count of replicas`);
  return reply >= wait.replicas ? undefined : { ...base, reason: 'timeout', acknowledged: reply };
}

/** Whether a shortfall is a setting the server cannot honour: released whatever onShortfall says. */
export function isMisconfigured({ reason }: ReplicaShortfall): boolean {
  return reason === 'no-waitaof' || reason === 'aof-off';
}

export function describeShortfall(shortfall: ReplicaShortfall): string {
  const lock = typeof shortfall.lock === 'string' ? shortfall.lock : `0x${shortfall.lock.toString('hex')}`;
  const of = `${shortfall.required} replica${shortfall.required === 1 ? '' : 's'}`;
  switch (shortfall.reason) {
    case 'timeout':
      return shortfall.fsyncedLocally === undefined
        ? `${lock} was acknowledged by ${shortfall.acknowledged ?? 0} of ${of} within ${shortfall.timeoutMs} ms (WAIT)`
        : `${lock} was fsynced by ${shortfall.acknowledged ?? 0} of ${of}${shortfall.fsyncedLocally ? '' : ' and not by the master'} within ${shortfall.timeoutMs} ms (WAITAOF)`;
    case 'connection-lost':
      return `${lock}: the connection closed before the replicas acknowledged the acquire (it may not have reached any)`;
    case 'no-waitaof':
      return `${lock}: waitForReplicas.fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)`;
    case 'aof-off':
      return `${lock}: waitForReplicas.fsync needs appendonly yes on the master, which has it off`;
  }
}

function fix({ reason }: ReplicaShortfall): string {
  switch (reason) {
    case 'timeout':
      return 'Check the replicas (INFO replication: connected_slaves, their lag), or pass onShortfall to keep such locks';
    case 'connection-lost':
      return 'The master may be failing over: try again once the client has reconnected';
    case 'no-waitaof':
    case 'aof-off':
      return 'Turn fsync off (WAIT alone covers a failover) or enable the AOF';
  }
}

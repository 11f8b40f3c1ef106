// Calls the pack from Node through ioredis: EVALSHA, and on NOSCRIPT (after SCRIPT FLUSH,
// a restart or a failover) EVAL, which runs the script and caches it on that very node.
// That is SCRIPT LOAD + retry in one round trip, routed by key, so it is also right in Cluster.
import type { Cluster, Redis } from 'ioredis';
import { FencedWrites } from './fenced';
import { ReadWriteLocks, ReentrantLocks, Semaphores } from './kinds';
import { MultiLocks } from './multi';
import { loadedEverywhere, hasEveryScript, type LoadedScripts } from './loaded';
import { ticketsKey, waitersKey, wakeChannel } from './layout';
import { masterFor, masterNodes, nodeName, type RedisClient } from './nodes';
import {
  commonSupport,
  describePath,
  detectNative,
  nativeMiss,
  NO_NATIVE,
  type NativePath,
  type NativeSupport,
} from './native';
import { SCRIPT_NAMES, type Pack, type ScriptName } from './pack';
import { checkedReply, integerReply, integersReply, type ScriptReply } from './replies';
import { acquireInQueue, type QueueKeys } from './queue';
import { Wakeups, type Waiter } from './wakeups';

export type { RedisClient } from './nodes';
/** Keys and tokens are binary-safe: pass a Buffer for bytes that are not UTF-8. */
export type RedisString = string | Buffer;

export interface LockScriptsOptions {
  /**
   * Longest sleep of a waiting acquire between attempts, jittered down to half of it: the bound
   * on how late a waiter that missed its wake-up (or a lease that ended unreleased) is. Default 500.
   */
  retryMs?: number;
  /** How long a lock's channel stays subscribed after its last local waiter. Default 1000. */
  lingerMs?: number;
  /** The shared subscriber connection. Default: `redis.duplicate()` (a Cluster: with shardedSubscribers). */
  subscriber?: () => RedisClient;
  /** 'auto' (default): the native commands where every master has them; 'lua': always the scripts. */
  native?: 'auto' | 'lua';
  /**
   * How long a lock handed to one of this client's waiters stays its own unconfirmed (queue_release's
   * claim): what a waiter that died in the queue costs the others at most. Default 50.
   */
  claimMs?: number;
}

export interface WaitOptions {
  /** Wait up to this long for the lock (ms); 0 or absent: one attempt. */
  waitMs?: number;
  /** Cancels the wait: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface AcquireOptions extends WaitOptions {
  /** Fencing counter key (same hash slot as the lock): acquire replies the fencing token. */
  fence?: RedisString;
  /**
   * Fair: a free lock goes to the first live waiter in its queue, never to a caller behind it
   * or outside it (no barging). Default false: whoever asks first takes a free lock.
   */
  fair?: boolean;
  /**
   * When a lock handed over by a release is the caller's: 'confirmed' (default) once its
   * confirmation returns, with a lease of `ttlMs`; 'wake' at the wake-up, a round trip sooner,
   * with at least half the claim lease (`claimMs`) left until the confirmation, sent at once,
   * reaches the server: a pause longer than that lets the next waiter in (see pack/queue.ts).
   * With a fence, always 'confirmed'.
   */
  handoff?: 'wake' | 'confirmed';
}

/** One attempt of a waiting acquire: its result, whether it holds, and when the holder's lease ends. */
export interface Attempt<T> {
  result: T;
  held: boolean;
  retryInMs?: number;
}

// Releases remember, per lock and token, the waiter queue of a lock taken by waiting (bounded).
const MAX_REMEMBERED = 10_000;
/** How long a native release skips the wake-up after one that reached nobody. */
const QUIET_MS = 100;

export class LockScripts {
  readonly reentrant = new ReentrantLocks(this);
  readonly rw = new ReadWriteLocks(this);
  readonly semaphore = new Semaphores(this);
  /** Several plain locks taken all or nothing (pack/multi.ts). */
  readonly multi = new MultiLocks(this);
  /** Writes the storage refuses from a holder that lost the lock (pack/fenced.ts). */
  readonly fenced = new FencedWrites(this);
  readonly retryMs: number;
  readonly claimMs: number;
  readonly wakeups: Wakeups;
  private support?: Promise<NativeSupport>;
  /** `support` once settled: the hot path reads it without awaiting. */
  private supported?: NativeSupport;
  private readonly queued = new Map<string, QueueKeys>();
  /** Locks whose last wake-up after a native release reached nobody, until when to skip the next. */
  private readonly quietUntil = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    readonly pack: Pack,
    private readonly options: LockScriptsOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 500;
    this.claimMs = options.claimMs ?? 50;
    const subscriber =
      options.subscriber ??
      (() =>
        redis.isCluster
          ? (redis as Cluster).duplicate([], { shardedSubscribers: true })
          : (redis as Redis).duplicate({ lazyConnect: false }));
    this.wakeups = new Wakeups(subscriber, options.lingerMs ?? 1000);
  }

  /**
   * Takes `lock` for `token` with a lease of `ttlMs`, or refreshes it when `token` holds it.
   * Returns 0 when another owner holds it (after `waitMs`, when given); otherwise 1, or with
   * `fence` the fencing token. With `waitMs` (or `fair`) it waits in the lock's queue
   * (queue_acquire), where a release hands the lock straight to the first live waiter; it
   * retries at least every `retryMs`, and when the holder's lease ends.
   */
  async acquire(lock: RedisString, token: RedisString, ttlMs: number, options: AcquireOptions = {}): Promise<number> {
    const { fence, waitMs = 0, signal, fair = false } = options;
    signal?.throwIfAborted();
    if (waitMs <= 0 && !fair) return this.tryAcquire(lock, token, ttlMs, fence);
    const queue = queueKeys(lock);
    if (!queue) {
      const once = async (): Promise<Attempt<number>> => {
        const result = await this.tryAcquire(lock, token, ttlMs, fence);
        return { result, held: result !== 0 };
      };
      return this.waitFor(lock, token, options, once);
    }
    const { result } = await acquireInQueue(this, lock, queue, token, ttlMs, { ...options, waitMs });
    if (result !== 0) this.remember(lock, token, queue);
    return result;
  }

  /**
   * Compare-and-delete, waking a waiter. True when `token` held `lock` and it is now released.
   * A lock this client took by waiting: queue_release, which hands it to the first live waiter
   * in the same call. Otherwise, where every master has DELIFEQ (or DELEX IFEQ), that command
   * and in the same round trip SPUBLISH (the empty payload), unless the last wake-up this client
   * sent for the lock, less than QUIET_MS ago, reached nobody: then DELIFEQ alone, as the extra
   * command is a third of an uncontended acquire/release pair's cost (bench/lock-ops.ts), and a
   * waiter that arrived meanwhile is late by at most its retry bound. Else release.lua with the
   * lock key alone, which wakes with the empty payload from inside the script.
   */
  async release(lock: RedisString, token: RedisString): Promise<boolean> {
    const queue = this.forget(lock, token);
    if (queue === undefined) {
      // Valkey's DELIFEQ, else Redis 8.4's DELEX IFEQ: the same compare-and-delete.
      const deletes = [
        ['delifeq', (node: Redis) => node.call('DELIFEQ', lock, token)],
        ['delexIfeq', (node: Redis) => node.call('DELEX', lock, 'IFEQ', token)],
      ] as const;
      for (const [command, compareAndDelete] of deletes) {
        if (!(this.supported ?? (await this.nativeSupport()))[command]) continue;
        const native = await this.native(lock, command, async (node) => {
          const deleted = compareAndDelete(node);
          this.wakeAfterNativeRelease(node, lock);
          return (await deleted) === 1;
        });
        if (native !== undefined) return native;
      }
    }
    if (queue) return (await this.integer('queue_release', [lock, queue.waiters, queue.tickets], [token])) === 1;
    return (await this.integer('release', [lock], [token])) === 1;
  }

  /** Compare-and-extend. True when `token` holds `lock` and its TTL is now `ttlMs`. */
  async extend(lock: RedisString, token: RedisString, ttlMs: number): Promise<boolean> {
    if ((this.supported ?? (await this.nativeSupport())).setIfeq) {
      const native = await this.native(
        lock,
        'setIfeq',
        async (node) => (await node.call('SET', lock, token, 'PX', ttlMs, 'IFEQ', token)) === 'OK',
      );
      if (native !== undefined) return native;
    }
    return (await this.integer('extend', [lock], [token, ttlMs])) === 1;
  }

  /** True in a Cluster: keys of different slots live on different masters. */
  get sharded(): boolean {
    return this.redis.isCluster;
  }

  /**
   * MSETEX n key token ... NX PX ttlMs on the master of `keys` (one slot): true when it set them
   * all, false when any exists; undefined where the server has no MSETEX (the caller runs
   * multi_acquire.lua).
   */
  async setAllIfNone(keys: RedisString[], token: RedisString, ttlMs: number): Promise<boolean | undefined> {
    if (!(this.supported ?? (await this.nativeSupport())).msetex) return undefined;
    const pairs = keys.flatMap((key) => [key, token]);
    return this.native(keys[0], 'msetex', async (node) => {
      return (await node.call('MSETEX', keys.length, ...pairs, 'NX', 'PX', ttlMs)) === 1;
    });
  }

  /** Which command each plain-lock operation uses on this connection (every master, in a Cluster). */
  async path(): Promise<NativePath> {
    return describePath(await this.nativeSupport());
  }

  /**
   * The waiting loop every kind shares: attempt; on failure join the lock's channel (and attempt
   * again, as a wake-up may have gone out before the subscription); then sleep until woken, the
   * holder's lease ends or the jittered retry bound passes, and attempt again, until `waitMs`.
   */
  async waitFor<T>(
    lock: RedisString,
    token: RedisString,
    { waitMs = 0, signal }: WaitOptions,
    attempt: () => Promise<Attempt<T>>,
    giveUp?: () => Promise<void>,
  ): Promise<T> {
    signal?.throwIfAborted();
    const deadline = performance.now() + waitMs;
    const channel = wakeChannel(lock);
    let waiter: Waiter | undefined = this.wakeups.isLive(channel)
      ? await this.wakeups.join(channel, token, this.retryMs)
      : undefined;
    try {
      let outcome = await attempt();
      while (!outcome.held) {
        const left = deadline - performance.now();
        if (!waiter && left > 0) {
          waiter = await this.wakeups.join(channel, token, this.retryMs);
        } else {
          if (left <= 0) {
            await giveUp?.().catch(() => undefined);
            return outcome.result;
          }
          const jittered = this.retryMs * (0.5 + Math.random() / 2);
          await waiter!.wait(Math.min(left, jittered, outcome.retryInMs ?? Infinity), signal);
        }
        outcome = await attempt();
      }
      return outcome.result;
    } catch (error) {
      if (signal?.aborted) await giveUp?.().catch(() => undefined);
      throw error;
    } finally {
      waiter?.leave();
    }
  }

  /** Stops the shared subscriber connection (the client itself is the caller's). */
  close(): void {
    this.wakeups.close();
  }

  private async tryAcquire(lock: RedisString, token: RedisString, ttlMs: number, fence?: RedisString) {
    if (fence !== undefined || !(this.supported ?? (await this.nativeSupport())).setNxGet) {
      return this.integer('acquire', fence === undefined ? [lock] : [lock, fence], [token, ttlMs]);
    }
    const native = await this.native(lock, 'setNxGet', async (node) => {
      // A free lock is taken by SET NX; the same owner again refreshes it by compare-and-extend.
      for (let round = 0; round < 2; round++) {
        const holder = await node.callBuffer('SET', lock, token, 'NX', 'PX', ttlMs, 'GET');
        if (holder === null) return 1;
        if (!Buffer.from(token).equals(holder as Buffer)) return 0;
        if (await this.extend(lock, token, ttlMs)) return 1;
      }
      return 0;
    });
    return native ?? this.integer('acquire', [lock], [token, ttlMs]);
  }

  /** SPUBLISH after a native release, sent with it; remembers a wake-up that reached nobody. */
  private wakeAfterNativeRelease(node: Redis, lock: RedisString): void {
    const id = typeof lock === 'string' ? lock : `\0${lock.toString('hex')}`;
    const now = performance.now();
    if ((this.quietUntil.get(id) ?? 0) > now) return;
    node.call('SPUBLISH', wakeChannel(lock), '').then(
      (receivers) => {
        if (receivers !== 0) return void this.quietUntil.delete(id);
        if (this.quietUntil.size >= MAX_REMEMBERED) this.quietUntil.clear();
        this.quietUntil.set(id, now + QUIET_MS);
      },
      () => undefined,
    );
  }

  private nativeSupport(): NativeSupport | Promise<NativeSupport> {
    if (this.options.native === 'lua') return NO_NATIVE;
    if (this.supported) return this.supported;
    this.support ??= Promise.all(this.masters().map(detectNative))
      .then(commonSupport, () => NO_NATIVE)
      .then((support) => (this.supported = support));
    return this.support;
  }

  /** Runs `call` (which uses `command`) on the master that owns `lock`; undefined when it cannot (see nativeMiss). */
  private async native<T>(
    lock: RedisString,
    command: keyof NativeSupport,
    call: (node: Redis) => Promise<T>,
  ): Promise<T | undefined> {
    const node = masterFor(this.redis, lock);
    if (!node) return undefined;
    try {
      return await call(node);
    } catch (error) {
      const miss = nativeMiss(error);
      if (miss === undefined) throw error;
      // 'never': without this command from now on (one denial in the ACL LOG, not one per call).
      if (miss === 'never') this.supported = { ...(this.supported ?? NO_NATIVE), [command]: false };
      else this.support = this.supported = undefined;
      return undefined;
    }
  }

  private remember(lock: RedisString, token: RedisString, queue: QueueKeys): void {
    if (this.queued.size >= MAX_REMEMBERED) this.queued.clear();
    this.queued.set(rememberId(lock, token), queue);
  }

  private forget(lock: RedisString, token: RedisString): QueueKeys | undefined {
    if (this.queued.size === 0) return undefined;
    const id = rememberId(lock, token);
    const queue = this.queued.get(id);
    this.queued.delete(id);
    return queue;
  }

  /** Runs a script; its reply is one its header declares, else a ScriptReplyError. */
  async run(name: ScriptName, keys: RedisString[], args: (RedisString | number)[]): Promise<ScriptReply> {
    const script = this.pack[name];
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(script.sha1, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await this.redis.eval(script.source, keys.length, ...keys, ...args);
    }
    return checkedReply(script, reply);
  }

  /** `run` for a script that answers an integer. */
  async integer(name: ScriptName, keys: RedisString[], args: (RedisString | number)[]): Promise<number> {
    return integerReply(this.pack[name], await this.run(name, keys, args));
  }

  /** `run` for a script that answers an array of integers. */
  async integers(name: ScriptName, keys: RedisString[], args: (RedisString | number)[]): Promise<number[]> {
    return integersReply(this.pack[name], await this.run(name, keys, args));
  }

  /** SCRIPT LOAD every script on every master; returns the SHA1s Redis reported. */
  async load(): Promise<Record<ScriptName, string>> {
    const sources = SCRIPT_NAMES.map((name) => this.pack[name].source);
    const perNode = await Promise.all(
      this.masters().map((node) =>
        Promise.all(sources.map((source) => node.script('LOAD', source) as Promise<string>)),
      ),
    );
    return Object.fromEntries(SCRIPT_NAMES.map((name, i) => [name, perNode[0][i]])) as Record<ScriptName, string>;
  }

  /** SCRIPT EXISTS for every script: true only where every master has it cached. */
  async loaded(): Promise<LoadedScripts> {
    return loadedEverywhere(await this.loadedByMaster());
  }

  /** SCRIPT EXISTS for every script on each master, by its nodeName. */
  async loadedByMaster(): Promise<Map<string, LoadedScripts>> {
    const shas = SCRIPT_NAMES.map((name) => this.pack[name].sha1);
    const masters = this.masters();
    const perNode = await Promise.all(masters.map((node) => node.script('EXISTS', ...shas)));
    return new Map(
      masters.map((node, n) => {
        const flags = perNode[n];
        const exists = (i: number) => Array.isArray(flags) && flags[i] === 1;
        return [
          nodeName(this.redis, node),
          Object.fromEntries(SCRIPT_NAMES.map((name, i) => [name, exists(i)])) as LoadedScripts,
        ];
      }),
    );
  }

  /**
   * After a failover a promoted replica lacks the scripts (Redis does not replicate its script
   * cache): loads the pack on the masters missing any of it, when another master has all of it.
   * Returns the masters loaded. A pack the user never loaded is left unloaded.
   */
  async loadWhereMissing(): Promise<string[]> {
    const byMaster = await this.loadedByMaster();
    if (![...byMaster.values()].some(hasEveryScript)) return [];
    const missing = this.masters().filter((node) => !hasEveryScript(byMaster.get(nodeName(this.redis, node))!));
    await Promise.all(
      missing.flatMap((node) => SCRIPT_NAMES.map((name) => node.script('LOAD', this.pack[name].source))),
    );
    return missing.map((node) => nodeName(this.redis, node));
  }

  private masters(): Redis[] {
    return masterNodes(this.redis);
  }
}

function rememberId(lock: RedisString, token: RedisString): string {
  return `${Buffer.from(lock).toString('base64')} ${Buffer.from(token).toString('base64')}`;
}

/** The keys of a plain lock's queue, or undefined for a key with no same-slot queue names. */
function queueKeys(lock: RedisString): QueueKeys | undefined {
  const waiters = waitersKey(lock);
  const tickets = ticketsKey(lock);
  return waiters && tickets ? { waiters, tickets } : undefined;
}

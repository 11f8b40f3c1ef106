// Keyspace notifications for the lock patterns, on every data node of a connection: whether the
// server publishes them, subscribing, and (only when the user confirmed) turning them on.
// No `vscode`.
import type { Redis } from 'ioredis';

/** What the view needs from a connection (a Session): its data nodes and their names. */
export interface MonitorSource {
  readonly db: number;
  masters(): Redis[];
  nodeName(node: Redis): string;
  /** Runs `action` on every node, replicas included: where notify-keyspace-events is set. */
  onEveryNode<T>(action: (node: Redis) => Promise<T>): Promise<T[]>;
}

/** How the listing stays current: pushed by the server, or re-read on the view's timer. */
export type LiveMode =
  | { kind: 'notifications' }
  /** `enable`: the flags to CONFIG SET, when CONFIG GET worked and only the flags are missing. */
  | { kind: 'polling'; reason: string; enable?: string };

/** One notification: `event` is Redis's name for it (`set`, `del`, `expired`, `hincrby`, ...). */
export interface KeyEvent {
  key: Buffer;
  node: Redis;
  event: string;
}

// The event classes the view needs: K keyspace channels, g generic (del, expire, rename),
// $ string (set), x expired. `h` (hash) is added when enabling, for hash locks.
const NEEDED = ['K', 'g', '$', 'x'];
const ENABLE = [...NEEDED, 'h'];
const ALL_CLASSES = 'g$lshzxetd';

/** The flags the view needs that `flags` (the value of notify-keyspace-events) lacks. */
export function missingLockEvents(flags: string): string[] {
  const expanded = flags.replace('A', ALL_CLASSES);
  return NEEDED.filter((flag) => !expanded.includes(flag));
}

/** `flags` with what the view needs added; nothing the user set is removed. */
export function withLockEvents(flags: string): string {
  const expanded = flags.replace('A', ALL_CLASSES);
  return flags + ENABLE.filter((flag) => !expanded.includes(flag)).join('');
}

export class KeyspaceEvents {
  private mode: LiveMode = { kind: 'polling', reason: 'not started' };
  private subscribers: Redis[] = [];
  /** Bumped by every start and stop: an older start that finishes late backs off. */
  private generation = 0;

  constructor(
    private readonly source: MonitorSource,
    private readonly patterns: () => readonly string[],
    private readonly handlers: {
      /** A key matching the patterns changed. */
      change(event: KeyEvent): void;
      /** A subscriber lost its connection: events published from now until it is back are lost. */
      lost(): void;
      /** A subscriber reconnected: events published while it was away are lost. */
      resubscribed(): void;
    },
    private readonly log: (line: string) => void,
  ) {}

  get live(): LiveMode {
    return this.mode;
  }

  /**
   * Subscribes on every data node when each publishes the events; otherwise stays on polling and
   * says why. Call again after a reconnect or a failover: the new nodes are checked and
   * subscribed, the old subscriptions dropped.
   */
  async start(): Promise<LiveMode> {
    this.stop();
    const generation = ++this.generation;
    const nodes = this.source.masters();
    let mode: LiveMode = { kind: 'notifications' };
    try {
      for (const node of nodes) {
        const [, flags = ''] = (await node.config('GET', 'notify-keyspace-events')) as string[];
        const missing = missingLockEvents(flags);
        if (missing.length) {
          const reason = `${this.source.nodeName(node)} has notify-keyspace-events '${flags}', without ${missing.join('')}`;
          mode = { kind: 'polling', reason, enable: withLockEvents(flags) };
          break;
        }
      }
      if (mode.kind === 'notifications') await Promise.all(nodes.map((node) => this.subscribe(node)));
    } catch (error) {
      // A browse-only ACL user, or a managed service that hides CONFIG: polling is all there is.
      mode = { kind: 'polling', reason: `cannot use keyspace notifications (${(error as Error).message})` };
    }
    // A later call (a reconnect while this one ran) or stop() owns the subscriptions now.
    if (generation !== this.generation) return this.mode;
    if (mode.kind === 'polling') this.stop();
    this.mode = mode;
    this.log(mode.kind === 'notifications' ? 'live: keyspace notifications' : `live: polling, ${mode.reason}`);
    return mode;
  }

  private async subscribe(node: Redis): Promise<void> {
    const subscriber = node.duplicate({ connectionName: 'redis-locksmith-events', lazyConnect: true });
    this.subscribers.push(subscriber);
    subscriber.on('error', () => {}); // the data connection reports the same outage
    const prefix = `__keyspace@${this.source.db}__:`;
    const prefixBytes = Buffer.byteLength(prefix);
    subscriber.on('pmessageBuffer', (_pattern: Buffer, channel: Buffer, event: Buffer) => {
      this.handlers.change({ key: channel.subarray(prefixBytes), node, event: event.toString() });
    });
    let ready = false;
    subscriber.on('ready', () => {
      if (ready) this.handlers.resubscribed();
      ready = true;
    });
    // Unless stop() disconnected it on purpose.
    subscriber.on('close', () => ready && this.subscribers.includes(subscriber) && this.handlers.lost());
    await subscriber.connect();
    await subscriber.psubscribe(...this.patterns().map((pattern) => `${prefix}${pattern}`));
  }

  stop(): void {
    this.generation++;
    for (const subscriber of this.subscribers) subscriber.disconnect();
    this.subscribers = [];
    this.mode = { kind: 'polling', reason: 'stopped' };
  }

  /**
   * Sets notify-keyspace-events to each node's current flags plus the ones the view needs, on
   * every node (a Cluster's replicas too, so a promoted replica keeps publishing), then
   * subscribes. Only on the user's explicit confirmation: it changes the server's config.
   */
  async enable(): Promise<LiveMode> {
    await this.source.onEveryNode(async (node) => {
      const [, flags = ''] = (await node.config('GET', 'notify-keyspace-events')) as string[];
      if (missingLockEvents(flags).length) await node.config('SET', 'notify-keyspace-events', withLockEvents(flags));
    });
    return this.start();
  }
}

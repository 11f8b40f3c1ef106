// The replication picture that matters for locks, from INFO replication: the replicas a failover
// could promote and how far behind each is (a lock taken in that window is lost with the master),
// and whether the master refuses writes without enough good replicas (min-replicas-to-write).
// Read alongside the view's own reads of each data node (monitor.ts). No `vscode`.
import { formatBytes, formatDuration } from './present';

export interface ReplicaLag {
  /** `ip:port` as the master lists it. */
  address: string;
  /** online, wait_bgsave, send_bulk... */
  state: string;
  /** The master's replication offset minus what the replica last acknowledged (replicas acknowledge once a second). */
  behindBytes: number;
  /** Seconds since the replica's last acknowledgement. */
  lagSeconds: number;
}

export interface ReplicationPicture {
  /** When INFO replication was read (epoch ms). */
  readAt: number;
  role: 'master' | 'replica';
  /** A master's replicas; empty for a replica. */
  replicas: ReplicaLag[];
  /**
   * With min-replicas-to-write set, the replicas the master counts as good (lag within
   * min-replicas-max-lag); undefined when it is not set. INFO says this, not the setting itself.
   */
  goodReplicas?: number;
  /** A replica's master (`host:port`) and whether its link is up. */
  master?: { address: string; linkUp: boolean };
}

/** The picture in an INFO replication reply; undefined when the reply has no role (not INFO replication). */
export function parseReplication(text: string, readAt: number): ReplicationPicture | undefined {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  const role = fields.get('role');
  if (role === 'slave' || role === 'replica') {
    const address = `${fields.get('master_host') ?? '?'}:${fields.get('master_port') ?? '?'}`;
    return {
      readAt,
      role: 'replica',
      replicas: [],
      master: { address, linkUp: fields.get('master_link_status') === 'up' },
    };
  }
  if (role !== 'master') return undefined;
  const offset = Number(fields.get('master_repl_offset') ?? 0);
  const replicas: ReplicaLag[] = [];
  for (const [name, value] of fields) {
    if (!/^slave\d+$/.test(name)) continue;
    const entry = new Map(value.split(',').map((pair) => pair.split('=') as [string, string]));
    // Valkey lists a dual-channel sync's RDB connection too: one replica, not two.
    if ((entry.get('type') ?? 'replica') !== 'replica') continue;
    replicas.push({
      address: `${entry.get('ip') ?? '?'}:${entry.get('port') ?? '?'}`,
      state: entry.get('state') ?? '?',
      behindBytes: Math.max(0, offset - Number(entry.get('offset') ?? 0)),
      lagSeconds: Number(entry.get('lag') ?? NaN),
    });
  }
  const good = fields.get('min_slaves_good_slaves') ?? fields.get('min_replicas_good_replicas');
  return { readAt, role: 'master', replicas, goodReplicas: good === undefined ? undefined : Number(good) };
}

/**
 * The tooltip's lines: per data node (`name`: host:port), its replicas and how far behind each
 * is, and min-replicas-to-write when set; how old the reading is. Nodes never read say so.
 */
export function describeReplication(
  nodes: readonly { name: string; replication?: ReplicationPicture }[],
  now: number,
): string[] {
  const read = nodes.filter((node) => node.replication);
  if (!read.length) return nodes.length ? ['Replication: not read yet.'] : [];
  const lines = read.map(({ name, replication }) => describeNode(name, replication!, nodes.length > 1));
  const oldest = Math.min(...read.map(({ replication }) => replication!.readAt));
  const unread = nodes.length - read.length;
  lines.push(
    `Replication read ${formatDuration(Math.max(0, now - oldest))} ago${unread ? `; ${unread} node${unread === 1 ? '' : 's'} not read yet` : ''}. ` +
      'A lock is lost in a failover when the promoted replica had not received it: waitForReplicas makes acquires wait for a replica.',
  );
  return lines;
}

function describeNode(name: string, picture: ReplicationPicture, named: boolean): string {
  const prefix = named ? `${name}: ` : 'Replication: ';
  if (picture.role === 'replica') {
    const { address, linkUp } = picture.master!;
    return `${prefix}a replica of ${address} (link ${linkUp ? 'up' : 'down'}): locks cannot be taken here.`;
  }
  if (!picture.replicas.length) {
    return `${prefix}no replica: nothing to fail over to; locks live on this master alone.`;
  }
  const replicas = picture.replicas.map(
    ({ address, state, behindBytes, lagSeconds }) =>
      `${address} ${state}, ${formatBytes(behindBytes)} behind, acknowledged ${Number.isFinite(lagSeconds) ? `${lagSeconds} s` : '?'} ago`,
  );
  const count = `${picture.replicas.length} replica${picture.replicas.length === 1 ? '' : 's'}`;
  const minimum =
    picture.goodReplicas === undefined
      ? ''
      : `; min-replicas-to-write is set: ${picture.goodReplicas} good, writes (acquires too) are refused with fewer than the setting`;
  return `${prefix}${count}: ${replicas.join('; ')}${minimum}.`;
}

// The Locks view's elements. Plain data: the tree provider turns them into TreeItems.
import type { ConnectionConfig } from '../connections/saved';
import type { HeldByMany, LockEntry, LockHolder } from '../locks/classify';

export interface ConnectionNode {
  kind: 'connection';
  config: ConnectionConfig;
}

/** A connection's row: also what commands run on a connection take as their argument. */
export function connectionNode(config: ConnectionConfig): ConnectionNode {
  return { kind: 'connection', config };
}

export interface LockNode {
  kind: 'lock';
  config: ConnectionConfig;
  lock: LockEntry;
}

export interface HolderNode {
  kind: 'holder';
  config: ConnectionConfig;
  lock: HeldByMany;
  holder: LockHolder;
}

/** Keys of one lock group (`lock:{orders:*}`), shown first when a connection lists many locks. */
export interface GroupNode {
  kind: 'group';
  config: ConnectionConfig;
  group: string;
  locks: LockNode[];
}

/** "Load more": the scan stopped at the per-connection limit and can go on. */
export interface MoreNode {
  kind: 'more';
  config: ConnectionConfig;
}

/** A line of text under a connection: no locks found, an error, still scanning. */
export interface MessageNode {
  kind: 'message';
  config: ConnectionConfig;
  text: string;
  icon: string;
  tooltip?: string;
  command?: { command: string; title: string };
}

export type LocksNode = ConnectionNode | GroupNode | LockNode | HolderNode | MoreNode | MessageNode;

// What the extension and the Lock Timeline panel say to each other: plain JSON, no vscode. It
// carries the lock history's own vocabulary (locks/historyModel.ts) to the renderer.
import type { HoldEnd, ObservationGap, ObservationState, UnseenStart } from '../locks/historyModel';

export type { HoldEnd, ObservationGap, ObservationState, UnseenStart } from '../locks/historyModel';

/** The panel's view type: package.json's `onWebviewPanel:` activation event names it, so a window reload brings it back. */
export const TIMELINE_VIEW_TYPE = 'locksmith.timeline';

/** The connection a restored panel showed, from the state its renderer saved (the webview is not trusted blindly). */
export function savedConnectionId(state: unknown): string | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const { connectionId } = state as { connectionId?: unknown };
  return typeof connectionId === 'string' && connectionId !== '' ? connectionId : undefined;
}

/** One owner's hold of one lock key, from acquiring it to its end (absent while held). */
export interface TimelineHold {
  /** Unique per hold within a connection: an update with the same id replaces the hold. */
  id: number;
  /** The lock key, escaped for display as the Locks view shows it. */
  key: string;
  /** Short owner, e.g. "api-1#4711": holds of one owner share a colour. */
  owner: string;
  /** The full token (shown on hover). */
  token: string;
  /** Epoch ms the hold began (acquired), on the extension host's clock. */
  from: number;
  /** Epoch ms it ended; absent while held. */
  to?: number;
  /** How it ended; absent while held. */
  end?: HoldEnd;
  /** Epoch ms of each lease extension. */
  extensions: number[];
  /** The lease (PTTL) when last read. */
  leaseMs?: number;
  /** Derived from periodic reads (every sampledEveryMs), not from notifications: its times are that coarse. */
  approximate: boolean;
  /** Already held when first seen at `from`: its start was not seen. */
  startUnseen?: UnseenStart;
}

/** How many clients waited for a key, where waiters can be counted: [epoch ms, count], oldest first. */
export interface TimelineWaiters {
  key: string;
  samples: Array<[at: number, count: number]>;
}

/** Everything the panel draws: what a `reset` carries. */
export interface TimelineData {
  /** The connection's name, shown in the panel's title and toolbar. */
  connection: string;
  /** The saved connection's id: the webview keeps it, so the panel restored after a window reload shows it again. */
  connectionId: string;
  /** The extension host's clock (epoch ms) when this was sent: the webview's clock may differ (Remote-SSH, WSL). */
  now: number;
  holds: TimelineHold[];
  waiters: TimelineWaiters[];
  /** Set when holds come from periodic reads: how often they were read. */
  sampledEveryMs?: number;
  /** Stretches nobody observed, oldest first (the last one open while it lasts). */
  gaps: ObservationGap[];
  /** How the connection is observed now: "Live" only while it is. */
  observation: ObservationState;
}

/**
 * What changed since the last message: `holds` are new or changed ones (same id replaces),
 * `waiters` carry new samples (appended after the key's last sample; older ones are ignored),
 * `removed` lists the ids of holds the history dropped (its memory is bounded), `gaps` the gaps
 * that began or closed (same `from` replaces), `observation` a new way of observing.
 */
export interface TimelineDelta {
  now: number;
  holds: TimelineHold[];
  waiters: TimelineWaiters[];
  removed?: number[];
  gaps?: ObservationGap[];
  observation?: ObservationState;
}

export type ToPanel = ({ type: 'reset' } & TimelineData) | ({ type: 'update' } & TimelineDelta);

/** From the webview: a key was clicked (select it in the Locks view), or the renderer loaded and waits for data. */
export type FromPanel = { type: 'select'; key: string } | { type: 'ready' };

/** A message from the webview as FromPanel, or undefined when it is not one (the webview is not trusted blindly). */
export function parseFromPanel(message: unknown): FromPanel | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { type, key } = message as { type?: unknown; key?: unknown };
  if (type === 'ready') return { type };
  if (type === 'select' && typeof key === 'string' && key !== '') return { type, key };
  return undefined;
}

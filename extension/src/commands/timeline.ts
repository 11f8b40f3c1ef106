// "Show Lock Timeline": a connection's lock history drawn in the timeline panel, following it
// live (its notifications stay subscribed while the panel is open, whether or not the Locks view
// is); a click on a key in the panel selects that lock in the Locks view.
import type * as vscode from 'vscode';
import type { ConnectionConfig } from '../connections/saved';
import type { Cmd, Ctx } from '../ctx';
import type { LocksController } from '../locksController';
import { timelineHold } from '../timeline/fromHistory';
import { savedConnectionId } from '../timeline/protocol';
import type { LockTimelinePanel } from '../timeline/panel';
import type { ConnectionNode } from '../views/nodes';
import { pickConnection } from './pickConnection';

/** The panel and the one connection it follows. */
export class LockTimeline implements vscode.Disposable {
  private following?: { config: ConnectionConfig; subscription: { dispose(): void } };
  private readonly closed: vscode.Disposable;

  constructor(
    private readonly ctx: Ctx,
    private readonly controller: LocksController,
    readonly panel: LockTimelinePanel,
  ) {
    this.closed = panel.onDidClose(() => this.stop());
  }

  /** The connection the panel shows, where a click in it selects a lock. */
  get connection(): ConnectionConfig | undefined {
    return this.following?.config;
  }

  /**
   * Shows `config`'s history and follows it, keeping its keyspace notifications subscribed while
   * the panel is open even when the Locks view is hidden; returns how many holds were drawn.
   */
  show(config: ConnectionConfig): number {
    const history = this.controller.history(config.id);
    this.stop();
    this.following = {
      config,
      subscription: history.onDidChange(({ holds, removed, waiters, gaps, observation }) =>
        this.panel.update({
          now: Date.now(),
          holds: holds.map(timelineHold),
          waiters: [...waiters],
          removed: [...removed],
          gaps: [...gaps],
          ...(observation && { observation }),
        }),
      ),
    };
    this.controller.keepObserving(config.id);
    const holds = history.holds().map(timelineHold);
    const live = this.controller.liveMode(config.id);
    this.panel.show({
      connection: config.name,
      connectionId: config.id,
      now: Date.now(),
      holds,
      waiters: history.waiterSamples(),
      ...(live?.kind !== 'notifications' && { sampledEveryMs: this.ctx.config.locks.intervalMs }),
      gaps: history.gaps().map((gap) => ({ ...gap })),
      observation: history.observation(),
    });
    return holds.length;
  }

  /**
   * A panel VS Code restored after a window reload, with the state its renderer saved: it shows
   * the connection it showed (its history starts anew: history lives in memory), or closes when
   * that connection was removed.
   */
  restore(panel: vscode.WebviewPanel, state: unknown): void {
    const id = savedConnectionId(state);
    const config = id === undefined ? undefined : this.ctx.connections.get(id);
    if (!config) {
      panel.dispose();
      return;
    }
    this.panel.adopt(panel);
    this.show(config);
  }

  private stop(): void {
    if (!this.following) return;
    this.following.subscription.dispose();
    this.following = undefined;
    this.controller.keepObserving(undefined);
  }

  dispose(): void {
    this.stop();
    this.closed.dispose();
    this.panel.dispose();
  }
}

export function showTimeline(ctx: Ctx, timeline: LockTimeline): Cmd {
  return async (node?: ConnectionNode): Promise<{ connection: string; holds: number } | undefined> => {
    const config = node?.config ?? (await pickConnection(ctx, 'Show the lock timeline of which connection?'));
    if (!config) return undefined;
    return { connection: config.name, holds: timeline.show(config) };
  };
}

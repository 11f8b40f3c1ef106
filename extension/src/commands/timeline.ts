// "Show Lock Timeline": a connection's lock history drawn in the timeline panel, following it
// live; a click on a key in the panel selects that lock in the Locks view.
import type * as vscode from 'vscode';
import type { ConnectionConfig } from '../connections/saved';
import type { Cmd, Ctx } from '../ctx';
import type { LocksController } from '../locksController';
import { timelineHold } from '../timeline/fromHistory';
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

  /** Shows `config`'s history and follows it; returns how many holds were drawn. */
  show(config: ConnectionConfig): number {
    const history = this.controller.history(config.id);
    this.stop();
    this.following = {
      config,
      subscription: history.onDidChange(({ holds, removed, waiters }) =>
        this.panel.update({
          now: Date.now(),
          holds: holds.map(timelineHold),
          waiters: [...waiters],
          removed: [...removed],
        }),
      ),
    };
    const holds = history.holds().map(timelineHold);
    const live = this.controller.liveMode(config.id);
    this.panel.show({
      connection: config.name,
      now: Date.now(),
      holds,
      waiters: history.waiterSamples(),
      ...(live?.kind !== 'notifications' && { sampledEveryMs: this.ctx.config.locks.intervalMs }),
    });
    return holds.length;
  }

  private stop(): void {
    this.following?.subscription.dispose();
    this.following = undefined;
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

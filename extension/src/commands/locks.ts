// Actions on the Locks view. Release and Extend use the token the view showed, through the
// pack's compare-and-delete and compare-and-extend: a lock that changed hands is left alone.
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { LockScripts } from '../../../pack/runtime';
import { describeActionError, describeConnectionError } from '../connections/errors';
import type { ConnectionConfig } from '../connections/saved';
import type { Cmd, Ctx } from '../ctx';
import { escapeBytes } from '../locks/classify';
import { historyCsv, historyJson } from '../locks/historyExport';
import type { LocksController } from '../locksController';
import type { LocksTree } from '../views/locksTree';
import type { ConnectionNode, HolderNode, LockNode, MoreNode } from '../views/nodes';
import { pickConnection } from './pickConnection';

/** What Release and Extend return, so tests and keybindings can tell what happened. */
export type LockOutcome = 'released' | 'extended' | 'changed-hands' | 'cancelled' | { error: string };

const TTL_DIGITS = /^[1-9]\d{0,14}$/;

function tokenOf(node: LockNode): Buffer | undefined {
  return node.lock.kind === 'token' || node.lock.kind === 'timestamp' ? node.lock.token : undefined;
}

async function scripts(ctx: Ctx, config: ConnectionConfig): Promise<LockScripts> {
  return ctx.connections.scripts(await ctx.connections.connect(config));
}

export function release(ctx: Ctx, controller: LocksController): Cmd {
  return async (node?: LockNode, options?: { confirmed?: boolean }): Promise<LockOutcome | undefined> => {
    const token = node && tokenOf(node);
    if (!node || !token) return undefined;
    const key = escapeBytes(node.lock.key);
    if (!options?.confirmed) {
      const answer = await vscode.window.showWarningMessage(
        `Release ${key}?`,
        {
          modal: true,
          detail: `The lock is deleted only if it still holds the token shown (${escapeBytes(token)}). If it changed hands since, nothing is deleted. The holder will no longer be protected by it.`,
        },
        'Release',
      );
      if (answer !== 'Release') return 'cancelled';
    }
    try {
      ctx.log.info(`${node.config.name}: EVALSHA release ${key}`);
      // The `del` that follows ends the hold as forced, not as a holder's own release.
      controller.history(node.config.id).markForced(node.lock.key, token, Date.now());
      const released = await (await scripts(ctx, node.config)).release(node.lock.key, token);
      void controller.refresh(node.config);
      void controller.readNativePath(node.config);
      if (released) {
        vscode.window.setStatusBarMessage(`Released ${key}`, 4000);
        return 'released';
      }
      void vscode.window.showWarningMessage(
        `${key} changed hands or expired since the view read it: nothing was deleted.`,
      );
      return 'changed-hands';
    } catch (error) {
      const message = describeActionError('release', error, node.config.name);
      void vscode.window.showErrorMessage(message);
      return { error: message };
    }
  };
}

export function extend(ctx: Ctx, controller: LocksController): Cmd {
  return async (node?: LockNode, ttl?: string): Promise<LockOutcome | undefined> => {
    if (!node || node.lock.kind !== 'token') return undefined;
    const key = escapeBytes(node.lock.key);
    const ms =
      ttl ??
      (await vscode.window.showInputBox({
        title: `Extend ${key}`,
        prompt: 'New lease in milliseconds, from now (only while the token shown still holds it)',
        value: String(Math.max(node.lock.pttl, 30_000)),
        validateInput: (value) =>
          TTL_DIGITS.test(value.trim())
            ? undefined
            : 'Enter a positive whole number of milliseconds (no leading zero).',
      }));
    if (ms === undefined) return 'cancelled';
    if (!TTL_DIGITS.test(ms.trim())) return { error: `'${ms}' is not a positive whole number of milliseconds` };
    try {
      ctx.log.info(`${node.config.name}: EVALSHA extend ${key} ${ms.trim()}`);
      const extended = await (
        await scripts(ctx, node.config)
      ).extend(node.lock.key, node.lock.token, Number(ms.trim()));
      void controller.refresh(node.config);
      void controller.readNativePath(node.config);
      if (extended) return 'extended';
      void vscode.window.showWarningMessage(
        `${key} changed hands or expired since the view read it: its TTL was not changed.`,
      );
      return 'changed-hands';
    } catch (error) {
      const message = describeActionError('extend', error, node.config.name);
      void vscode.window.showErrorMessage(message);
      return { error: message };
    }
  };
}

export function copyKey(): Cmd {
  return async (node?: LockNode) => {
    if (node) await vscode.env.clipboard.writeText(escapeBytes(node.lock.key));
  };
}

export function copyToken(): Cmd {
  return async (node?: LockNode) => {
    const token = node && tokenOf(node);
    if (token) await vscode.env.clipboard.writeText(escapeBytes(token));
  };
}

export function refresh(ctx: Ctx, controller: LocksController): Cmd {
  return async (node?: ConnectionNode) => {
    if (node?.kind === 'connection') {
      if (ctx.connections.session(node.config.id)?.state.kind !== 'connected')
        await ctx.connections.connect(node.config).catch(() => {});
      await controller.refresh(node.config);
    } else {
      await controller.refreshAll(true);
    }
  };
}

/** What Enable Keyspace Notifications returns: the mode the view is in afterwards. */
export type EnableOutcome = 'live' | 'cancelled' | { polling: string } | { error: string };

/** Turns on the server events the view needs, after a modal confirmation: it changes the server's config. */
export function enableNotifications(ctx: Ctx, controller: LocksController): Cmd {
  return async (node?: ConnectionNode, options?: { confirmed?: boolean }): Promise<EnableOutcome | undefined> => {
    const config = node?.config ?? (await pickConnection(ctx, 'Enable keyspace notifications on which Redis?'));
    if (!config) return undefined;
    const mode = controller.liveMode(config.id);
    if (mode?.kind === 'notifications') return 'live';
    if (!options?.confirmed) {
      const flags = mode?.kind === 'polling' && mode.enable ? `'${mode.enable}'` : "the current flags plus 'K$gxh'";
      const answer = await vscode.window.showWarningMessage(
        `Enable keyspace notifications on ${config.name}?`,
        {
          modal: true,
          detail:
            `Runs CONFIG SET notify-keyspace-events ${flags} on ${config.url}${config.url.includes('cluster') ? ' (every node)' : ''}; flags already set are kept. ` +
            'Redis then publishes an event for each change of a string, hash or expiring key; the Locks view subscribes to lock keys only and stops re-reading every key on a timer. ' +
            'The change is not written to redis.conf: a restart undoes it.',
        },
        'Enable',
      );
      if (answer !== 'Enable') return 'cancelled';
    }
    try {
      ctx.log.info(`${config.name}: CONFIG SET notify-keyspace-events`);
      const after = await controller.enableNotifications(config);
      return after.kind === 'notifications' ? 'live' : { polling: after.reason };
    } catch (error) {
      const message = `Could not enable keyspace notifications: ${describeConnectionError(error, config.name)}`;
      void vscode.window.showErrorMessage(message);
      return { error: message };
    }
  };
}

export function loadMore(controller: LocksController): Cmd {
  return async (node?: MoreNode) => {
    if (node) await controller.loadMore(node.config);
  };
}

export function filter(tree: LocksTree): Cmd {
  return async (text?: string) => {
    const value =
      text ??
      (await vscode.window.showInputBox({
        title: 'Filter Locks',
        prompt: 'Show locks whose key or owner contains this text',
        value: tree.filter,
      }));
    if (value !== undefined) tree.setFilter(value.trim());
  };
}

export function clearFilter(tree: LocksTree): Cmd {
  return () => tree.setFilter('');
}

export function sortBy(tree: LocksTree, order: 'ttl' | 'key'): Cmd {
  return () => tree.setSortOrder(order);
}

export function editPatterns(): Cmd {
  return () => vscode.commands.executeCommand('workbench.action.openSettings', 'redisLocksmith.lockPatterns');
}

/** What Export Lock History returns: the file written, or why not. */
export type ExportOutcome = { written: string; holds: number } | 'cancelled' | { error: string };

/** Writes a connection's lock history to a JSON or CSV file the user picks. */
export function exportHistory(ctx: Ctx, controller: LocksController): Cmd {
  return async (
    node?: ConnectionNode,
    options?: { format?: 'json' | 'csv'; file?: vscode.Uri },
  ): Promise<ExportOutcome | undefined> => {
    const config = node?.config ?? (await pickConnection(ctx, 'Export the lock history of which connection?'));
    if (!config) return undefined;
    const holds = controller.history(config.id).holds();
    if (!holds.length) {
      void vscode.window.showInformationMessage(
        `No lock history for ${config.name} yet: it builds while the Locks view shows the connection.`,
      );
      return { error: 'no history' };
    }
    const format =
      options?.format ??
      (
        await vscode.window.showQuickPick(
          [
            {
              label: 'JSON',
              detail: 'every hold with its extensions, and when nobody observed',
              format: 'json' as const,
            },
            { label: 'CSV', detail: 'one row per hold, for a spreadsheet', format: 'csv' as const },
          ],
          { title: `Export the lock history of ${config.name}` },
        )
      )?.format;
    if (!format) return 'cancelled';
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file =
      options?.file ??
      (await vscode.window.showSaveDialog({
        title: `Export the lock history of ${config.name}`,
        defaultUri: vscode.Uri.joinPath(
          vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir()),
          `lock-history-${config.name.replace(/[^\w.-]+/g, '_')}-${stamp}.${format}`,
        ),
        filters: format === 'json' ? { JSON: ['json'] } : { CSV: ['csv'] },
      }));
    if (!file) return 'cancelled';
    const text =
      format === 'json'
        ? historyJson(config.name, holds, controller.history(config.id).gaps(), Date.now())
        : historyCsv(holds);
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
    ctx.log.info(`${config.name}: exported ${holds.length} holds to ${file.fsPath}`);
    return { written: file.fsPath, holds: holds.length };
  };
}

/**
 * Releases one holder of a reentrant lock, a read-write lock or a semaphore with the pack's
 * compare-and-* scripts and the token shown, waking waiters: a holder that is gone or changed
 * meanwhile is left alone. A reentrant holder gives back every hold it has.
 */
export function releaseHolder(ctx: Ctx, controller: LocksController): Cmd {
  return async (node?: HolderNode, options?: { confirmed?: boolean }): Promise<LockOutcome | undefined> => {
    if (!node || node.holder.role === 'wait') return undefined;
    const key = escapeBytes(node.lock.key);
    const token = node.holder.token;
    if (!options?.confirmed) {
      const answer = await vscode.window.showWarningMessage(
        `Release ${node.holder.owner}'s hold on ${key}?`,
        {
          modal: true,
          detail: `Only the holder with the token ${escapeBytes(token)} is released, and only if it still holds ${key}; other holders keep theirs. Waiters are woken. The holder will no longer be protected by it.`,
        },
        'Release',
      );
      if (answer !== 'Release') return 'cancelled';
    }
    try {
      const locks = await scripts(ctx, node.config);
      ctx.log.info(`${node.config.name}: EVALSHA release of one ${node.lock.kind} holder of ${key}`);
      controller.history(node.config.id).markForced(node.lock.key, token, Date.now());
      let released: boolean;
      if (node.lock.kind === 'readwrite') released = await locks.rw.release(node.lock.key, token);
      else if (node.lock.kind === 'semaphore') released = await locks.semaphore.release(node.lock.key, token);
      else {
        // One hold per call: 1 means that was the last one, N that N - 1 remain.
        let left = await locks.reentrant.release(node.lock.key, token);
        released = left > 0;
        while (left > 1) left = await locks.reentrant.release(node.lock.key, token);
      }
      void controller.refresh(node.config);
      if (released) return 'released';
      void vscode.window.showWarningMessage(`${node.holder.owner} no longer holds ${key}: nothing was released.`);
      return 'changed-hands';
    } catch (error) {
      const message = describeActionError('release', error, node.config.name);
      void vscode.window.showErrorMessage(message);
      return { error: message };
    }
  };
}

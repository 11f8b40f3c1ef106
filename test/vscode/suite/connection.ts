// What suites need to give each test a connection of its own: added through the real command
// (the password into SecretStorage), its rows in the Locks view, and removed again afterwards, so
// that a test passes alone and in any order.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ConnectionConfig } from '../../../extension/src/connections/saved';
import type { LocksmithApi } from '../../../extension/src/extension';
import type { ConnectionNode, LockNode } from '../../../extension/src/views/nodes';
import { connectionNode } from '../../../extension/src/views/nodes';
import { eventually } from './eventually';

export interface NewConnection {
  name: string;
  url: string;
  password?: string;
}

/** Adds a connection with the Add Connection command; fails with the command's message when it is refused. */
export async function addConnection(input: NewConnection): Promise<ConnectionConfig> {
  const outcome = await vscode.commands.executeCommand<
    { ok: true; config: ConnectionConfig } | { ok: false; message: string }
  >('locksmith.locks.addConnection', input);
  if (!outcome.ok) assert.fail(`Add Connection refused ${input.url}: ${outcome.message}`);
  return outcome.config;
}

/** Removes it (confirmed) when it is still saved. */
export async function removeConnection(api: LocksmithApi, config: ConnectionConfig | undefined): Promise<void> {
  if (!config || !api.ctx.connections.get(config.id)) return;
  await vscode.commands.executeCommand('locksmith.locks.removeConnection', connectionNode(config), { confirmed: true });
}

/** The connection's row in the Locks view. */
export function connectionRow(api: LocksmithApi, config: ConnectionConfig): ConnectionNode {
  const row = api.locksTree
    .getChildren()
    .find((node): node is ConnectionNode => node.kind === 'connection' && node.config.id === config.id);
  assert.ok(row, `${config.name} is in the Locks view`);
  return row;
}

/** The lock rows under the connection (grouped or not). */
export function lockRows(api: LocksmithApi, config: ConnectionConfig): LockNode[] {
  return api.locksTree
    .getChildren(connectionRow(api, config))
    .flatMap((node) => (node.kind === 'group' ? node.locks : [node]))
    .filter((node): node is LockNode => node.kind === 'lock');
}

/** Waits until the Locks view lists a lock row for `key` that passes `check`. */
export function listedLock(
  api: LocksmithApi,
  config: ConnectionConfig,
  key: string,
  check: (node: LockNode) => boolean = () => true,
  timeoutMs?: number,
): Promise<LockNode> {
  return eventually(
    () => lockRows(api, config).find((node) => node.lock.key.toString() === key && check(node)),
    `${key} listed under ${config.name}`,
    timeoutMs,
  );
}

// Which connection a palette command acts on: the only one, or the user's pick.
import * as vscode from 'vscode';
import type { ConnectionConfig } from '../connections/saved';
import type { Ctx } from '../ctx';

export async function pickConnection(ctx: Ctx, title: string): Promise<ConnectionConfig | undefined> {
  const configs = ctx.connections.list();
  if (configs.length <= 1) {
    if (!configs.length)
      void vscode.window
        .showInformationMessage('Add a Redis connection first.', 'Add Connection')
        .then((choice) => choice && vscode.commands.executeCommand('locksmith.locks.addConnection'));
    return configs[0];
  }
  const picked = await vscode.window.showQuickPick(
    configs.map((config) => ({ label: config.name, description: config.url, config })),
    { title },
  );
  return picked?.config;
}

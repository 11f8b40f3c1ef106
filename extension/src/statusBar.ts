// One status bar item for all connections: how many are connected, or which one is in trouble.
import * as vscode from 'vscode';
import type { Ctx } from './ctx';

export function connectionStatusBar(ctx: Ctx): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('locksmith.connections', vscode.StatusBarAlignment.Left, 10);
  item.name = 'Redis Locksmith connections';
  item.command = 'locksmith.locks.focus';
  const update = () => {
    const configs = ctx.connections.list();
    const states = configs.map((config) => ({ config, state: ctx.connections.session(config.id)?.state }));
    const troubled = states.find(({ state }) => state?.kind === 'error' || state?.kind === 'reconnecting');
    const connecting = states.some(({ state }) => state?.kind === 'connecting');
    const connected = states.filter(({ state }) => state?.kind === 'connected');
    if (!configs.length) {
      item.hide();
      return;
    }
    if (troubled?.state?.kind === 'error') {
      item.text = `$(error) Redis: ${troubled.config.name}`;
      item.tooltip = troubled.state.message;
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (troubled?.state?.kind === 'reconnecting') {
      item.text = `$(sync~spin) Redis: ${troubled.config.name} reconnecting`;
      item.tooltip = troubled.state.reason;
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else {
      item.text = connecting
        ? '$(sync~spin) Redis: connecting'
        : `$(lock) Redis: ${connected.length}/${configs.length} connected`;
      item.tooltip =
        connected
          .map(({ config, state }) =>
            state?.kind === 'connected' ? `${config.name}: Redis ${state.version} (${state.role})` : '',
          )
          .join('\n') || 'Redis Locksmith';
      item.backgroundColor = undefined;
    }
    item.show();
  };
  update();
  const subscription = ctx.connections.onDidChange(update);
  return vscode.Disposable.from(item, subscription);
}

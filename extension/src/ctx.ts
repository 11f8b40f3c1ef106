// What commands and views share: the extension context, the log, the settings, the connections,
// the pack.
import type * as vscode from 'vscode';
import type { Pack } from '../../pack/pack';
import type { Config } from './config';
import type { Connections } from './connections/connections';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- command arguments come from VS Code untyped
export type Cmd = (...args: any[]) => unknown;

export interface Ctx {
  readonly extension: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  readonly config: Config;
  readonly connections: Connections;
  readonly pack: Pack;
}

// Entry point: stays thin. Logic lives in plain modules (shared/, server/) tested without VS Code.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { LINTED_LANGUAGES } from '../../shared/languages';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Redis Locksmith', { log: true });
  context.subscriptions.push(log);

  // The server runs in its own process so analysis never blocks the extension host.
  const module = context.asAbsolutePath('server/out/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LINTED_LANGUAGES.map((language) => ({ language })),
    outputChannel: log,
  };
  client = new LanguageClient('redisLocksmith', 'Redis Locksmith', serverOptions, clientOptions);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

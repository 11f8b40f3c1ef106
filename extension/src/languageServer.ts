// Starts the language server in its own process (node IPC), so analysis never blocks the
// extension host. vscode-languageclient is required here, on first use, not at activation.
import type * as vscode from 'vscode';
import type { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { LINTED_LANGUAGES } from '../../server/src/languages';

/** The running language server: its client, for requests of the extension's own (Go to Code). */
export interface LanguageServer extends vscode.Disposable {
  client: LanguageClient;
}

export function startLanguageServer(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel): LanguageServer {
  const { LanguageClient, TransportKind } =
    require('vscode-languageclient/node') as typeof import('vscode-languageclient/node');
  const module = extension.asAbsolutePath('server/out/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LINTED_LANGUAGES.map((language) => ({ language })),
    outputChannel: log,
    // The server pulls redisLocksmith.lint per document and re-checks when it changes.
    synchronize: { configurationSection: 'redisLocksmith.lint' },
    // Run after a lock fix is applied: the walkthrough's lint step completes.
    initializationOptions: { fixAppliedCommand: 'locksmith.lintFixApplied' },
  };
  const client = new LanguageClient('redisLocksmith', 'Redis Locksmith', serverOptions, clientOptions);
  client.start().catch((error: unknown) => log.error(`the language server did not start: ${String(error)}`));
  // Stopping on deactivation ends the server process with the extension.
  return { client, dispose: () => void client.stop() };
}

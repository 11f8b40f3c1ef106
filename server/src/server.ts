// The Locksmith language server. The transport comes from the command line: --stdio for any
// LSP editor, --node-ipc when the extension starts it.
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';

const connection = createConnection(ProposedFeatures.all);

connection.onInitialize(() => ({
  capabilities: {},
  serverInfo: { name: 'redis-locksmith' },
}));

connection.listen();

// npm run snippet -- <client> <pattern> [--tabstops]
// Prints the lock code for a client library: plain code, or with --tabstops the VS Code
// snippet body.
import { CLIENTS } from './clients';
import { PATTERNS } from './patterns';
import { loadPack } from '../pack/pack';
import { renderCode, renderSnippet, SnippetError } from './render';

const args = process.argv.slice(2);
const tabstops = args.includes('--tabstops');
const [client, pattern] = args.filter((arg) => arg !== '--tabstops');
try {
  if (!client || !pattern) {
    throw new SnippetError(
      `usage: npm run snippet -- <client> <pattern> [--tabstops]\n  clients: ${CLIENTS.map((c) => c.id).join(', ')}\n  patterns: ${PATTERNS.join(', ')}`,
    );
  }
  const pack = loadPack();
  process.stdout.write(tabstops ? renderSnippet(client, pattern, pack) : renderCode(client, pattern, pack));
} catch (error) {
  if (!(error instanceof SnippetError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
}

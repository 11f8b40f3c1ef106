// npm run helper -- <client> [--flavor ts|esm|cjs] [--package NAME] [--namespace NAME] [--kinds K1,K2]
// Prints the lock helper module for a client library; its conventional file name goes to stderr.
import { loadPack } from '../pack/pack';
import { CLIENTS } from './clients';
import { renderHelper } from './helper';
import { SnippetError } from './template';

const USAGE = `usage: npm run helper -- <client> [--flavor ts|esm|cjs] [--package NAME] [--namespace NAME] [--kinds K1,K2]
  clients: ${CLIENTS.map((c) => c.id).join(', ')}`;

try {
  const [client, ...rest] = process.argv.slice(2);
  if (!client || client.startsWith('--')) throw new SnippetError(USAGE);
  const options: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]];
    if (!flag.startsWith('--') || value === undefined)
      throw new SnippetError(`expected --option value, got '${flag}'\n${USAGE}`);
    options[flag.slice(2)] = value;
  }
  const helper = renderHelper(client, loadPack(), options);
  process.stdout.write(helper.text);
  process.stderr.write(`(${helper.fileName})\n`);
} catch (error) {
  if (!(error instanceof SnippetError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
}

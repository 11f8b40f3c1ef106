// The floor bench/cli.ts times the lint CLI against, as a process of its own (bundled by the
// bench next to a copy of the server's grammars, so that it starts the way the CLI does): read
// every file of a list, and parse those of its `parse` part bare with the same tree-sitter
// grammar. Nothing else: no walk, no rules, no report.
//   node floor.js <list.json>   (list: { "read": [paths], "parse": [paths] })
import { readFileSync } from 'node:fs';
import { parserFor } from '../server/src/analysis/parsers';
import { grammarOf, languageOfFile } from '../server/src/languages';

async function main(): Promise<void> {
  const list = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { read: string[]; parse: string[] };
  let bytes = 0;
  for (const path of list.read) bytes += readFileSync(path, 'utf8').length;
  for (const path of list.parse) {
    const text = readFileSync(path, 'utf8');
    bytes += text.length;
    (await parserFor(grammarOf(languageOfFile(path)!)!)).parse(text)?.delete();
  }
  process.stdout.write(`${bytes}\n`);
}

void main();

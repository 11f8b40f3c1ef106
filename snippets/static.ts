// The static snippets (contributes.snippets): one .code-snippets file per client language,
// written at build time from the same generator, so the Lua in them is the pack's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPack, type Pack } from '../pack/pack';
import { CLIENTS, type ClientInfo } from './clients';
import { PATTERN_INFO, PATTERNS, type PatternId } from './patterns';
import { renderSnippet } from './render';

export interface StaticSnippet {
  prefix: string[];
  description: string;
  body: string;
}

/** The folder, relative to the extension root, that package.json's contributes.snippets points into. */
export const SNIPPETS_DIR = 'extension/out/snippets';

/** The file holding a client's snippets: one per template extension, shared by its language ids. */
export const snippetFile = (client: ClientInfo) => `${SNIPPETS_DIR}/${client.extension}.code-snippets`;

/** The entry's name in its file; the Insert Lock Snippet command looks snippets up by it. */
export const snippetName = (client: ClientInfo, pattern: PatternId) =>
  `${PATTERN_INFO[pattern].label} (${client.library})`;

/** Every snippet file's content, keyed by its path relative to the extension root. */
export function staticSnippets(pack: Pack = loadPack()): Map<string, Record<string, StaticSnippet>> {
  const files = new Map<string, Record<string, StaticSnippet>>();
  for (const client of CLIENTS) {
    const file = files.get(snippetFile(client)) ?? {};
    for (const pattern of PATTERNS) {
      const { prefix, description } = PATTERN_INFO[pattern];
      // Two clients of one language share the short prefix; the long one picks the client.
      file[snippetName(client, pattern)] = {
        prefix: [prefix, `${prefix}-${client.id}`],
        description: `${description} ${client.description}`,
        body: renderSnippet(client.id, pattern, pack),
      };
    }
    files.set(snippetFile(client), file);
  }
  return files;
}

/** package.json's contributes.snippets entries for those files. */
export function snippetContributions(): Array<{ language: string; path: string }> {
  const entries = CLIENTS.flatMap((client) =>
    client.languageIds.map((language) => `${language}\n./${snippetFile(client)}`),
  );
  return [...new Set(entries)].map((entry) => {
    const [language, path] = entry.split('\n');
    return { language, path };
  });
}

export function writeStaticSnippets(root: string): void {
  mkdirSync(join(root, SNIPPETS_DIR), { recursive: true });
  for (const [file, snippets] of staticSnippets()) {
    writeFileSync(join(root, file), `${JSON.stringify(snippets, null, 2)}\n`);
  }
}

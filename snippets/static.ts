// The static snippets (contributes.snippets): one .code-snippets file per client language,
// written at build time from the same generator. Per client and pattern two variants: the call
// site of the lock helper (the import included where the language allows it inside a function),
// and the self-contained inline code with the pack's Lua in it, for scripts and one-off jobs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pack } from '../pack/pack';
import { DEFAULT_HELPER_IMPORT, renderCallSiteSnippet } from './callsite';
import { CLIENTS, type ClientInfo } from './clients';
import { PATTERN_INFO, PATTERNS, type PatternId } from './patterns';
import { escapeSnippet, renderSnippet } from './render';

export interface StaticSnippet {
  prefix: string[];
  description: string;
  body: string;
}

/** The folder, relative to the extension root, that package.json's contributes.snippets points into. */
export const SNIPPETS_DIR = 'extension/out/snippets';

/** The file holding a client's snippets: one per template extension, shared by its language ids. */
export const snippetFile = (client: ClientInfo) => `${SNIPPETS_DIR}/${client.extension}.code-snippets`;

/** `helper`: a call site of the lock helper module; `inline`: self-contained, no helper file. */
export const SNIPPET_VARIANTS = ['helper', 'inline'] as const;
export type SnippetVariant = (typeof SNIPPET_VARIANTS)[number];

/** The entry's name in its file; the Insert Lock Snippet command looks snippets up by it. */
export const snippetName = (client: ClientInfo, pattern: PatternId, variant: SnippetVariant) =>
  `${PATTERN_INFO[pattern].label}${variant === 'inline' ? ', inline' : ''} (${client.library})`;

/** The helper call site's snippet body, with its imports in front where they may stand inside a function. */
function helperSnippetBody(client: ClientInfo, pattern: PatternId): string {
  const { imports, body } = renderCallSiteSnippet(client.id, pattern, {
    helperImport: DEFAULT_HELPER_IMPORT[client.id],
  });
  return client.importsInline ? [...imports.map(escapeSnippet), body].join('\n') : body;
}

/** Every snippet file's content, keyed by its path relative to the extension root. */
export function staticSnippets(pack: Pack): Map<string, Record<string, StaticSnippet>> {
  const files = new Map<string, Record<string, StaticSnippet>>();
  for (const client of CLIENTS) {
    const file = files.get(snippetFile(client)) ?? {};
    for (const pattern of PATTERNS) {
      const { prefix, description } = PATTERN_INFO[pattern];
      // Two clients of one language share the short prefix; the long one picks the client.
      file[snippetName(client, pattern, 'helper')] = {
        prefix: [prefix, `${prefix}-${client.id}`],
        description: `${description} Calls the project's lock helper (${client.library}).`,
        body: helperSnippetBody(client, pattern),
      };
      file[snippetName(client, pattern, 'inline')] = {
        prefix: [`${prefix}-inline`, `${prefix}-inline-${client.id}`],
        description: `${description} Inline, no helper file: ${client.description}`,
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

export function writeStaticSnippets(root: string, pack: Pack): void {
  mkdirSync(join(root, SNIPPETS_DIR), { recursive: true });
  for (const [file, snippets] of staticSnippets(pack)) {
    writeFileSync(join(root, file), `${JSON.stringify(snippets, null, 2)}\n`);
  }
}

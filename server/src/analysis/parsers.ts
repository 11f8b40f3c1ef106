// Tree-sitter parsers, one per grammar, loaded on first use. The grammars are the ones VS Code
// itself ships (@vscode/tree-sitter-wasm); the build copies them next to the server bundle.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser } from '@vscode/tree-sitter-wasm';

export const GRAMMARS = ['javascript', 'typescript', 'tsx', 'python', 'java', 'go', 'php', 'c-sharp', 'ruby'] as const;
export type Grammar = (typeof GRAMMARS)[number];

function wasmDir(): string {
  const bundled = join(__dirname, 'wasm');
  if (existsSync(join(bundled, 'tree-sitter.wasm'))) return bundled;
  // Running from sources (tests, benchmarks): the package's own folder.
  return dirname(createRequire(__filename).resolve('@vscode/tree-sitter-wasm'));
}

let runtime: Promise<string> | undefined;
const parsers = new Map<Grammar, Promise<Parser>>();

function init(): Promise<string> {
  runtime ??= (async () => {
    const dir = wasmDir();
    await Parser.init({ locateFile: (file: string) => join(dir, file) });
    return dir;
  })();
  return runtime;
}

export function parserFor(grammar: Grammar): Promise<Parser> {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = (async () => {
      const dir = await init();
      const language = await Language.load(join(dir, `tree-sitter-${grammar}.wasm`));
      const created = new Parser();
      created.setLanguage(language);
      return created;
    })();
    parsers.set(grammar, parser);
  }
  return parser;
}

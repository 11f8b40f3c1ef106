// Tree-sitter parsers, one per grammar, loaded on first use. The grammars are the ones VS Code
// itself ships (@vscode/tree-sitter-wasm) plus Lua (@tree-sitter-grammars/tree-sitter-lua, built
// for the same runtime ABI); the build copies them next to the server bundle.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser } from '@vscode/tree-sitter-wasm';
import { GRAMMARS, type Grammar } from '../languages';

export { GRAMMARS, type Grammar };

const wasmFile = (grammar: Grammar) => `tree-sitter-${grammar}.wasm`;

/** Where a grammar's wasm is in the installed packages (running from sources, and for the build to copy). */
export function packagedWasm(grammar: Grammar | 'runtime'): string {
  const require = createRequire(__filename);
  if (grammar === 'lua') return require.resolve('@tree-sitter-grammars/tree-sitter-lua/tree-sitter-lua.wasm');
  const dir = dirname(require.resolve('@vscode/tree-sitter-wasm'));
  return join(dir, grammar === 'runtime' ? 'tree-sitter.wasm' : wasmFile(grammar));
}

/** The bundle's copy when running from server/out, else the package's own file. */
function wasmPath(grammar: Grammar | 'runtime'): string {
  const bundled = join(__dirname, 'wasm', grammar === 'runtime' ? 'tree-sitter.wasm' : wasmFile(grammar));
  return existsSync(bundled) ? bundled : packagedWasm(grammar);
}

let runtime: Promise<void> | undefined;
const parsers = new Map<Grammar, Promise<Parser>>();

function init(): Promise<void> {
  runtime ??= Parser.init({ locateFile: () => wasmPath('runtime') });
  return runtime;
}

export function parserFor(grammar: Grammar): Promise<Parser> {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = (async () => {
      await init();
      const language = await Language.load(wasmPath(grammar));
      const created = new Parser();
      created.setLanguage(language);
      return created;
    })();
    parsers.set(grammar, parser);
  }
  return parser;
}

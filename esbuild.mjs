// Two bundles: the extension client (vscode external) and the language server, which also
// runs standalone with `node server/out/server.js --stdio`, with the tree-sitter grammars it
// loads copied next to it; and the static snippet files, rendered from the pack and the
// templates. Runs under tsx (`node --import tsx esbuild.mjs`).
import { copyFileSync, mkdirSync } from 'node:fs';
import process from 'node:process';
import * as esbuild from 'esbuild';
import { GRAMMARS, packagedWasm } from './server/src/analysis/parsers.ts';
import { writeStaticSnippets } from './snippets/static.ts';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['vscode'],
  minify: production,
  sourcemap: !production,
  logLevel: 'info',
};

const contexts = await Promise.all([
  esbuild.context({ ...common, entryPoints: ['extension/src/extension.ts'], outfile: 'extension/out/extension.js' }),
  esbuild.context({ ...common, entryPoints: ['server/src/server.ts'], outfile: 'server/out/server.js' }),
]);
writeStaticSnippets(import.meta.dirname);
mkdirSync('server/out/wasm', { recursive: true });
copyFileSync(packagedWasm('runtime'), 'server/out/wasm/tree-sitter.wasm');
for (const grammar of GRAMMARS) copyFileSync(packagedWasm(grammar), `server/out/wasm/tree-sitter-${grammar}.wasm`);
if (watch) {
  await Promise.all(contexts.map((context) => context.watch()));
} else {
  await Promise.all(contexts.map((context) => context.rebuild()));
  await Promise.all(contexts.map((context) => context.dispose()));
}

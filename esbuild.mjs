// Three bundles: the extension client (vscode external); the language server, which also
// runs standalone with `node server/out/server.js --stdio`, with the tree-sitter grammars it
// loads copied next to it; the Lock Timeline webview's script and stylesheet, in a folder of
// their own (the only files the webview may load); and the static snippet files, rendered from
// the pack and the templates. Runs under tsx (`node --import tsx esbuild.mjs`).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import * as esbuild from 'esbuild';
import { GRAMMARS } from './server/src/analysis/parsers.ts';
import { loadPack } from './pack/pack.ts';
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

// The webview runs in VS Code's Chromium (Electron, or the browser for code-server and vscode.dev).
const webview = { ...common, platform: 'browser', target: 'chrome120', format: 'iife', external: [] };

const contexts = await Promise.all([
  esbuild.context({ ...common, entryPoints: ['extension/src/extension.ts'], outfile: 'extension/out/extension.js' }),
  esbuild.context({ ...common, entryPoints: ['server/src/server.ts'], outfile: 'server/out/server.js' }),
  esbuild.context({
    ...webview,
    entryPoints: ['extension/src/timeline/webview/main.ts'],
    outfile: 'extension/out/timeline/timeline.js',
  }),
]);
writeStaticSnippets(import.meta.dirname, loadPack());
const grammarDir = dirname(createRequire(import.meta.url).resolve('@vscode/tree-sitter-wasm'));
mkdirSync('server/out/wasm', { recursive: true });
for (const file of ['tree-sitter.wasm', ...GRAMMARS.map((grammar) => `tree-sitter-${grammar}.wasm`)]) {
  copyFileSync(join(grammarDir, file), join('server/out/wasm', file));
}
if (watch) {
  await Promise.all(contexts.map((context) => context.watch()));
} else {
  await Promise.all(contexts.map((context) => context.rebuild()));
  await Promise.all(contexts.map((context) => context.dispose()));
}

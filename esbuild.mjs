// Four bundles: the extension client (vscode external); the language server, which also
// runs standalone with `node server/out/server.js --stdio` (the npm package's
// `redis-locksmith-language-server`), with the tree-sitter grammars it loads copied next to it;
// the lint CLI (`redis-locksmith lint`, package.json `bin`), next to the server so that it loads
// the same grammars; the Lock Timeline webview's script and stylesheet, in a folder of their own
// (the only files the webview may load); and the static snippet files, rendered from the pack
// and the templates. Runs under tsx (`node --import tsx esbuild.mjs`).
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import process from 'node:process';
import * as esbuild from 'esbuild';
import { loadPack } from './pack/pack.ts';
import { GRAMMARS, packagedWasm } from './server/src/analysis/parsers.ts';
import { writeStaticSnippets } from './snippets/static.ts';

const production = process.argv.includes('--production');
const CLI = 'server/out/cli.js';
const SERVER = 'server/out/server.js';
// The commands a package installs run their file by its #! line.
const bin = { banner: { js: '#!/usr/bin/env node' } };
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
  esbuild.context({ ...common, ...bin, entryPoints: ['server/src/server.ts'], outfile: SERVER }),
  esbuild.context({
    ...common,
    entryPoints: ['server/src/cli/bin.ts'],
    ...bin,
    outfile: CLI,
    // jsonc-parser's UMD build requires its parts at run time; its ES module build bundles.
    mainFields: ['module', 'main'],
  }),
  esbuild.context({
    ...webview,
    entryPoints: ['extension/src/timeline/webview/main.ts'],
    outfile: 'extension/out/timeline/timeline.js',
  }),
]);
writeStaticSnippets(import.meta.dirname, loadPack());
mkdirSync('server/out/wasm', { recursive: true });
copyFileSync(packagedWasm('runtime'), 'server/out/wasm/tree-sitter.wasm');
for (const grammar of GRAMMARS) copyFileSync(packagedWasm(grammar), `server/out/wasm/tree-sitter-${grammar}.wasm`);
if (watch) {
  await Promise.all(contexts.map((context) => context.watch()));
} else {
  await Promise.all(contexts.map((context) => context.rebuild()));
  await Promise.all(contexts.map((context) => context.dispose()));
  // A bin runs by its #! line: npm sets the mode when it installs the package, a checkout needs it here.
  for (const path of [CLI, SERVER]) chmodSync(path, 0o755);
}

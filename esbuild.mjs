// Two bundles: the extension client (vscode external) and the language server, which also
// runs standalone with `node server/out/server.js --stdio`; and the static snippet files,
// rendered from the pack and the templates. Runs under tsx (`node --import tsx esbuild.mjs`).
import * as esbuild from 'esbuild';
import { writeStaticSnippets } from './shared/snippets/static.ts';

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
if (watch) {
  await Promise.all(contexts.map((context) => context.watch()));
} else {
  await Promise.all(contexts.map((context) => context.rebuild()));
  await Promise.all(contexts.map((context) => context.dispose()));
}

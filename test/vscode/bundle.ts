// What both runners (code-server, desktop) load into the extension host: the built extension
// (`npm run build`, which they expect to have run) and the suite bundled by this module.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export const ROOT = join(__dirname, '..', '..');
const SUITE_DIR = join(__dirname, 'suite');
const SUITE_OUT = join(__dirname, 'out');

/** Bundles index.ts and every *.test.ts of the suite into test/vscode/out; returns index.js. */
export async function bundleSuite(): Promise<string> {
  const { main } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string };
  for (const bundle of [main, 'server/out/server.js']) {
    if (!existsSync(join(ROOT, bundle))) throw new Error(`${bundle} is missing: run npm run build first`);
  }
  // A deleted suite file must not leave a bundle behind that index.js would still run.
  rmSync(SUITE_OUT, { recursive: true, force: true });
  const entries = readdirSync(SUITE_DIR).filter((name) => name === 'index.ts' || name.endsWith('.test.ts'));
  await build({
    entryPoints: entries.map((name) => join(SUITE_DIR, name)),
    outdir: SUITE_OUT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // mocha stays one shared instance: suites' `import { suite, test } from 'mocha'` reach the
    // instance index.js runs. It resolves from the project's node_modules at run time.
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  return join(SUITE_OUT, 'index.js');
}

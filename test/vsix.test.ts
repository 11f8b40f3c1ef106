// The .vsix users install: exactly what runs (the bundles, the timeline webview's files, the
// grammars the server loads, the pack, the templates and snippets the fixes and commands read,
// the rules' page the diagnostics link to)
// and what the Marketplace shows (README, CHANGELOG, LICENSE, a 128x128 PNG icon); no sources,
// tests, maps or node_modules; within the size budget.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, test } from 'node:test';
import { GRAMMARS } from '../server/src/analysis/parsers';
import { TIMELINE_OUT_DIR, TIMELINE_SCRIPT, TIMELINE_STYLE } from '../extension/src/timeline/html';
import { snippetContributions } from '../snippets/static';
import { SCRIPT_NAMES } from '../pack/pack';
import { ensureVsix, ROOT } from '../harness/vsix';
import { zipEntries } from '../harness/zip';
import { readPackageJson, walkthroughImages } from './packageJson';

const BUDGET_BYTES = 12 * 1024 * 1024;
let vsix: string;
let names: Set<string>;

before(async () => {
  vsix = await ensureVsix();
  names = new Set(zipEntries(readFileSync(vsix)).map((entry) => entry.name));
});

const shipped = (path: string) => `extension/${path}`;

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

test('the .vsix ships the bundles, the timeline webview, the grammars, the pack, the templates, the generated snippets, the rules page and the walkthrough images', () => {
  const expected = [
    'package.json',
    'readme.md',
    'changelog.md',
    'LICENSE.txt',
    'media/icon.png',
    ...walkthroughImages(readPackageJson()),
    readPackageJson().main.replace(/^\.\//, ''),
    'server/out/server.js',
    ...[TIMELINE_SCRIPT, TIMELINE_STYLE].map((file) => [...TIMELINE_OUT_DIR, file].join('/')),
    'server/out/wasm/tree-sitter.wasm',
    ...GRAMMARS.map((grammar) => `server/out/wasm/tree-sitter-${grammar}.wasm`),
    ...SCRIPT_NAMES.map((name) => `scripts-lua/${name}.lua`),
    'scripts-lua/README.md',
    'docs/rules.md',
    ...filesUnder('snippets/templates').map((path) => relative(ROOT, join(ROOT, path))),
    ...snippetContributions().map((entry) => entry.path.replace(/^\.\//, '')),
  ];
  const missing = expected.filter((path) => !names.has(shipped(path)));
  assert.deepEqual(missing, [], 'every file the code reads at run time is shipped');
});

test('no sources, tests, source maps or node_modules', () => {
  // Templates are data the generator reads (a helper.ts template is TypeScript text it writes into a project).
  const unwanted = [...names]
    .map((name) => name.replace(/^extension\//, ''))
    .filter((name) => !name.startsWith('snippets/templates/'))
    .filter((name) => /\.(ts|map)$|(^|\/)(node_modules|test|bench|demo|tools)\/|\.vsix$/.test(name));
  assert.deepEqual(unwanted, []);
});

test('within the 12 MB budget', (t) => {
  const size = statSync(vsix).size;
  t.diagnostic(`${relative(ROOT, vsix)}: ${(size / 1024 / 1024).toFixed(2)} MB, ${names.size} entries`);
  assert.ok(size <= BUDGET_BYTES, `${size} bytes`);
});

test('the manifest names its repository, issues and home page, and a 128x128 PNG icon', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  for (const field of ['repository', 'bugs', 'homepage', 'icon']) assert.ok(manifest[field], `package.json ${field}`);
  const icon = readFileSync(join(ROOT, manifest.icon as string));
  assert.equal(icon.toString('latin1', 1, 4), 'PNG');
  assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128], 'IHDR width and height');
});

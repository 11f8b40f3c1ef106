// The layers of the product's sources and which may import which: the table below is the rule,
// docs/dev/architecture.md shows the same table (a test keeps the two in step), and every import
// of every source file is checked against it. Then rules finer than layers: the lock history never
// depends on the timeline, the Locks view sends no command of its own, and the tree's nodes, which
// commands take as arguments, have one constructor.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';

const ROOT = join(__dirname, '..');

interface Layer {
  name: string;
  /** The files of the layer; the first layer whose pattern matches a file owns it. */
  files: RegExp;
  /** Layers its files may import (their own included when listed). */
  may: string[];
  /** npm packages only this layer may import (a prefix: `vscode-languageserver` covers its siblings). */
  ownsPackages?: string[];
}

export const LAYERS: Layer[] = [
  { name: 'pack', files: /^pack\//, may: ['pack'] },
  { name: 'snippets', files: /^snippets\//, may: ['snippets', 'pack'] },
  { name: 'server tables', files: /^server\/src\/(catalogue|languages|protocol)\.ts$/, may: [] },
  { name: 'analysis', files: /^server\/src\/analysis\//, may: ['analysis', 'server tables'] },
  {
    name: 'language server',
    // codeActions.ts turns the fixes' plans into LSP code actions: LSP shapes only.
    files: /^server\/src\/(server|codeActions)\.ts$/,
    may: ['language server', 'server core', 'analysis', 'server tables', 'snippets', 'pack'],
    ownsPackages: ['vscode-languageserver'],
  },
  {
    name: 'lint CLI',
    files: /^server\/src\/cli\//,
    may: ['lint CLI', 'server core', 'analysis', 'server tables', 'snippets', 'pack'],
  },
  {
    name: 'server core',
    files: /^server\/src\//,
    may: ['server core', 'analysis', 'server tables', 'snippets', 'pack'],
  },
  { name: 'history model', files: /^extension\/src\/locks\/historyModel\.ts$/, may: [] },
  {
    name: 'timeline protocol',
    files: /^extension\/src\/timeline\/(protocol|snapshot)\.ts$/,
    may: ['timeline protocol', 'history model'],
  },
  {
    name: 'timeline webview',
    files: /^extension\/src\/timeline\/webview\//,
    may: ['timeline webview', 'timeline protocol'],
  },
  {
    name: 'extension core',
    files:
      /^extension\/src\/(locks\/|connections\/(?!connections\.ts|tlsMigration\.ts)|settings\.ts|timeline\/(?!panel\.ts))/,
    may: ['extension core', 'history model', 'timeline protocol', 'pack'],
  },
  {
    name: 'extension UI',
    files: /^extension\/src\//,
    may: ['extension UI', 'extension core', 'history model', 'timeline protocol', 'server tables', 'snippets', 'pack'],
    ownsPackages: ['vscode', 'vscode-languageclient'],
  },
];

/** Every source file of the product: TypeScript under the four trees, not the templates it writes into projects. */
function sources(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((path) => /^(pack|snippets|server\/src|extension\/src)\//.test(path))
    .filter((path) => !path.startsWith('snippets/templates/') && existsSync(join(ROOT, path)));
}

const layerOf = (path: string) => LAYERS.find((layer) => layer.files.test(path));

/** The module specifiers a file imports: static and dynamic imports, re-exports, require(). */
function importsOf(text: string): string[] {
  const specifiers = text.matchAll(
    /^\s*(?:import|export)\b[^'"]*?\bfrom\s+'([^']+)'|^\s*import\s+'([^']+)'|\b(?:require|import)\(\s*'([^']+)'\s*\)/gm,
  );
  return [...specifiers].map((match) => match[1] ?? match[2] ?? match[3]);
}

/** A relative import as a repository path (`.ts`, or the folder's index.ts), or undefined for a package. */
function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = normalize(join(dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(join(ROOT, candidate))) return candidate;
  }
  return base;
}

const packageName = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];

test('every source file belongs to a layer', () => {
  assert.deepEqual(
    sources().filter((path) => !layerOf(path)),
    [],
  );
});

test('each layer imports only the layers it may, and the editor APIs stay where they belong', () => {
  const broken: string[] = [];
  for (const path of sources()) {
    const layer = layerOf(path)!;
    for (const specifier of importsOf(readFileSync(join(ROOT, path), 'utf8'))) {
      const target = resolve(path, specifier);
      if (target) {
        const targetLayer = layerOf(target);
        if (!targetLayer || !layer.may.includes(targetLayer.name))
          broken.push(`${path} (${layer.name}) imports ${target} (${targetLayer?.name ?? 'no product layer'})`);
        continue;
      }
      const name = packageName(specifier);
      const owner = LAYERS.find((each) => each.ownsPackages?.some((owned) => name.startsWith(owned)));
      if (owner && owner !== layer)
        broken.push(`${path} (${layer.name}) imports ${name}, which only ${owner.name} may`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the import reader sees every form of import', () => {
  const text = [
    "import { a } from './a';",
    "import type { B } from '../b';",
    "export { c } from './c';",
    "import './side-effect';",
    "const d = require('./d');",
    "const e = await import('./e');",
    '// an import in a comment is not one: from "./f"',
  ].join('\n');
  assert.deepEqual(importsOf(text), ['./a', '../b', './c', './side-effect', './d', './e']);
});

test('docs/dev/architecture.md shows this table of layers', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'dev', 'architecture.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| \*\*([^*]+)\*\* \| [^|]+ \| ([^|]*) \|$/gm)].map((match) => ({
    name: match[1],
    may: match[2]
      .split(',')
      .map((each) => each.trim())
      .filter((each) => each && each !== 'nothing'),
  }));
  assert.deepEqual(
    rows,
    LAYERS.map((layer) => ({ name: layer.name, may: layer.may.filter((each) => each !== layer.name) })),
  );
});

/** The repository paths a file imports from the product (packages left out). */
const importedBy = (path: string) =>
  importsOf(readFileSync(join(ROOT, path), 'utf8')).flatMap((specifier) => resolve(path, specifier) ?? []);

test('the lock history does not depend on the timeline or the views: the webview protocol builds on it', () => {
  const offenders = sources()
    .filter((path) => path.startsWith('extension/src/locks/'))
    .flatMap((path) =>
      importedBy(path)
        .filter((target) => /^extension\/src\/(timeline|views)\//.test(target))
        .map((target) => `${path} imports ${target}`),
    );
  assert.deepEqual(offenders, []);
});

test("the Locks view's rows and hovers show what the controller read: no command of their own through the pack's runtime", () => {
  const tree = 'extension/src/views/locksTree.ts';
  const runtime = importedBy(tree).filter((target) => target.startsWith('pack/'));
  const scripts = /\.scripts\(/.test(readFileSync(join(ROOT, tree), 'utf8')) ? ['calls connections.scripts()'] : [];
  assert.deepEqual([...runtime, ...scripts], []);
});

test("a connection's tree node (a command argument) is built by connectionNode() alone", () => {
  const offenders = sources()
    .filter((path) => path.startsWith('extension/src/') && path !== 'extension/src/views/nodes.ts')
    .filter((path) => /kind:\s*'connection'/.test(readFileSync(join(ROOT, path), 'utf8')));
  assert.deepEqual(offenders, []);
});

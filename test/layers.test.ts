// Which layer of the extension may import which: the core (locks/, the plain connection modules,
// settings.ts) imports no `vscode`; the lock history is the core the timeline's webview protocol
// builds on, never the reverse; the Locks view shows what the controller read and sends no
// command of its own; and the tree's nodes, which commands receive as arguments, are built by
// one typed constructor. Read from the sources, so a new import that breaks a rule fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = join(__dirname, '..');
const SRC = join(ROOT, 'extension', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each module a file imports (static imports, `export ... from`, and type-only ones), resolved to a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms)].map(([, spec]) =>
    spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)) : spec,
  );
}

const rel = (file: string) => relative(ROOT, file);

test('the core imports no vscode', () => {
  const core = [
    ...sources(join(SRC, 'locks')),
    ...sources(join(SRC, 'connections')).filter((file) => !/(connections|tlsMigration)\.ts$/.test(file)),
    join(SRC, 'settings.ts'),
  ];
  const offenders = core.filter((file) => importsOf(file).includes('vscode')).map(rel);
  assert.deepEqual(offenders, []);
});

test('the lock history does not depend on the timeline: the webview protocol builds on the history', () => {
  const offenders = sources(join(SRC, 'locks')).flatMap((file) =>
    importsOf(file)
      .filter((path) => path.startsWith('extension/src/timeline') || path.startsWith('extension/src/views'))
      .map((path) => `${rel(file)} imports ${path}`),
  );
  assert.deepEqual(offenders, []);
});

test("the Locks view's rows and hovers show what the controller read: no command of their own through the pack's runtime", () => {
  const tree = join(SRC, 'views', 'locksTree.ts');
  const runtime = importsOf(tree).filter((path) => path.startsWith('pack/'));
  const scripts = /\.scripts\(/.test(readFileSync(tree, 'utf8')) ? ['calls connections.scripts()'] : [];
  assert.deepEqual([...runtime, ...scripts], []);
});

test("a connection's tree node (a command argument) is built by connectionNode() alone", () => {
  const offenders = sources(SRC)
    .filter((file) => !file.endsWith(join('views', 'nodes.ts')))
    .filter((file) => /kind:\s*'connection'/.test(readFileSync(file, 'utf8')))
    .map(rel);
  assert.deepEqual(offenders, []);
});

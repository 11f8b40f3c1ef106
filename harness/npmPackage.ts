// The npm package users install (`npm run package:npm`, tools/npm-package.ts): packed once for
// all the test files that need it, under a lock, from the production bundles of the current
// sources; and installed from its tarball into an empty folder with no network, as a CI job or
// an editor's user would get it.
import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildNpmPackage, OUT } from '../tools/npm-package';
import { onceUnderLock } from './once';
import { ensureVsix, ROOT } from './vsix';

const LOCK = join(ROOT, '.npm-packaging.lock');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// What the package is made from, besides the sources the .vsix's freshness already covers.
const INPUTS = [
  'server/out/cli.js',
  'server/out/server.js',
  'docs',
  'snippets/templates',
  'scripts-lua',
  'LICENSE',
  'package.json',
  'tools/npm-package.ts',
];

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function packed(): string | undefined {
  if (!existsSync(OUT)) return undefined;
  const tarball = readdirSync(OUT).find((name) => name.endsWith('.tgz'));
  if (!tarball) return undefined;
  const path = join(OUT, tarball);
  const built = statSync(path).mtimeMs;
  return INPUTS.every((input) => !existsSync(join(ROOT, input)) || newest(join(ROOT, input)) <= built)
    ? path
    : undefined;
}

const isProductionBuild = () =>
  ['server/out/cli.js', 'server/out/server.js'].every(
    (bundle) =>
      existsSync(join(ROOT, bundle)) && !readFileSync(join(ROOT, bundle), 'utf8').includes('//# sourceMappingURL='),
  );

/** The path of the package's .tgz, packed from the current sources. */
export async function ensureNpmPackage(): Promise<string> {
  await ensureVsix();
  return onceUnderLock(LOCK, packed, async () => {
    // `npm run build` since the .vsix was packaged leaves development bundles: build them again for production.
    if (!isProductionBuild())
      await promisify(execFile)(npm, ['run', 'vscode:prepublish'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    return buildNpmPackage().tarball;
  });
}

/** The files in a tarball, without npm's `package/` prefix, sorted. */
export function tarballFiles(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''))
    .sort();
}

/** Folders made by `installNpmPackage`, removed by `removeInstalls`. */
const installs: string[] = [];

/**
 * An empty project with the package installed from `tarball` by `npm install --offline`, with a
 * cache of its own that starts empty: a dependency to fetch would fail the install.
 */
export async function installNpmPackage(tarball: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'locksmith-npm-'));
  installs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{ "name": "scratch", "private": true }\n');
  await promisify(execFile)(
    npm,
    ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(dir, 'npm-cache'), tarball],
    { cwd: project, maxBuffer: 16 * 1024 * 1024 },
  );
  return project;
}

export function removeInstalls(): void {
  for (const dir of installs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

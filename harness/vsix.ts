// The .vsix users install, packaged by `npm run package` (vsce, with the production build): the
// one made by `npm test` before the test files run, or made here when it is missing or older
// than what it ships, under a lock so that test files running side by side package it once.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { onceUnderLock } from './once';

export const ROOT = join(__dirname, '..');
// What the package is made from: a change to any of these makes a packaged .vsix stale.
const SOURCES = [
  'package.json',
  'README.md',
  'docs',
  'CHANGELOG.md',
  '.vscodeignore',
  'extension/src',
  'server/src',
  'pack',
  'snippets',
  'scripts-lua',
  'media',
];
const LOCK = join(ROOT, '.vsix-packaging.lock');

export function vsixPath(): string {
  const { name, version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return join(ROOT, `${name}-${version}.vsix`);
}

function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

function isFresh(vsix: string): boolean {
  if (!existsSync(vsix)) return false;
  const built = statSync(vsix).mtimeMs;
  return SOURCES.every((source) => !existsSync(join(ROOT, source)) || newestSource(join(ROOT, source)) <= built);
}

/** The path of a .vsix packaged from the current sources. */
export function ensureVsix(): Promise<string> {
  const vsix = vsixPath();
  return onceUnderLock(
    LOCK,
    () => (isFresh(vsix) ? vsix : undefined),
    async () => {
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
      await promisify(execFile)(npm, ['run', 'package'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
      return vsix;
    },
  );
}

// The files `lint [paths...]` checks: each path that is a file, as named (even when .gitignore
// lists it: it was asked for); each folder walked for files of the linted languages, skipping
// what git ignores (the repository's .gitignore files from its root down, .git/info/exclude), the
// .git folder and node_modules, and never following symbolic links. Sorted, each file once.
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { languageOfFile, type LintedLanguage } from '../languages';
import { IgnoreFile, IgnoreStack } from './gitignore';

export interface FoundFile {
  /** Absolute path, forward slashes. */
  path: string;
  languageId: LintedLanguage;
}

export interface WalkResult {
  files: FoundFile[];
  /** Paths as given that do not exist. */
  missing: string[];
  /** Files named on the command line that are of no linted language. */
  unsupported: string[];
}

/** Folders never entered: git's own, and installed packages even where no .gitignore lists them. */
const NEVER_ENTERED = new Set(['.git', 'node_modules']);

export const toSlashes = (path: string) => path.split('\\').join('/');

/** The repository's top folder: the nearest folder at or above `dir` holding `.git` (a folder, or a worktree's file). */
export function gitRootOf(dir: string, cache: Map<string, string | undefined>): string | undefined {
  if (cache.has(dir)) return cache.get(dir);
  const parent = dirname(dir);
  const root = existsSync(join(dir, '.git')) ? dir : parent === dir ? undefined : gitRootOf(parent, cache);
  cache.set(dir, root);
  return root;
}

async function readIgnoreFile(path: string): Promise<IgnoreFile | undefined> {
  try {
    return IgnoreFile.parse(await readFile(path, 'utf8'));
  } catch {
    // none there, or unreadable: nothing ignored by it
    return undefined;
  }
}

/** The ignore files that apply in `dir` before its own: the repository's, from its top down to dir's parent. */
async function stackAbove(dir: string, gitRoot: string | undefined): Promise<IgnoreStack> {
  let stack = IgnoreStack.EMPTY;
  if (!gitRoot) return stack;
  const exclude = await readIgnoreFile(join(gitRoot, '.git', 'info', 'exclude'));
  if (exclude) stack = stack.with(toSlashes(gitRoot), exclude);
  const chain: string[] = [];
  for (let at = dir; at !== gitRoot; at = dirname(at)) chain.unshift(at);
  for (const folder of [gitRoot, ...chain].slice(0, -1)) {
    const file = await readIgnoreFile(join(folder, '.gitignore'));
    if (file) stack = stack.with(toSlashes(folder), file);
  }
  return stack;
}

export async function collectFiles(
  paths: readonly string[],
  cwd: string,
  onFound?: (count: number) => void,
): Promise<WalkResult> {
  const found = new Map<string, FoundFile>();
  const missing: string[] = [];
  const unsupported: string[] = [];
  const gitRoots = new Map<string, string | undefined>();
  const add = (path: string, languageId: LintedLanguage) => {
    if (found.has(path)) return;
    found.set(path, { path, languageId });
    onFound?.(found.size);
  };

  const walk = async (dir: string, inherited: IgnoreStack): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    const slashed = toSlashes(dir);
    let stack = inherited;
    if (entries.some((entry) => entry.name === '.gitignore' && entry.isFile())) {
      const own = await readIgnoreFile(join(dir, '.gitignore'));
      if (own) stack = stack.with(slashed, own);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = `${slashed === '/' ? '' : slashed}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!NEVER_ENTERED.has(entry.name) && !stack.ignores(path, true)) await walk(join(dir, entry.name), stack);
      } else if (entry.isFile()) {
        const languageId = languageOfFile(entry.name);
        if (languageId && !stack.ignores(path, false)) add(path, languageId);
      }
    }
  };

  for (const given of paths) {
    const path = resolve(cwd, given);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      missing.push(given);
      continue;
    }
    if (!isDirectory) {
      const languageId = languageOfFile(path);
      if (languageId) add(toSlashes(path), languageId);
      else unsupported.push(given);
      continue;
    }
    await walk(path, await stackAbove(path, gitRootOf(path, gitRoots)));
  }
  const files = [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, missing, unsupported };
}

// One writer at a time for a folder of the per-machine cache (~/.cache/redis-locksmith/): test
// files run in parallel, and a download or build into the cache must happen once, not in each.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { atExit } from './atExit';

const POLL_MS = 500;

/**
 * Takes the lock folder `<root>/<name>.lock` (mkdir is atomic; its `pid` file names the owner, so
 * a dead owner's lock is taken over), or returns early with a no-op release once `done()` says
 * another process finished the work. Gives up after `staleMs`.
 */
export async function takeCacheLock(
  root: string,
  name: string,
  done: () => boolean,
  staleMs: number,
): Promise<() => void> {
  mkdirSync(root, { recursive: true });
  const lock = join(root, `${name}.lock`);
  const deadline = Date.now() + staleMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      const cancel = atExit(() => rmSync(lock, { recursive: true, force: true }));
      return () => {
        cancel();
        rmSync(lock, { recursive: true, force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (done()) return () => {};
    const owner = Number(readFileSafely(join(lock, 'pid')));
    if (owner > 0 && !isRunning(owner)) rmSync(lock, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`waited ${Math.round(staleMs / 60_000)} min for ${lock}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Runs `work` holding the lock `name` in `root` (no early return: every caller's work runs, one at a time). */
export async function withCacheLock<T>(
  root: string,
  name: string,
  staleMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const release = await takeCacheLock(root, name, () => false, staleMs);
  try {
    return await work();
  } finally {
    release();
  }
}

export function readFileSafely(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

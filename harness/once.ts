// Work that test files running side by side must do once per machine or checkout (packaging,
// installing): the first to make the lock folder (mkdir is atomic) does it, the others wait for
// the folder to go and then find the work done. The lock goes however the process ends.
import { mkdirSync, rmSync } from 'node:fs';
import { atExit } from './atExit';

/** `done()` when it says the work is done (not undefined), else `make()` under `lock`. */
export async function onceUnderLock<T>(
  lock: string,
  done: () => T | undefined,
  make: () => Promise<T>,
  timeoutMs = 300_000,
): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const ready = done();
    if (ready !== undefined) return ready;
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline)
        throw new Error(`waited ${timeoutMs / 60_000} min for ${lock}: remove it if nothing runs`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const cancel = atExit(() => rmSync(lock, { recursive: true, force: true }));
  try {
    return done() ?? (await make());
  } finally {
    cancel();
    rmSync(lock, { recursive: true, force: true });
  }
}

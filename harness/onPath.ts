// Finding a tool the way a shell does, on PATH, rather than at one distribution's path.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable named `command` in `path`'s folders, or undefined. */
export function findOnPath(command: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

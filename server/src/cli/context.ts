// Where a file's project is (its lock helper, its manifests) and what the analysis needs for it:
// the same in the main thread and in every analysis worker.
import { dirname, sep } from 'node:path';
import type { Pack } from '../../../pack/pack';
import { ManifestCache } from '../manifests';
import type { AnalysisContext } from './lint';
import { gitRootOf } from './walk';

export interface ProjectRoots {
  /** The repository's top folder at or above `dir`, if any. */
  topOf: (dir: string) => string | undefined;
  /** A file's project folder: its repository's top, else the working folder when the file is in it, else its own folder. */
  rootOf: (path: string) => string;
}

export function projectRoots(cwd: string): ProjectRoots {
  const gitRoots = new Map<string, string | undefined>();
  const topOf = (dir: string) => gitRootOf(dir, gitRoots);
  return {
    topOf,
    rootOf: (path) => {
      const dir = dirname(path);
      return topOf(dir) ?? (dir === cwd || dir.startsWith(cwd + sep) ? cwd : dir);
    },
  };
}

/** The analysis context of a run: manifests read once per folder (a run does not change them). */
export function analysisContext(pack: Pack, rootOf: (path: string) => string): AnalysisContext {
  const manifests = new ManifestCache();
  return {
    pack,
    projectOf: (path) => {
      const root = rootOf(path);
      return { root, manifests: manifests.forFile(path, root) };
    },
  };
}

// The dependency manifests a file's project has (package.json, requirements.txt, pom.xml, go.mod,
// composer.json, Gemfile, *.csproj...), read once per folder and kept: the fixes ask for them on
// every code action and for every file the CLI fixes, and a walk up 8 folders reading each from
// disk each time cost more than the fix itself. The language server forgets a folder when one of
// its manifests changes (it watches them); the CLI reads each folder once per run.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { MANIFEST_GLOBS, type Manifest } from '../../snippets/infer';

/** A manifest found on disk: its base name, its path relative to the workspace root (forward slashes), its text. */
export type FoundManifest = Manifest & { path: string };

/** How far up from a file's folder manifests are looked for when no workspace root bounds the walk. */
const MAX_LEVELS = 8;

/** Whether a file name is one of the manifests the client inference reads. */
export const isManifestName = (name: string): boolean =>
  MANIFEST_GLOBS.some((glob) => (glob.startsWith('*') ? name.endsWith(glob.slice(1)) : name === glob));

/** The manifests of one folder, absolute paths. */
type FolderManifests = { name: string; path: string; text: string }[];

export class ManifestCache {
  private readonly folders = new Map<string, FolderManifests>();

  /** Manifests in the file's folder and its parents, up to `root` (or 8 levels); paths relative to `root` when given. */
  forFile(file: string, root?: string): FoundManifest[] {
    const found: FoundManifest[] = [];
    let dir = dirname(file);
    for (let level = 0; level < MAX_LEVELS; level++) {
      for (const manifest of this.folder(dir))
        found.push({
          name: manifest.name,
          path: (root ? relative(root, manifest.path) : manifest.path).split('\\').join('/'),
          text: manifest.text,
        });
      if (dir === root || dirname(dir) === dir) break;
      dir = dirname(dir);
    }
    return found;
  }

  /** Forgets what was read of `path`'s folder when `path` is a manifest (created, changed or deleted); true if so. */
  changed(path: string): boolean {
    if (!isManifestName(basename(path))) return false;
    this.folders.delete(dirname(path));
    return true;
  }

  clear(): void {
    this.folders.clear();
  }

  private folder(dir: string): FolderManifests {
    let manifests = this.folders.get(dir);
    if (!manifests) {
      manifests = [];
      try {
        for (const name of readdirSync(dir)) {
          if (!isManifestName(name)) continue;
          const path = join(dir, name);
          try {
            manifests.push({ name, path, text: readFileSync(path, 'utf8') });
          } catch {
            // a folder named like a manifest, or unreadable: not a manifest to read
          }
        }
      } catch {
        // unreadable folder: nothing here, look further up
      }
      this.folders.set(dir, manifests);
    }
    return manifests;
  }
}

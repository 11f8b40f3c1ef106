// The project's lock helper as the fixes use it: the one the project has at one of its usual
// places, else the first free one of them, created by the fix (never over a file of the user's
// own), and how a file imports it. The helper rewrite, the release and the renewal fixes all go
// through here, so a project gets one helper per client, found again by every later fix.
import { posix, relative, resolve } from 'node:path';
import type { Pack } from '../../../pack/pack';
import type { ClientInfo } from '../../../snippets/clients';
import { checkHelperFile, renderHelper } from '../../../snippets/helper';
import { helperCallImports, type HelperOp } from '../../../snippets/helperApi';
import { helperImportFor, proposeHelperPlacements, type ProjectFile } from '../../../snippets/paths';
import type { JsFlavor } from '../../../snippets/template';
import type { FileChange } from '../lockFix';
import { noFix, type NoFix } from './remedy';

export interface ProjectHelper {
  client: ClientInfo;
  /** How the file names the helper in an import (see CallSiteOptions). */
  helperImport: string;
  flavor?: JsFlavor;
  /** The helper file the fix adds, when the project has none yet. */
  created?: FileChange & { create: string };
  /** The created helper's path relative to the file's folder, for titles ("adding lib/locksmith.ts"). */
  addedPath?: string;
}

export interface HelperContext {
  pack: Pack;
  /** Absolute paths; absent for an unsaved file. */
  file?: string;
  root?: string;
  text: string;
  manifests: readonly ProjectFile[];
  readFile(path: string): string | undefined;
  /** Whether the fix may create the helper file. */
  canCreateFiles: boolean;
}

/** The project's helper for `client`: found, or (when allowed) created at its first free usual place. */
export function projectHelper(client: ClientInfo, context: HelperContext): ProjectHelper | NoFix {
  const { file, root, pack } = context;
  if (!file || !root) return noFix('no-project', 'the file is not saved in a folder: the lock helper has no place');
  const project = {
    file: { path: relative(root, file).split('\\').join('/'), text: context.text },
    manifests: context.manifests,
  };
  const proposals = proposeHelperPlacements(client.id, project);
  for (const placement of proposals) {
    const existing = context.readFile(resolve(root, placement.path));
    if (existing !== undefined && checkHelperFile(existing, pack)?.header.client === client.id)
      return { client, ...helperImportFor(client.id, { path: placement.path, text: existing }, project) };
  }
  if (!context.canCreateFiles)
    return noFix('no-helper', 'the project has no lock helper and this editor cannot create one: add it first');
  // A file of the user's own at a usual place is never overwritten: the next free place.
  const placement = proposals.find((each) => context.readFile(resolve(root, each.path)) === undefined);
  if (!placement)
    return noFix('no-helper', 'files of your own stand where the lock helper would go: add it with "Add Lock Helper"');
  let rendered: string | undefined;
  const path = resolve(root, placement.path);
  return {
    client,
    helperImport: placement.helperImport,
    flavor: placement.flavor,
    // Rendered when the changes are written or shown, not for a title in a list.
    created: {
      path,
      get create() {
        return (rendered ??= renderHelper(client.id, pack, placement.options).text);
      },
    },
    addedPath: posix.relative(posix.dirname(project.file.path), relative(root, path).split('\\').join('/')),
  };
}

/** The import lines a file needs for calls of the helper's `ops` (names from the helper API). */
export function helperImports(helper: ProjectHelper, importedNames: readonly string[]): string[] {
  const lines = helperCallImports(helper.client.id, importedNames, {
    helperImport: helper.helperImport,
    flavor: helper.flavor,
  });
  // An aliased name (`releaseLock as locksmithReleaseLock`) is destructured with a colon in a require.
  return lines.map((line) => (/^const \{/.test(line) ? line.replace(/(\w+) as (\w+)/g, '$1: $2') : line));
}

export type { HelperOp };

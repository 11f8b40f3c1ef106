// The project's lock helper as the fixes use it: the one the project has at one of its usual
// places, else the first free one of them, created by the fix (never over a file of the user's
// own), and how a file imports it. The helper rewrite, the release and the renewal fixes all go
// through here, so a project gets one helper per client, found again by every later fix.
import { posix, relative, resolve } from 'node:path';
import type { Pack } from '../../../pack/pack';
import { CLIENTS, type ClientInfo } from '../../../snippets/clients';
import { checkHelperFile, renderHelper } from '../../../snippets/helper';
import { helperCallImports, type HelperOp } from '../../../snippets/helperApi';
import { helperImportFor, helperSearchPaths, proposeHelperPlacements, type ProjectFile } from '../../../snippets/paths';
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
  /** Why it was created elsewhere than its usual place (a file of the user's own is there), for titles. */
  elsewhere?: string;
  /** The same for reports ("wrote the helper at ...: ... is a file of yours"). */
  note?: string;
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

/** Where a language keeps the helper when the project has no place for one. */
const NO_PLACE: Record<string, string> = {
  go: 'the file is in no Go module (go.mod), where the helper package would go',
  rs: 'the file is in no Cargo package (Cargo.toml), where the helper module would go',
};

/**
 * The project's helper for `client`: the one it has (one per client library, which a file of
 * another folder may have created), else (when allowed) created at the first usual place that no
 * file of the user's own takes. A NoFix says why there is none (its `why` fits "...: why").
 */
export function projectHelper(client: ClientInfo, context: HelperContext): ProjectHelper | NoFix {
  const { file, root, pack } = context;
  if (!file || !root)
    return noFix(
      'no-project',
      'no helper file can be written here (an unsaved file, or an editor that creates no files)',
    );
  const project = {
    file: { path: relative(root, file).split('\\').join('/'), text: context.text },
    manifests: context.manifests,
  };
  const proposals = proposeHelperPlacements(client.id, project);
  if (!proposals.length)
    return noFix('no-helper', NO_PLACE[client.extension] ?? 'the project has no place for a helper');
  for (const path of helperSearchPaths(client.id, project)) {
    const existing = context.readFile(resolve(root, path));
    if (existing !== undefined && checkHelperFile(existing, pack)?.header.client === client.id)
      return { client, ...helperImportFor(client.id, { path, text: existing }, project) };
  }
  if (!context.canCreateFiles)
    return noFix(
      'no-project',
      'no helper file can be written here (an unsaved file, or an editor that creates no files)',
    );
  // A file of the user's own at a usual place is never overwritten: the next free place.
  const taken = proposals.filter((each) => context.readFile(resolve(root, each.path)) !== undefined);
  const notHelpers = taken.map((each) => each.path).join(' and ');
  const placement = proposals.find((each) => !taken.includes(each));
  // Java names every client's helper Locksmith.java: a Jedis helper in the package leaves no place for Spring's.
  const takenText = taken.length === 1 ? context.readFile(resolve(root, taken[0].path)) : undefined;
  const other = takenText === undefined ? undefined : checkHelperFile(takenText, pack);
  if (!placement && other)
    return noFix(
      'no-helper',
      `${notHelpers} is the ${CLIENTS.find((each) => each.id === other.header.client)?.library ?? other.header.client} helper, and the ${client.library} helper would take its name: move one of them to another folder`,
    );
  if (!placement)
    return noFix(
      'no-helper',
      `${notHelpers} ${taken.length > 1 ? 'are files' : 'is a file'} of yours, not a Locksmith ${client.library} helper`,
    );
  let rendered: string | undefined;
  const path = resolve(root, placement.path);
  const placedAt = relative(root, path).split('\\').join('/');
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
    addedPath: posix.relative(posix.dirname(project.file.path), placedAt),
    ...(taken.length && {
      elsewhere: `${notHelpers} is not a Locksmith helper`,
      note: `wrote the helper at ${placedAt}: ${notHelpers} is a file of yours, not a Locksmith helper`,
    }),
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

/**
 * Why the helper's `call` cannot take the client the code holds in `receiver` (undefined when it
 * can): Jedis's acquire takes a pool or a UnifiedJedis, not one `Jedis` connection (its release
 * and extend take any); Lettuce's calls take the synchronous commands, not the async or reactive ones.
 */
export function helperClientBlocker(
  clientId: string,
  text: string,
  receiver: string,
  call: 'acquire' | 'release',
): NoFix | undefined {
  const name = receiver.replace(/^this\./, '');
  if (call === 'acquire' && clientId === 'jedis' && new RegExp(`\\bJedis\\s+${name}\\b`).test(text))
    return noFix('client-connection', 'the lock helper takes a pool or a UnifiedJedis, not one Jedis connection');
  if (
    clientId === 'lettuce' &&
    new RegExp(`\\bRedis\\w*(?:Async|Reactive)Commands\\s*<[^>]*>\\s+${name}\\b`).test(text)
  )
    return noFix(
      'client-connection',
      "the lock helper takes Lettuce's synchronous commands, not async or reactive ones",
    );
  return undefined;
}

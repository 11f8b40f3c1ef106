// "Add Lock Helper to Project": one lock module per project and client library, written where the
// ecosystem keeps such a module (asked, with the usual place proposed), remembered per workspace,
// and the one Insert Lock Snippet and the quick fix call. It carries the plain lock; the lock kinds
// beyond it (reentrant, read-write, semaphore) go into the same file when asked for. An existing
// copy is updated in place, keeping its kinds and its place.
import * as vscode from 'vscode';
import type { ClientInfo } from '../../../snippets/clients';
import { KIND_TITLES, KINDS, noSuchKind, type Kind } from '../../../snippets/compose';

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
import {
  carriedKinds,
  checkHelperFile,
  helperKinds,
  refreshHelper,
  renderHelper,
  suggestedKinds,
} from '../../../snippets/helper';
import {
  helperImportFor,
  helperSearchPaths,
  proposeHelperPlacements,
  type HelperPlacement,
} from '../../../snippets/paths';
import type { JsFlavor } from '../../../snippets/template';
import type { Cmd, Ctx } from '../ctx';
import { projectOf, readIfExists, type Project } from '../project';
import { stepDone } from '../walkthrough';
import { chooseClient } from './pickClient';

/** Per workspace: the workspace-relative path of each client's helper. */
const REMEMBERED = 'locksmith.helpers';

/** A helper as a file of the project calls it. */
export interface ProjectHelper {
  uri: vscode.Uri;
  /** Workspace-relative path. */
  path: string;
  helperImport: string;
  flavor?: JsFlavor;
}

export type HelperOutcome =
  | { ok: true; path: string; action: 'created' | 'updated' | 'up-to-date'; kinds: Kind[] }
  | { ok: false; message: string }
  | 'cancelled';

function remembered(ctx: Ctx): Record<string, string> {
  return ctx.extension.workspaceState.get<Record<string, string>>(REMEMBERED) ?? {};
}

/** The helper `project.file` should call: the one remembered for the client, else one the project has at a usual place. */
export async function findHelper(ctx: Ctx, client: ClientInfo, project: Project): Promise<ProjectHelper | undefined> {
  const candidates = [remembered(ctx)[client.id], ...helperSearchPaths(client.id, project)].filter(
    (path): path is string => !!path,
  );
  for (const path of new Set(candidates)) {
    const uri = vscode.Uri.joinPath(project.folder.uri, path);
    const text = await readIfExists(uri);
    if (text === undefined || checkHelperFile(text, ctx.pack)?.header.client !== client.id) continue;
    return { uri, path, ...helperImportFor(client.id, { path, text }, project) };
  }
  return undefined;
}

/** Writes the helper at `placement` (`text`: rendered from its options) in one undoable edit, and remembers it for the workspace. */
export async function writeHelper(
  ctx: Ctx,
  client: ClientInfo,
  project: Project,
  placement: HelperPlacement,
  text: string = renderHelper(client.id, ctx.pack, placement.options).text,
): Promise<ProjectHelper> {
  const uri = vscode.Uri.joinPath(project.folder.uri, placement.path);
  const edit = new vscode.WorkspaceEdit();
  edit.createFile(uri, { overwrite: true, contents: new TextEncoder().encode(text) });
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not write ${placement.path}`);
  await ctx.extension.workspaceState.update(REMEMBERED, { ...remembered(ctx), [client.id]: placement.path });
  ctx.log.info(`wrote the ${client.id} lock helper to ${placement.path}`);
  stepDone('codeWritten');
  return { uri, path: placement.path, helperImport: placement.helperImport, flavor: placement.flavor };
}

/** The place for a new helper: `path` when given, else the user's pick among the usual places. */
async function choosePlacement(
  client: ClientInfo,
  project: Project,
  path?: string,
): Promise<HelperPlacement | undefined> {
  const proposals = proposeHelperPlacements(client.id, project);
  if (path) return proposals.find((placement) => placement.path === path) ?? { ...proposals[0], path };
  if (!proposals.length) {
    void vscode.window.showErrorMessage(
      `No place for a ${client.library} helper here: ${client.id === 'go-redis' || client.id === 'redigo' ? 'the file is in no Go module (go.mod)' : 'the file is in no Cargo package (Cargo.toml)'}.`,
    );
    return undefined;
  }
  if (proposals.length === 1) return proposals[0];
  const picked = await vscode.window.showQuickPick(
    proposals.map((placement) => ({ label: placement.path, description: placement.why, placement })),
    { title: `Add Lock Helper (${client.library}): where?` },
  );
  return picked?.placement;
}

/** The parts (lock kinds, features) to add: `named` when given (checked), else the user's pick among the client's, `has` ticked (what the helper carries, or what the file suggests). */
async function chooseKinds(client: ClientInfo, named: string[] | undefined, has: Kind[]): Promise<Kind[] | undefined> {
  const available = helperKinds(client.id);
  if (named) {
    const unknown = named.find((kind) => !(available as string[]).includes(kind));
    if (unknown !== undefined) {
      throw new Error(`${capitalized(noSuchKind(client.id, unknown, available))}.`);
    }
    return KINDS.filter((kind) => named.includes(kind));
  }
  if (!available.length) return [];
  const picked = await vscode.window.showQuickPick(
    available.map((lockKind) => ({
      label: lockKind,
      description: KIND_TITLES[lockKind],
      picked: has.includes(lockKind),
      lockKind,
    })),
    {
      title: `Add Lock Helper (${client.library}): lock kinds and features beyond the plain lock`,
      placeHolder: 'The helper carries what the project uses: none for the plain lock alone',
      canPickMany: true,
    },
  );
  return picked?.map((item) => item.lockKind);
}

/** `args` skips the prompts: `{ client: 'redis-py', path: 'app/locksmith.py', kinds: ['semaphore'] }`. */
export function addLockHelper(ctx: Ctx): Cmd {
  return async (args?: { client?: string; path?: string; kinds?: string[] }): Promise<HelperOutcome> => {
    const document = vscode.window.activeTextEditor?.document;
    const project = document && (await projectOf(document));
    if (!document || !project) {
      const message = 'Open a saved file of a workspace folder: the lock helper becomes a file of that project.';
      void vscode.window.showErrorMessage(message);
      return { ok: false, message };
    }
    const client = await chooseClient(ctx, document, project.manifests, args?.client, 'Add Lock Helper');
    if (!client) return 'cancelled';
    const existing = await findHelper(ctx, client, project);
    const existingText = existing && (await readIfExists(existing.uri));
    // With args (a keybinding, a test), no prompt: the kinds named, else none added.
    const kinds = await chooseKinds(
      client,
      args ? (args.kinds ?? []) : undefined,
      existingText ? carriedKinds(existingText) : suggestedKinds(client.id, document.getText()),
    );
    if (!kinds) return 'cancelled';
    if (existing && existingText !== undefined) {
      const refresh = refreshHelper(existingText, ctx.pack, kinds)!;
      const kept = { kinds: carriedKinds(refresh.text ?? existingText) };
      if (refresh.text === undefined) {
        void vscode.window.showInformationMessage(
          `${existing.path} is the project's ${client.library} lock helper, up to date.`,
        );
        return { ok: true, path: existing.path, action: 'up-to-date', kinds: kept.kinds };
      }
      if (refresh.edited && !args) {
        const answer = await vscode.window.showWarningMessage(
          `${existing.path} is to be rewritten (${refresh.reasons.join('; ')}) and was edited by hand. Rewrite it?`,
          {
            modal: true,
            detail:
              'Rewriting it from the installed pack replaces your edits (one undo brings them back); its lock kinds and place stay.',
          },
          'Rewrite',
        );
        if (answer !== 'Rewrite') return 'cancelled';
      }
      const placement = { ...proposeHelperPlacements(client.id, project)[0], path: existing.path };
      await writeHelper(ctx, client, project, placement, refresh.text);
      return { ok: true, path: existing.path, action: 'updated', kinds: kept.kinds };
    }
    const placement = await choosePlacement(client, project, args?.path);
    if (!placement) return 'cancelled';
    const options = { ...placement.options, kinds: kinds.join(',') || undefined };
    await writeHelper(ctx, client, project, { ...placement, options });
    if (placement.also) void vscode.window.showInformationMessage(`Added ${placement.path}; also ${placement.also}`);
    else vscode.window.setStatusBarMessage(`Added the lock helper ${placement.path}`, 4000);
    return { ok: true, path: placement.path, action: 'created', kinds };
  };
}

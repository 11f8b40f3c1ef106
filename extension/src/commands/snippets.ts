// "Insert Lock Snippet": pick a client (inferred from the file, the workspace's manifests and
// the last choice here) and a pattern, then insert either a few lines that call the project's
// lock helper (adding the helper first when the project has none) with the import at the top of
// the file, or, as an explicit choice, the self-contained inline code.
import * as vscode from 'vscode';
import { renderCallSiteSnippet } from '../../../snippets/callsite';
import type { ClientInfo } from '../../../snippets/clients';
import { planImports } from '../../../snippets/imports';
import { proposeHelperPlacements } from '../../../snippets/paths';
import { PATTERN_INFO, PATTERNS, type PatternId } from '../../../snippets/patterns';
import { renderSnippet } from '../../../snippets/render';
import type { Cmd, Ctx } from '../ctx';
import { projectOf, readManifests, type Project } from '../project';
import { findHelper, writeHelper, type ProjectHelper } from './lockHelper';
import { stepDone } from '../walkthrough';
import { chooseClient } from './pickClient';

export type SnippetVariant = 'helper' | 'inline';

/** What Insert Lock Snippet did, for keybindings and tests. */
export type InsertOutcome =
  { inserted: SnippetVariant; client: string; pattern: PatternId; helper?: string } | { error: string } | 'cancelled';

async function pickPattern(): Promise<PatternId | undefined> {
  const items = PATTERNS.map((pattern) => ({
    label: PATTERN_INFO[pattern].label,
    detail: PATTERN_INFO[pattern].description,
    pattern,
  }));
  return (await vscode.window.showQuickPick(items, { title: 'Insert Lock Snippet: pattern' }))?.pattern;
}

async function pickVariant(project: Project | undefined): Promise<SnippetVariant | undefined> {
  const items: Array<vscode.QuickPickItem & { variant: SnippetVariant }> = [
    {
      label: 'Call the lock helper',
      detail: project
        ? "A few lines here; the pack's scripts live once, in the project's helper module (added if missing)."
        : 'Needs a saved file in a workspace folder: the helper is a file of the project.',
      variant: 'helper',
    },
    {
      label: 'Inline, no helper file',
      detail: 'Self-contained code with the scripts embedded: for scripts and one-off jobs.',
      variant: 'inline',
    },
  ];
  return (await vscode.window.showQuickPick(project ? items : items.slice(1), { title: 'Insert Lock Snippet: how' }))
    ?.variant;
}

/** The project's helper for `client`; when it has none, the user's choice of a place to add it, or undefined for inline. */
async function helperFor(
  ctx: Ctx,
  client: ClientInfo,
  project: Project,
  ask: boolean,
): Promise<ProjectHelper | undefined> {
  const existing = await findHelper(ctx, client, project);
  if (existing) return existing;
  const proposals = proposeHelperPlacements(client.id, project);
  if (!proposals.length) return undefined;
  if (!ask) return writeHelper(ctx, client, project, proposals[0]);
  const picked = await vscode.window.showQuickPick(
    [
      ...proposals.map((placement) => ({
        label: `Add the lock helper at ${placement.path}, then insert`,
        description: placement.why,
        placement,
      })),
      { label: 'Insert the inline code instead', description: 'no helper file', placement: undefined },
    ],
    { title: `This project has no ${client.library} lock helper yet` },
  );
  return picked?.placement && writeHelper(ctx, client, project, picked.placement);
}

/** `args` skips the pickers (keybindings, tests): `{ client: 'redis-py', pattern: 'guard', variant: 'helper' }`. */
export function insertLockSnippet(ctx: Ctx): Cmd {
  return async (args?: { client?: string; pattern?: string; variant?: SnippetVariant }): Promise<InsertOutcome> => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showErrorMessage('Open a file to insert a lock snippet into.');
      return { error: 'no active editor' };
    }
    const project = await projectOf(editor.document);
    const manifests = project?.manifests ?? (await readManifests());
    const client = await chooseClient(ctx, editor.document, manifests, args?.client, 'Insert Lock Snippet');
    if (!client) return 'cancelled';
    const pattern = (PATTERNS as readonly string[]).includes(args?.pattern ?? '')
      ? (args!.pattern as PatternId)
      : await pickPattern();
    if (!pattern) return 'cancelled';
    const variant = args?.variant ?? (await pickVariant(project));
    if (!variant) return 'cancelled';
    const helper = variant === 'helper' && project ? await helperFor(ctx, client, project, !args) : undefined;
    if (!helper) {
      await editor.insertSnippet(new vscode.SnippetString(renderSnippet(client.id, pattern, ctx.pack)));
      ctx.log.info(`inserted the inline ${pattern} snippet for ${client.id}`);
      stepDone('codeWritten');
      return { inserted: 'inline', client: client.id, pattern };
    }
    const { imports, body } = renderCallSiteSnippet(client.id, pattern, {
      helperImport: helper.helperImport,
      flavor: helper.flavor,
    });
    const insertion = planImports(client, editor.document.getText(), imports);
    if (insertion) {
      const edit = new vscode.WorkspaceEdit();
      edit.insert(editor.document.uri, editor.document.positionAt(insertion.offset), insertion.text);
      await vscode.workspace.applyEdit(edit);
    }
    await editor.insertSnippet(new vscode.SnippetString(body));
    ctx.log.info(`inserted the ${pattern} call site for ${client.id}, calling ${helper.path}`);
    stepDone('codeWritten');
    return { inserted: 'helper', client: client.id, pattern, helper: helper.path };
  };
}

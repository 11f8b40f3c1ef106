// "Insert Lock Snippet": pick a client (inferred from the file, the workspace's manifests and
// the last choice here) and a pattern; insert the vetted snippet at the cursor.
import * as vscode from 'vscode';
import { CLIENTS, type ClientInfo } from '../../../snippets/clients';
import { MANIFEST_GLOBS, rankClients, type Manifest } from '../../../snippets/infer';
import { PATTERN_INFO, PATTERNS, type PatternId } from '../../../snippets/patterns';
import { snippetFile, snippetName, type StaticSnippet } from '../../../snippets/static';
import type { Cmd, Ctx } from '../ctx';

const LAST_CLIENT = 'locksmith.lastClient';

/** Dependency manifests anywhere in the workspace, vendored trees left out. */
async function readManifests(): Promise<Manifest[]> {
  const files = await vscode.workspace.findFiles(
    `**/{${MANIFEST_GLOBS.join(',')}}`,
    '**/{node_modules,vendor,target,.git}/**',
    50,
  );
  return Promise.all(
    files.map(async (uri) => ({
      name: uri.path.slice(uri.path.lastIndexOf('/') + 1),
      text: new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)),
    })),
  );
}

async function pickClient(ranked: ClientInfo[]): Promise<ClientInfo | undefined> {
  const items = ranked.map((client, index) => ({
    label: client.library,
    description: index === 0 ? `${client.language} · suggested` : client.language,
    detail: client.description,
    client,
  }));
  return (
    await vscode.window.showQuickPick(items, { title: 'Insert Lock Snippet: client library', matchOnDescription: true })
  )?.client;
}

async function pickPattern(): Promise<PatternId | undefined> {
  const items = PATTERNS.map((pattern) => ({
    label: PATTERN_INFO[pattern].label,
    detail: PATTERN_INFO[pattern].description,
    pattern,
  }));
  return (await vscode.window.showQuickPick(items, { title: 'Insert Lock Snippet: pattern' }))?.pattern;
}

/** `args` skips the pickers (keybindings, tests): `{ client: 'redis-py', pattern: 'guard' }`. */
export function insertLockSnippet(ctx: Ctx): Cmd {
  return async (args?: { client?: string; pattern?: string }) => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showErrorMessage('Open a file to insert a lock snippet into.');
      return;
    }
    let client = CLIENTS.find((candidate) => candidate.id === args?.client);
    if (args?.client && !client)
      throw new Error(`Unknown client '${args.client}'; valid clients: ${CLIENTS.map((c) => c.id).join(', ')}`);
    client ??= await pickClient(
      rankClients({
        languageId: editor.document.languageId,
        source: editor.document.getText(),
        manifests: await readManifests(),
        remembered: ctx.extension.workspaceState.get<string>(LAST_CLIENT),
      }),
    );
    if (!client) return;
    const pattern = (PATTERNS as readonly string[]).includes(args?.pattern ?? '')
      ? (args!.pattern as PatternId)
      : await pickPattern();
    if (!pattern) return;
    // The snippet files are generated from the pack at build time and ship with the extension.
    const file = vscode.Uri.joinPath(ctx.extension.extensionUri, snippetFile(client));
    const snippets = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(file))) as Record<
      string,
      StaticSnippet
    >;
    await editor.insertSnippet(new vscode.SnippetString(snippets[snippetName(client, pattern, 'inline')].body));
    await ctx.extension.workspaceState.update(LAST_CLIENT, client.id);
    ctx.log.info(`inserted the ${pattern} snippet for ${client.id}`);
  };
}

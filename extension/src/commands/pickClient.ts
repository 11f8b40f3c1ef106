// Which client library a command writes code for: the one named in its arguments, else the
// user's pick with the likeliest first (the file's language and imports, the workspace's
// manifests, the last choice in this workspace).
import * as vscode from 'vscode';
import type { ClientInfo } from '../../../snippets/clients';
import { rankClients } from '../../../snippets/infer';
import type { ProjectFile } from '../../../snippets/paths';
import { findClient } from '../../../snippets/render';
import type { Ctx } from '../ctx';

const LAST_CLIENT = 'locksmith.lastClient';

export async function chooseClient(
  ctx: Ctx,
  document: vscode.TextDocument,
  manifests: readonly ProjectFile[],
  named: string | undefined,
  title: string,
): Promise<ClientInfo | undefined> {
  // An unknown name throws SnippetError, naming the valid clients.
  if (named) return findClient(named);
  const ranked = rankClients({
    languageId: document.languageId,
    source: document.getText(),
    manifests: manifests.map((manifest) => ({
      name: manifest.path.slice(manifest.path.lastIndexOf('/') + 1),
      text: manifest.text,
    })),
    remembered: ctx.extension.workspaceState.get<string>(LAST_CLIENT),
  });
  const items = ranked.map((client, index) => ({
    label: client.library,
    description: index === 0 ? `${client.language} · suggested` : client.language,
    detail: client.description,
    client,
  }));
  const client = (
    await vscode.window.showQuickPick(items, { title: `${title}: client library`, matchOnDescription: true })
  )?.client;
  if (client) await ctx.extension.workspaceState.update(LAST_CLIENT, client.id);
  return client;
}

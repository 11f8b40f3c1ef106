// Load the pack into a server (SCRIPT LOAD with progress), open a script read-only, copy a SHA1.
import * as vscode from 'vscode';
import { SCRIPT_NAMES } from '../../../pack/pack';
import { describeActionError } from '../connections/errors';
import type { Cmd, Ctx } from '../ctx';
import type { ConnectionNode } from '../views/nodes';
import type { ScriptNode, ScriptStatusNode, ScriptsTree } from '../views/scriptsTree';
import { stepDone } from '../walkthrough';
import { pickConnection } from './pickConnection';

/** Read-only documents with a script's source: `locksmith-script:/acquire.lua`. */
export const SCRIPT_SCHEME = 'locksmith-script';

export function scriptContentProvider(ctx: Ctx): vscode.TextDocumentContentProvider {
  return {
    provideTextDocumentContent: (uri) => {
      const name = uri.path.replace(/^\//, '').replace(/\.lua$/, '');
      const script = SCRIPT_NAMES.find((candidate) => candidate === name);
      return script ? ctx.pack[script].source : undefined;
    },
  };
}

export type LoadOutcome = { ok: true; shas: Record<string, string> } | { ok: false; message: string };

export function loadScripts(ctx: Ctx, tree: ScriptsTree): Cmd {
  return async (node?: ConnectionNode | ScriptStatusNode): Promise<LoadOutcome | undefined> => {
    const config = node?.config ?? (await pickConnection(ctx, 'Load Lock Scripts into which Redis?'));
    if (!config) return undefined;
    let shas: Record<string, string>;
    try {
      const session = await ctx.connections.connect(config);
      const masters = session.masters().map((node) => session.nodeName(node));
      shas = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Loading lock scripts into ${config.name}` },
        () => {
          ctx.log.info(
            `${config.name}: SCRIPT LOAD ${SCRIPT_NAMES.map((name) => `${name}.lua`).join(', ')} on ${masters.join(', ')}`,
          );
          // On a Cluster, on every master: EVALSHA runs on the master owning the key.
          return ctx.connections.scripts(session).load();
        },
      );
    } catch (error) {
      const message = describeActionError('load', error, config.name);
      ctx.log.error(message);
      void vscode.window.showErrorMessage(message);
      await tree.refresh();
      return { ok: false, message };
    }
    await tree.refresh();
    stepDone('scriptsLoaded');
    const lines = SCRIPT_NAMES.map((name) => `${name} ${shas[name]}`);
    void vscode.window
      .showInformationMessage(`Loaded into ${config.name}: ${lines.join(', ')}`, 'Copy SHA1s')
      .then(async (choice) => {
        if (choice) await vscode.env.clipboard.writeText(`${lines.join('\n')}\n`);
      });
    return { ok: true, shas };
  };
}

export function openScript(): Cmd {
  return async (node?: ScriptNode | ScriptStatusNode) => {
    if (!node) return;
    const uri = vscode.Uri.from({ scheme: SCRIPT_SCHEME, path: `/${node.script.name}.lua` });
    const document = await vscode.languages.setTextDocumentLanguage(
      await vscode.workspace.openTextDocument(uri),
      'lua',
    );
    await vscode.window.showTextDocument(document, { preview: true });
  };
}

export function copySha(): Cmd {
  return async (node?: ScriptNode) => {
    if (!node) return;
    await vscode.env.clipboard.writeText(node.script.sha1);
    vscode.window.setStatusBarMessage(`Copied the SHA1 of ${node.script.name}.lua`, 3000);
  };
}

export function refreshScripts(tree: ScriptsTree): Cmd {
  return () => tree.refresh();
}

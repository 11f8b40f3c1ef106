// "Go to Code That Takes This Lock": the language server matches the live key against every
// acquire site in the workspace's source files (literals, concatenations, f-strings and template
// literals with their holes as wildcards, same-file constants), and the matches open in the
// references peek, the most specific first.
import * as vscode from 'vscode';
import { LINTED_FILE_EXTENSIONS } from '../../../server/src/languages';
import { LOCK_SITES_REQUEST, type LockSiteLocation, type LockSitesParams } from '../../../server/src/protocol';
import type { Cmd } from '../ctx';
import type { LanguageServer } from '../languageServer';
import { escapeBytes } from '../locks/classify';
import type { LockNode } from '../views/nodes';

/** Source files searched at most: a key is matched in under a second even on a large monorepo. */
const MAX_FILES = 20_000;
const EXCLUDED = '**/{node_modules,vendor,target,.git,dist,out,build,.venv,__pycache__}/**';

export type GoToCodeOutcome = { sites: Array<{ path: string; line: number; keyText: string }> } | { error: string };

export function goToCode(server: () => LanguageServer | undefined): Cmd {
  return async (node?: LockNode): Promise<GoToCodeOutcome | undefined> => {
    if (!node) return undefined;
    const key = escapeBytes(node.lock.key);
    const client = server()?.client;
    if (!client) {
      const message = 'The language server is still starting: try again in a moment.';
      void vscode.window.showInformationMessage(message);
      return { error: message };
    }
    const files = await vscode.workspace.findFiles(`**/*.{${LINTED_FILE_EXTENSIONS.join(',')}}`, EXCLUDED, MAX_FILES);
    const params: LockSitesParams = {
      key,
      files: files.filter((uri) => uri.scheme === 'file').map((uri) => uri.fsPath),
    };
    const sites = await vscode.window.withProgress(
      { location: { viewId: 'locksmith.locks' }, title: `Looking for code that takes ${key}` },
      () => client.sendRequest<LockSiteLocation[]>(LOCK_SITES_REQUEST, params),
    );
    if (!sites.length) {
      void vscode.window.showInformationMessage(
        `No code in this workspace takes a lock that can be named ${key} (searched ${params.files.length} source file${params.files.length === 1 ? '' : 's'}).`,
      );
      return { sites: [] };
    }
    const locations = sites.map(
      (site) => new vscode.Location(vscode.Uri.parse(site.uri), client.protocol2CodeConverter.asRange(site.range)),
    );
    const [first] = locations;
    if (locations.length === 1) {
      await vscode.window.showTextDocument(first.uri, { selection: first.range });
    } else {
      await vscode.commands.executeCommand('editor.action.showReferences', first.uri, first.range.start, locations);
    }
    return {
      sites: sites.map((site, i) => ({
        path: vscode.workspace.asRelativePath(locations[i].uri, false),
        line: locations[i].range.start.line,
        keyText: site.keyText,
      })),
    };
  };
}

// The user's project as the snippet and helper commands see it: the workspace folder of a file,
// the file's workspace-relative path and text, and the dependency manifests in that folder.
import * as vscode from 'vscode';
import { MANIFEST_GLOBS } from '../../snippets/infer';
import type { ProjectFile } from '../../snippets/paths';

export interface Project {
  folder: vscode.WorkspaceFolder;
  file: ProjectFile;
  manifests: ProjectFile[];
}

const VENDORED = '**/{node_modules,vendor,target,.git,.venv}/**';

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The path of `uri` relative to `folder`, with forward slashes. */
export function relativePath(folder: vscode.WorkspaceFolder, uri: vscode.Uri): string {
  return uri.path.slice(folder.uri.path.replace(/\/$/, '').length + 1);
}

/** Dependency manifests of the folder (or of the whole workspace), vendored trees left out. */
export async function readManifests(folder?: vscode.WorkspaceFolder): Promise<ProjectFile[]> {
  const include = `**/{${MANIFEST_GLOBS.join(',')}}`;
  const files = await vscode.workspace.findFiles(
    folder ? new vscode.RelativePattern(folder, include) : include,
    VENDORED,
    50,
  );
  return Promise.all(
    files.map(async (uri) => ({
      path: folder ? relativePath(folder, uri) : uri.path,
      text: decode(await vscode.workspace.fs.readFile(uri)),
    })),
  );
}

/** The project of a saved file in a workspace folder; undefined for untitled files and files outside any folder. */
export async function projectOf(document: vscode.TextDocument): Promise<Project | undefined> {
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  if (!folder || document.isUntitled) return undefined;
  return {
    folder,
    file: { path: relativePath(folder, document.uri), text: document.getText() },
    manifests: await readManifests(folder),
  };
}

/** The text of a workspace file, or undefined when it does not exist. */
export async function readIfExists(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

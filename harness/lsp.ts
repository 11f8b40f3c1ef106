// Drives the built language server over stdio with vscode-jsonrpc, like any LSP editor would:
// initialize, open/change/close documents, wait for their diagnostics, ask for code actions.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type {
  CodeAction,
  Diagnostic,
  PublishDiagnosticsParams,
  Range,
  ShowDocumentParams,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol';
import { ensureVsix } from './vsix';

export const SERVER = join(__dirname, '..', 'server', 'out', 'server.js');

export interface LspOptions {
  /** Answers workspace/configuration for `redisLocksmith.lint`; without it the server uses defaults. */
  settings?: () => unknown;
  /** Workspace folders (absolute paths) the client opens. */
  folders?: string[];
  /** The client can create files in an edit and watch files for the server (as VS Code can). */
  editor?: boolean;
}

export class LspClient {
  readonly shown: ShowDocumentParams[] = [];
  /** Capabilities the server registered dynamically (client/registerCapability). */
  readonly registered: { method: string; registerOptions?: unknown }[] = [];
  private readonly latest = new Map<string, PublishDiagnosticsParams>();
  private readonly waiters: Array<{ uri: string; version?: number; resolve: (d: Diagnostic[]) => void }> = [];
  private readonly versions = new Map<string, number>();

  private constructor(
    readonly process: ChildProcess,
    readonly connection: MessageConnection,
  ) {
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.latest.set(params.uri, params);
      for (const waiter of [...this.waiters]) {
        if (waiter.uri === params.uri && (waiter.version === undefined || waiter.version === params.version)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(params.diagnostics);
        }
      }
    });
    connection.onRequest('window/showDocument', (params: ShowDocumentParams) => {
      this.shown.push(params);
      return { success: true };
    });
    connection.onRequest(
      'client/registerCapability',
      ({ registrations }: { registrations: { method: string; registerOptions?: unknown }[] }) => {
        this.registered.push(...registrations);
        return null;
      },
    );
  }

  static async start({ settings, folders = [], editor = false }: LspOptions = {}): Promise<LspClient> {
    // A test file run alone after an edit gets a server built from the current sources.
    await ensureVsix();
    const child = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const client = new LspClient(child, connection);
    if (settings)
      connection.onRequest('workspace/configuration', ({ items }: { items: unknown[] }) => items.map(() => settings()));
    connection.listen();
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: folders.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })),
      capabilities: {
        workspace: {
          configuration: !!settings,
          ...(editor && {
            workspaceEdit: { documentChanges: true, resourceOperations: ['create'] },
            didChangeWatchedFiles: { dynamicRegistration: true },
          }),
        },
        window: { showDocument: { support: true } },
      },
    });
    await connection.sendNotification('initialized', {});
    return client;
  }

  /** Opens a document and resolves with the diagnostics published for it. */
  open(uri: string, languageId: string, text: string): Promise<Diagnostic[]> {
    this.versions.set(uri, 1);
    const published = this.diagnostics(uri, 1);
    void this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId, version: 1, text },
    });
    return published;
  }

  /** Sends edits (incremental changes) and resolves with the diagnostics of the new version. */
  change(uri: string, contentChanges: TextDocumentContentChangeEvent[]): Promise<Diagnostic[]> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    const published = this.diagnostics(uri, version);
    void this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges });
    return published;
  }

  close(uri: string): Promise<Diagnostic[]> {
    const cleared = this.diagnostics(uri);
    void this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
    return cleared;
  }

  /** The next diagnostics for `uri` (of `version`, when given). */
  diagnostics(uri: string, version?: number): Promise<Diagnostic[]> {
    return new Promise((resolve) => this.waiters.push({ uri, version, resolve }));
  }

  codeActions(uri: string, range: Range, diagnostics: Diagnostic[] = []): Promise<CodeAction[]> {
    return this.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range,
      context: { diagnostics },
    });
  }

  /** Tells the server that files it watches changed (1 created, 2 changed, 3 deleted). */
  filesChanged(changes: { path: string; type: 1 | 2 | 3 }[]): void {
    void this.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: changes.map(({ path, type }) => ({ uri: pathToFileURL(path).href, type })),
    });
  }

  configurationChanged(): void {
    void this.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.process.once('exit', resolve));
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
      return await exited;
    } finally {
      this.connection.dispose();
      this.process.kill();
    }
  }
}

/** Applies LSP text edits (non-overlapping) to a text. */
export function applyEdits(text: string, edits: Array<{ range: Range; newText: string }>): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = ({ line, character }: { line: number; character: number }) => lineStarts[line] + character;
  return [...edits]
    .sort((a, b) => offset(b.range.start) - offset(a.range.start))
    .reduce(
      (out, edit) => out.slice(0, offset(edit.range.start)) + edit.newText + out.slice(offset(edit.range.end)),
      text,
    );
}

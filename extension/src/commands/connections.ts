// Add, edit, remove and reconnect connections. The prompts are a short InputBox flow; the
// checking and saving live in Connections.save, which saves nothing unless the server answers.
import * as vscode from 'vscode';
import { ConnectionError } from '../connections/errors';
import type { ConnectionConfig, TlsSettings } from '../connections/saved';
import { parseRedisUrl } from '../connections/url';
import type { NewConnection } from '../connections/connections';
import type { Cmd, Ctx } from '../ctx';
import type { ConnectionNode } from '../views/nodes';
import { stepDone } from '../walkthrough';

/** What the connection commands return, so keybindings and tests can tell what happened. */
export type Outcome = { ok: true; config: ConnectionConfig } | { ok: false; message: string };

async function prompt(previous: Partial<NewConnection>, editing: boolean): Promise<NewConnection | undefined> {
  const step = (n: number, of = 4) => `${editing ? 'Edit' : 'Add'} Connection (${n}/${of})`;
  const url = await vscode.window.showInputBox({
    title: step(1),
    prompt:
      'Redis URL: redis://host:port/db (rediss:// for TLS), redis-cluster://seed:port,seed:port, or redis-sentinel://sentinel:26379/db#master',
    value: previous.url ?? 'redis://localhost:6379/0',
    ignoreFocusOut: true,
    validateInput: (value) => {
      try {
        parseRedisUrl(value);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
  if (url === undefined) return undefined;
  const parsed = parseRedisUrl(url);
  const name = await vscode.window.showInputBox({
    title: step(2),
    prompt: 'A name for this connection',
    value: previous.name ?? `${parsed.host}:${parsed.port}`,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Enter a name.'),
  });
  if (name === undefined) return undefined;
  const username = await vscode.window.showInputBox({
    title: step(3),
    prompt: 'ACL username (leave empty for the default user)',
    value: previous.username ?? parsed.username ?? '',
    ignoreFocusOut: true,
  });
  if (username === undefined) return undefined;
  const password = await vscode.window.showInputBox({
    title: step(4),
    prompt: editing
      ? 'Password (stored in VS Code secret storage). Leave empty to keep the saved one; enter a single space to remove it.'
      : 'Password (stored in VS Code secret storage only; leave empty if none)',
    password: true,
    value: parsed.password ?? '',
    ignoreFocusOut: true,
  });
  if (password === undefined) return undefined;
  const passwordValue = editing && password === '' ? undefined : password.trim() === '' ? '' : password;
  const tls = parsed.tls ? await promptTls(previous.tls, step(5, 5)) : {};
  if (tls === undefined) return undefined;
  return { url, name, username: username.trim() || undefined, password: passwordValue, tls };
}

/** How a TLS connection verifies the server: the system's CAs, a CA file, or (development only) not at all. */
async function promptTls(previous: TlsSettings | undefined, title: string): Promise<TlsSettings | undefined> {
  type Choice = vscode.QuickPickItem & { pick: 'system' | 'file' | 'insecure' };
  const items: Choice[] = [
    { label: "Verify with the system's CAs", pick: 'system' },
    {
      label: 'Verify with a CA file…',
      description: previous?.caFile,
      detail: 'A PEM file with the CA that signed the server certificate',
      pick: 'file',
    },
    {
      label: "Don't verify the certificate",
      detail:
        'Throwaway development servers only: anyone on the path can read the password. The connection shows a warning.',
      pick: 'insecure',
    },
  ];
  const current = previous?.allowInsecure ? 'insecure' : previous?.caFile ? 'file' : 'system';
  const choice = await vscode.window.showQuickPick(
    items.map((item) => ({ ...item, picked: item.pick === current })),
    { title, placeHolder: 'How should this connection verify the TLS certificate?', ignoreFocusOut: true },
  );
  if (!choice) return undefined;
  if (choice.pick === 'system') return {};
  if (choice.pick === 'insecure') return { allowInsecure: true };
  const [file] =
    (await vscode.window.showOpenDialog({
      title: 'CA certificate (PEM)',
      canSelectMany: false,
      filters: { 'PEM certificates': ['pem', 'crt', 'cer'], 'All files': ['*'] },
      ...(previous?.caFile ? { defaultUri: vscode.Uri.file(previous.caFile) } : {}),
    })) ?? [];
  return file ? { caFile: file.fsPath } : undefined;
}

async function saveWithProgress(ctx: Ctx, input: NewConnection, existingId?: string): Promise<Outcome> {
  try {
    const config = await vscode.window.withProgress(
      { location: { viewId: 'locksmith.locks' }, title: `Checking ${input.url}` },
      () => ctx.connections.save(input, existingId),
    );
    return { ok: true, config };
  } catch (error) {
    if (!(error instanceof ConnectionError)) throw error;
    return { ok: false, message: error.message };
  }
}

async function run(
  ctx: Ctx,
  args: NewConnection | undefined,
  existing?: ConnectionConfig,
): Promise<Outcome | undefined> {
  let input: NewConnection | undefined = args;
  let seed: Partial<NewConnection> = existing ?? {};
  for (;;) {
    input ??= await prompt(seed, existing !== undefined);
    if (!input) return undefined;
    const outcome = await saveWithProgress(ctx, input, existing?.id);
    if (outcome.ok) {
      stepDone('connected');
      void vscode.window.showInformationMessage(`Connected to ${outcome.config.name}; saved.`);
      void ctx.connections.connect(outcome.config).catch(() => {});
      return outcome;
    }
    ctx.log.warn(outcome.message);
    // Automated calls get the message back; people get it shown with a way to fix the input.
    if (args) {
      void vscode.window.showErrorMessage(outcome.message);
      return outcome;
    }
    const retry = await vscode.window.showErrorMessage(`${outcome.message} Nothing was saved.`, 'Edit and Retry');
    if (retry !== 'Edit and Retry') return outcome;
    seed = { ...input, password: undefined };
    input = undefined;
  }
}

/** `args` skips the prompts: `{ name, url, username?, password?, tls?: { caFile?, allowInsecure? } }`. */
export function addConnection(ctx: Ctx): Cmd {
  return (args?: NewConnection) => run(ctx, args);
}

export function editConnection(ctx: Ctx): Cmd {
  return async (node?: ConnectionNode, args?: NewConnection) => {
    const existing = node && ctx.connections.get(node.config.id);
    if (!existing) return undefined;
    return run(ctx, args, existing);
  };
}

export function removeConnection(ctx: Ctx): Cmd {
  return async (node?: ConnectionNode, options?: { confirmed?: boolean }) => {
    if (!node) return;
    const answer = options?.confirmed
      ? 'Remove'
      : await vscode.window.showWarningMessage(
          `Remove the connection ${node.config.name}?`,
          {
            modal: true,
            detail: `${node.config.url}\nIts saved password is deleted from secret storage. Nothing on the server changes.`,
          },
          'Remove',
        );
    if (answer !== 'Remove') return;
    await ctx.connections.remove(node.config.id);
  };
}

export function connect(ctx: Ctx): Cmd {
  return async (node?: ConnectionNode) => {
    if (!node) return;
    try {
      await ctx.connections.connect(node.config);
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      void vscode.window.showErrorMessage(error.message);
    }
  };
}

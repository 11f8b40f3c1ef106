// The extension's settings, typed, read in one place, with one change listener that says which
// part changed. The checks and bounds live in settings.ts and connections/saved.ts (no `vscode`).
import * as vscode from 'vscode';
import { readSavedConnections, type ConnectionConfig, type TlsSettings } from './connections/saved';
import {
  lockPatternsOrigin,
  readHistoryMaxEvents,
  readLockGroups,
  readLocksSettings,
  type LockPatternsOrigin,
  type LocksSettings,
} from './settings';

const SECTION = 'redisLocksmith';

/** Which settings a change touched. */
export interface ConfigChange {
  connections: boolean;
  /** Lock patterns or page size: the listings must be read again. */
  listing: boolean;
  /** The refresh interval: timers restart. */
  interval: boolean;
}

/** Where a value of the retired window-wide TLS settings was found. */
export interface LegacyTls {
  user: TlsSettings;
  /** Workspace or folder settings files that still set them: ignored, and the user told once. */
  ignoredIn: string[];
}

export class Config implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ConfigChange>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      const affects = (name: string) => event.affectsConfiguration(`${SECTION}.${name}`);
      const change: ConfigChange = {
        connections: affects('connections'),
        listing: affects('lockPatterns') || affects('maxLocksPerConnection') || affects('lockGroups'),
        interval: affects('refreshInterval'),
      };
      if (change.connections || change.listing || change.interval) this.changed.fire(change);
    });
  }

  private get section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  get connections(): ConnectionConfig[] {
    return readSavedConnections(this.section.get('connections'));
  }

  /** Writes the list to user settings (the setting is application-scoped). */
  async saveConnections(connections: readonly ConnectionConfig[]): Promise<void> {
    await this.section.update('connections', connections, vscode.ConfigurationTarget.Global);
  }

  /** Events kept per connection's lock history; the oldest holds go first. */
  get historyMaxEvents(): number {
    return readHistoryMaxEvents(this.section.get('history.maxEvents'));
  }

  /** Glob patterns that name lock groups; keys matching none are grouped by their shape. */
  get lockGroups(): string[] {
    return readLockGroups(this.section.get('lockGroups'));
  }

  get locks(): LocksSettings {
    const section = this.section;
    return readLocksSettings({
      lockPatterns: section.get('lockPatterns'),
      refreshInterval: section.get('refreshInterval'),
      maxLocksPerConnection: section.get('maxLocksPerConnection'),
    });
  }

  /**
   * Where the lock patterns in force come from, and for a workspace's, the settings file that sets
   * them (a trusted workspace may set patterns for the user's own connections).
   */
  get lockPatternsOrigin(): LockPatternsOrigin & { file?: string } {
    const origin = lockPatternsOrigin(this.section.inspect('lockPatterns') ?? {}, vscode.workspace.isTrusted);
    if (origin.from === 'user' || origin.from === 'default') return origin;
    const [file] = origin.from === 'workspace' ? workspaceSettingsFiles() : folderSettingsFiles();
    return { ...origin, file };
  }

  /**
   * The retired `redisLocksmith.tls.caFile` / `allowInsecure`: the user's values (to move into the
   * connections) and the workspace files that set them (ignored).
   */
  legacyTls(): LegacyTls {
    const section = vscode.workspace.getConfiguration(`${SECTION}.tls`);
    const caFile = section.inspect<string>('caFile');
    const allowInsecure = section.inspect<boolean>('allowInsecure');
    const user: TlsSettings = {};
    if (typeof caFile?.globalValue === 'string' && caFile.globalValue) user.caFile = caFile.globalValue;
    if (allowInsecure?.globalValue === true) user.allowInsecure = true;
    const inWorkspace =
      caFile?.workspaceValue !== undefined ||
      allowInsecure?.workspaceValue !== undefined ||
      caFile?.workspaceFolderValue !== undefined ||
      allowInsecure?.workspaceFolderValue !== undefined;
    return { user, ignoredIn: inWorkspace ? workspaceSettingsFiles() : [] };
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

/** The files a workspace's settings come from: the .code-workspace file, or each folder's .vscode/settings.json. */
function workspaceSettingsFiles(): string[] {
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') return [file.fsPath];
  return folderSettingsFiles();
}

/** Each workspace folder's .vscode/settings.json. */
function folderSettingsFiles(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map(
    (folder) => vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json').fsPath,
  );
}

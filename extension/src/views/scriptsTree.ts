// The Lock Scripts view: the pack's scripts with their SHA1 and, per connection, whether the
// server has them cached (SCRIPT EXISTS). Statuses are read on refresh, never assumed.
import * as vscode from 'vscode';
import { loadedEverywhere } from '../../../pack/loaded';
import { SCRIPT_NAMES, type ScriptDescriptor, type ScriptName } from '../../../pack/pack';
import type { ConnectionConfig } from '../connections/saved';
import type { Ctx } from '../ctx';

export interface ScriptNode {
  kind: 'script';
  name: ScriptName;
  script: ScriptDescriptor;
}

export interface ScriptStatusNode {
  kind: 'scriptStatus';
  name: ScriptName;
  script: ScriptDescriptor;
  config: ConnectionConfig;
}

/** A Cluster's master under a script's status: whether that master has the script cached. */
export interface ScriptMasterNode {
  kind: 'scriptMaster';
  name: ScriptName;
  script: ScriptDescriptor;
  config: ConnectionConfig;
  master: string;
}

type Node = ScriptNode | ScriptStatusNode | ScriptMasterNode;
type Loaded = Record<ScriptName, boolean>;
/** What SCRIPT EXISTS said on a connection; `byMaster` for a Cluster, by `host:port`. */
type Status =
  | { kind: 'offline' }
  | { kind: 'error'; message: string }
  | { kind: 'read'; loaded: Loaded; byMaster?: Map<string, Loaded> };

export class ScriptsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private statuses = new Map<string, Status>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly ctx: Ctx) {
    this.subscription = ctx.connections.onDidChange(() => void this.refresh());
  }

  /** Re-reads SCRIPT EXISTS on every connected server. */
  async refresh(): Promise<void> {
    const next = new Map<string, Status>();
    await Promise.all(
      this.ctx.connections.list().map(async (config) => {
        const session = this.ctx.connections.session(config.id);
        if (session?.state.kind !== 'connected') {
          next.set(config.id, { kind: 'offline' });
          return;
        }
        try {
          const byMaster = await this.ctx.connections.scripts(session).loadedByMaster();
          const loaded = loadedEverywhere(byMaster);
          next.set(config.id, { kind: 'read', loaded, ...(session.topology === 'cluster' ? { byMaster } : {}) });
        } catch (error) {
          next.set(config.id, { kind: 'error', message: (error as Error).message });
        }
      }),
    );
    this.statuses = next;
    this.changed.fire(undefined);
  }

  /** The last status read for a script on a connection: true, false, or undefined when unknown. */
  isLoaded(connectionId: string, script: ScriptName): boolean | undefined {
    const status = this.statuses.get(connectionId);
    return status?.kind === 'read' ? status.loaded[script] : undefined;
  }

  getChildren(node?: Node): Node[] {
    if (!node) return SCRIPT_NAMES.map((name) => ({ kind: 'script', name, script: this.ctx.pack[name] }));
    const { name, script } = node;
    if (node.kind === 'script') {
      return this.ctx.connections.list().map((config) => ({ kind: 'scriptStatus', name, script, config }));
    }
    const status = this.statuses.get(node.config.id);
    if (node.kind === 'scriptStatus' && status?.kind === 'read' && status.byMaster) {
      return [...status.byMaster.keys()]
        .sort()
        .map((master) => ({ kind: 'scriptMaster', name, script, config: node.config, master }));
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'script') {
      const { script } = node;
      const item = new vscode.TreeItem(`${script.name}.lua`, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `script:${script.name}`;
      item.description = script.sha1;
      item.iconPath = new vscode.ThemeIcon('file-code');
      item.contextValue = 'script';
      const keys = script.keys
        .map((key) => `- \`KEYS\` ${key.name}${key.required ? '' : ' (optional)'}: ${key.meaning}`)
        .join('\n');
      const args = script.args.map((arg) => `- \`ARGV\` ${arg.name}: ${arg.meaning}`).join('\n');
      item.tooltip = new vscode.MarkdownString(
        `**${script.name}.lua**: ${script.summary}\n\nSHA1 \`${script.sha1}\`\n\n${keys}\n${args}`,
      );
      item.command = { command: 'locksmith.scripts.open', title: 'Open Script', arguments: [node] };
      return item;
    }
    const status = this.statuses.get(node.config.id);
    if (node.kind === 'scriptMaster') {
      const loaded = status?.kind === 'read' && status.byMaster?.get(node.master)?.[node.name];
      const item = new vscode.TreeItem(node.master, vscode.TreeItemCollapsibleState.None);
      item.id = `script:${node.script.name}:${node.config.id}:${node.master}`;
      item.description = loaded ? 'loaded' : 'not loaded';
      item.iconPath = new vscode.ThemeIcon(loaded ? 'pass' : 'circle-large-outline');
      item.contextValue = loaded ? 'scriptMaster.loaded' : 'scriptMaster.missing';
      item.tooltip = `${node.script.name}.lua on master ${node.master} of ${node.config.name}: ${item.description}`;
      return item;
    }
    const perMaster = status?.kind === 'read' ? status.byMaster : undefined;
    const item = new vscode.TreeItem(
      node.config.name,
      perMaster ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `script:${node.script.name}:${node.config.id}`;
    const show = (description: string, icon: string, contextValue: string) => {
      item.description = description;
      item.iconPath = new vscode.ThemeIcon(icon);
      item.contextValue = contextValue;
    };
    if (status === undefined || status.kind === 'offline')
      show('not connected', 'debug-disconnect', 'scriptStatus.offline');
    else if (status.kind === 'error') show(status.message, 'error', 'scriptStatus.error');
    else if (status.loaded[node.name]) {
      show(perMaster ? `loaded on all ${perMaster.size} masters` : 'loaded', 'pass', 'scriptStatus.loaded');
    } else if (perMaster) {
      const on = [...perMaster.values()].filter((flags) => flags[node.name]).length;
      show(
        `loaded on ${on} of ${perMaster.size} masters`,
        on ? 'warning' : 'circle-large-outline',
        'scriptStatus.missing',
      );
    } else show('not loaded', 'circle-large-outline', 'scriptStatus.missing');
    item.tooltip = `${node.script.name}.lua on ${node.config.name} (${node.config.url}): ${item.description}`;
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

// Entry point: stays thin. It wires views and commands to the plain modules (connections/,
// locks/, pack/) and starts the language server.
import * as vscode from 'vscode';
import { loadPack } from '../../pack/pack';
import * as connections from './commands/connections';
import * as locks from './commands/locks';
import * as scripts from './commands/scripts';
import { insertLockSnippet } from './commands/snippets';
import { Connections } from './connections/connections';
import type { Cmd, Ctx } from './ctx';
import { DEFAULT_LOCK_PATTERNS } from './locks/discovery';
import { startLanguageServer } from './languageServer';
import { connectionStatusBar } from './statusBar';
import { LocksTree } from './views/locksTree';
import { ScriptsTree } from './views/scriptsTree';

/** What activate() returns: the live objects, for the extension-host tests to inspect. */
export interface LocksmithApi {
  ctx: Ctx;
  locksTree: LocksTree;
  scriptsTree: ScriptsTree;
}

function settings() {
  const config = vscode.workspace.getConfiguration('redisLocksmith');
  const patterns = config.get<string[]>('lockPatterns')?.filter((pattern) => typeof pattern === 'string' && pattern);
  return {
    patterns: patterns?.length ? patterns : [...DEFAULT_LOCK_PATTERNS],
    limit: Math.max(10, Math.floor(config.get<number>('maxLocksPerConnection') ?? 500)),
    intervalMs: Math.max(500, (config.get<number>('refreshInterval') ?? 2) * 1000),
  };
}

export function activate(extension: vscode.ExtensionContext): LocksmithApi {
  const log = vscode.window.createOutputChannel('Redis Locksmith', { log: true });
  const pack = loadPack();
  const ctx: Ctx = { extension, log, connections: new Connections(extension.secrets, log, pack), pack };
  const locksTree = new LocksTree(ctx, settings);
  const scriptsTree = new ScriptsTree(ctx);
  const locksView = vscode.window.createTreeView('locksmith.locks', {
    treeDataProvider: locksTree,
    showCollapseAll: true,
  });
  const scriptsView = vscode.window.createTreeView('locksmith.scripts', { treeDataProvider: scriptsTree });
  locksTree.setVisible(locksView.visible);
  void vscode.commands.executeCommand('setContext', 'locksmith.sort', locksTree.sortOrder);

  const commands: Record<string, Cmd> = {
    'locksmith.locks.addConnection': connections.addConnection(ctx),
    'locksmith.locks.editConnection': connections.editConnection(ctx),
    'locksmith.locks.removeConnection': connections.removeConnection(ctx),
    'locksmith.locks.connect': connections.connect(ctx),
    'locksmith.locks.refresh': locks.refresh(ctx, locksTree),
    'locksmith.locks.loadMore': locks.loadMore(locksTree),
    'locksmith.locks.enableNotifications': locks.enableNotifications(ctx, locksTree),
    'locksmith.locks.filter': locks.filter(locksTree),
    'locksmith.locks.clearFilter': locks.clearFilter(locksTree),
    'locksmith.locks.sortByTtl': locks.sortBy(locksTree, 'ttl'),
    'locksmith.locks.sortByKey': locks.sortBy(locksTree, 'key'),
    'locksmith.locks.editPatterns': locks.editPatterns(),
    'locksmith.locks.release': locks.release(ctx, locksTree),
    'locksmith.locks.extend': locks.extend(ctx, locksTree),
    'locksmith.locks.copyKey': locks.copyKey(),
    'locksmith.locks.copyToken': locks.copyToken(),
    'locksmith.scripts.load': scripts.loadScripts(ctx, scriptsTree),
    'locksmith.scripts.open': scripts.openScript(),
    'locksmith.scripts.copySha': scripts.copySha(),
    'locksmith.scripts.refresh': scripts.refreshScripts(scriptsTree),
    'locksmith.insertLockSnippet': insertLockSnippet(ctx),
  };
  extension.subscriptions.push(
    log,
    ctx.connections,
    locksTree,
    scriptsTree,
    locksView,
    scriptsView,
    locksView.onDidChangeVisibility(({ visible }) => locksTree.setVisible(visible)),
    scriptsView.onDidChangeVisibility(({ visible }) => visible && void scriptsTree.refresh()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        event.affectsConfiguration('redisLocksmith.lockPatterns') ||
        event.affectsConfiguration('redisLocksmith.maxLocksPerConnection')
      ) {
        void locksTree.refreshAll(true);
      }
      if (event.affectsConfiguration('redisLocksmith.refreshInterval')) locksTree.setVisible(locksView.visible);
    }),
    vscode.workspace.registerTextDocumentContentProvider(scripts.SCRIPT_SCHEME, scripts.scriptContentProvider(ctx)),
    connectionStatusBar(ctx),
    ...Object.entries(commands).map(([id, command]) => vscode.commands.registerCommand(id, command)),
  );

  // After activation returns: loading the language client costs more than the rest of activation.
  const server = setTimeout(() => extension.subscriptions.push(startLanguageServer(extension, log)), 0);
  extension.subscriptions.push({ dispose: () => clearTimeout(server) });
  return { ctx, locksTree, scriptsTree };
}

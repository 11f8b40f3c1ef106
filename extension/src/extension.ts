// Entry point: stays thin. It wires views and commands to the plain modules (connections/,
// locks/, pack/) and starts the language server.
import * as vscode from 'vscode';
import { defaultPackDir, loadPack } from '../../pack/pack';
import * as connections from './commands/connections';
import * as locks from './commands/locks';
import * as scripts from './commands/scripts';
import { addLockHelper } from './commands/lockHelper';
import { goToCode } from './commands/goToCode';
import { showLintExample } from './commands/lintExample';
import { insertLockSnippet } from './commands/snippets';
import { LockTimeline, showTimeline } from './commands/timeline';
import { Config } from './config';
import { Connections } from './connections/connections';
import { migrateTlsSettings, type TlsMigration } from './connections/tlsMigration';
import type { Cmd, Ctx } from './ctx';
import { startLanguageServer, type LanguageServer } from './languageServer';
import { LocksController } from './locksController';
import { connectionStatusBar } from './statusBar';
import { stepDone, stepsDone, type WalkthroughStep } from './walkthrough';
import { LockTimelinePanel } from './timeline/panel';
import { TIMELINE_VIEW_TYPE } from './timeline/protocol';
import { LocksTree } from './views/locksTree';
import { ScriptsTree } from './views/scriptsTree';

/** What activate() returns: the live objects, for the extension-host tests to inspect. */
export interface LocksmithApi {
  ctx: Ctx;
  locks: LocksController;
  locksTree: LocksTree;
  scriptsTree: ScriptsTree;
  timeline: LockTimeline;
  /** The walkthrough's steps completed in this window. */
  walkthroughDone(): ReadonlySet<WalkthroughStep>;
  /** The one-time move of the retired TLS settings, run at activation. */
  tlsMigration: Promise<TlsMigration>;
}

export function activate(extension: vscode.ExtensionContext): LocksmithApi {
  const log = quietOnceClosed(vscode.window.createOutputChannel('Redis Locksmith', { log: true }));
  const pack = loadPack(defaultPackDir(extension.extensionPath));
  const config = new Config();
  const ctx: Ctx = { extension, log, config, connections: new Connections(config, extension.secrets, log, pack), pack };
  const controller = new LocksController(ctx);
  const locksTree = new LocksTree(ctx, controller);
  const scriptsTree = new ScriptsTree(ctx);
  const locksView = vscode.window.createTreeView('locksmith.locks', {
    treeDataProvider: locksTree,
    showCollapseAll: true,
  });
  const scriptsView = vscode.window.createTreeView('locksmith.scripts', { treeDataProvider: scriptsTree });
  controller.setVisible(locksView.visible);
  const timeline = new LockTimeline(ctx, controller, new LockTimelinePanel(extension.extensionUri));
  void vscode.commands.executeCommand('setContext', 'locksmith.sort', locksTree.sortOrder);

  let server: LanguageServer | undefined;
  const commands: Record<string, Cmd> = {
    'locksmith.locks.addConnection': connections.addConnection(ctx),
    'locksmith.locks.editConnection': connections.editConnection(ctx),
    'locksmith.locks.removeConnection': connections.removeConnection(ctx),
    'locksmith.locks.connect': connections.connect(ctx),
    'locksmith.locks.refresh': locks.refresh(ctx, controller),
    'locksmith.locks.loadMore': locks.loadMore(controller),
    'locksmith.locks.enableNotifications': locks.enableNotifications(ctx, controller),
    'locksmith.locks.filter': locks.filter(locksTree),
    'locksmith.locks.clearFilter': locks.clearFilter(locksTree),
    'locksmith.locks.sortByTtl': locks.sortBy(locksTree, 'ttl'),
    'locksmith.locks.sortByKey': locks.sortBy(locksTree, 'key'),
    'locksmith.locks.editPatterns': locks.editPatterns(),
    'locksmith.locks.release': locks.release(ctx, controller),
    'locksmith.locks.releaseHolder': locks.releaseHolder(ctx, controller),
    'locksmith.locks.extend': locks.extend(ctx, controller),
    'locksmith.locks.copyKey': locks.copyKey(),
    'locksmith.locks.copyToken': locks.copyToken(),
    'locksmith.locks.exportHistory': locks.exportHistory(ctx, controller),
    'locksmith.showTimeline': showTimeline(ctx, timeline),
    'locksmith.locks.goToCode': goToCode(() => server),
    'locksmith.scripts.load': scripts.loadScripts(ctx, scriptsTree),
    'locksmith.scripts.open': scripts.openScript(),
    'locksmith.scripts.copySha': scripts.copySha(),
    'locksmith.scripts.refresh': scripts.refreshScripts(scriptsTree),
    'locksmith.insertLockSnippet': insertLockSnippet(ctx),
    'locksmith.addLockHelper': addLockHelper(ctx),
    'locksmith.showLintExample': showLintExample(),
    'locksmith.lintFixApplied': () => stepDone('fixApplied'),
  };
  extension.subscriptions.push(
    log,
    config,
    ctx.connections,
    controller,
    locksTree,
    scriptsTree,
    locksView,
    scriptsView,
    locksView.onDidChangeVisibility(({ visible }) => controller.setVisible(visible)),
    timeline,
    // Brings the panel back after a window reload (package.json: onWebviewPanel:locksmith.timeline).
    vscode.window.registerWebviewPanelSerializer(TIMELINE_VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state: unknown) => Promise.resolve(timeline.restore(panel, state)),
    }),
    timeline.panel.onDidSelect((key) => {
      const node = timeline.connection && locksTree.lockNode(timeline.connection.id, key);
      if (node) void locksView.reveal(node, { select: true, focus: true });
    }),
    scriptsView.onDidChangeVisibility(({ visible }) => visible && void scriptsTree.refresh()),
    vscode.workspace.registerTextDocumentContentProvider(scripts.SCRIPT_SCHEME, scripts.scriptContentProvider(ctx)),
    connectionStatusBar(ctx),
    ...Object.entries(commands).map(([id, command]) => vscode.commands.registerCommand(id, command)),
  );
  const tlsMigration = migrateTlsSettings(ctx);
  tlsMigration.catch((error: unknown) => log.error(`moving TLS settings failed: ${String(error)}`));

  // After activation returns: loading the language client costs more than the rest of activation.
  const starting = setTimeout(() => {
    server = startLanguageServer(extension, log);
    extension.subscriptions.push(server);
  }, 0);
  extension.subscriptions.push({ dispose: () => clearTimeout(starting) });
  return { ctx, locks: controller, locksTree, scriptsTree, timeline, walkthroughDone: stepsDone, tlsMigration };
}

/**
 * The log channel, whose lines are dropped once it is disposed: a connection's socket may report
 * its close after deactivation, and a closed channel throws on every write.
 */
function quietOnceClosed(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  let closed = false;
  return new Proxy(channel, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'dispose')
        return () => {
          closed = true;
          target.dispose();
        };
      return typeof value === 'function'
        ? (...args: unknown[]): unknown => (closed ? undefined : Reflect.apply(value, target, args))
        : value;
    },
  });
}

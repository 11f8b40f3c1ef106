// The Locksmith language server. The transport comes from the command line: --stdio for any
// LSP editor, --node-ipc when the extension starts it. Documents are kept here (not with
// TextDocuments) because each edit also goes to the document's tree-sitter tree. Only the most
// recently opened or edited documents keep a tree (a keystroke reparses incrementally); the others
// drop theirs after each check and keep only their unit facts, so a large workspace costs little.
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  createConnection,
  DiagnosticSeverity,
  DidChangeWatchedFilesNotification,
  ProposedFeatures,
  TextDocumentSyncKind,
  type Diagnostic,
  type Range,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DEFAULT_LINT_SETTINGS, EXPLAIN_COMMAND, RULE_CODES, type LintSettings, type RuleCode } from './catalogue';
import { AnalyzedDocument, findingSeverity, isAnalyzable, type Finding } from './analysis';
import { loadPack } from '../../pack/pack';
import { checkText, lintsLanguage, severityOf } from './check';
import { codeActionsFor } from './codeActions';
import { LockSiteIndex } from './lockSitesRequest';
import { ManifestCache } from './manifests';
import { LOCK_SITES_REQUEST, type LockSiteLocation, type LockSitesParams } from './protocol';
import { readIfExists } from './quickFix';
import { MANIFEST_GLOBS } from '../../snippets/infer';
import { ruleLinks } from './ruleDocs';
import { readSettings } from './settings';

const connection = createConnection(ProposedFeatures.all);
const SOURCE = 'Redis Locksmith';
/** Quiet time after a keystroke before the document is checked again. */
const DEBOUNCE_MS = 150;
/** Documents that keep their syntax tree between checks: the ones opened or edited most recently. */
const TREES_KEPT = 8;

interface OpenDocument {
  text: TextDocument;
  analysis: AnalyzedDocument;
  /** Findings of `analyzedVersion`. */
  findings: Finding[];
  /** A lock helper's text as the installed pack renders it, when this document is an outdated one (LOCK008). */
  helperUpdate?: string;
  analyzedVersion: number;
  timer?: NodeJS.Timeout;
}

const documents = new Map<string, OpenDocument>();
/** URIs of the documents opened or edited most recently, oldest first (at most TREES_KEPT). */
const recentlyEdited: string[] = [];
const docs = ruleLinks();
/** The script pack the quick fixes embed, read once at start. */
const pack = loadPack();
let canConfigure = false;
/** Settings pushed with didChangeConfiguration, for editors without workspace/configuration. */
let pushedSettings: LintSettings = DEFAULT_LINT_SETTINGS;
let workspaceRoots: string[] = [];
/** The client can create files in a WorkspaceEdit: the quick fix may add the lock helper. */
let canCreateFiles = false;
/** A client command to run after a lock fix was applied (the extension's walkthrough step), if the client has one. */
let fixAppliedCommand: string | undefined;
const settingsCache = new Map<string, Promise<LintSettings>>();
/** The projects' manifests (which client library a fix writes for), forgotten per folder when one changes. */
const manifests = new ManifestCache();
/** The client can watch files for the server: manifests are watched, else read again on every code action. */
let canWatchFiles = false;

const SEVERITY: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

function settingsFor(uri: string): Promise<LintSettings> {
  if (!canConfigure) return Promise.resolve(pushedSettings);
  let settings = settingsCache.get(uri);
  if (!settings) {
    settings = connection.workspace
      .getConfiguration({ scopeUri: uri, section: 'redisLocksmith.lint' })
      .then(readSettings, () => DEFAULT_LINT_SETTINGS);
    settingsCache.set(uri, settings);
  }
  return settings;
}

const rangeOf = (document: TextDocument, start: number, end: number): Range => ({
  start: document.positionAt(start),
  end: document.positionAt(end),
});

function toDiagnostic(document: TextDocument, finding: Finding, settings: LintSettings): Diagnostic | undefined {
  const severity = findingSeverity(severityOf(settings, finding.code), finding);
  if (severity === 'off') return undefined;
  const doc = docs.get(finding.code);
  return {
    range: rangeOf(document, finding.start, finding.end),
    severity: SEVERITY[severity],
    code: finding.code,
    ...(doc && { codeDescription: { href: `${doc.uri}#L${doc.line + 1}` } }),
    source: SOURCE,
    message: finding.message,
    ...(finding.related && {
      relatedInformation: finding.related.map((at) => ({
        location: { uri: document.uri, range: rangeOf(document, at.start, at.end) },
        message: at.message,
      })),
    }),
  };
}

async function check(uri: string): Promise<void> {
  const open = documents.get(uri);
  if (!open) return;
  const version = open.text.version;
  const settings = await settingsFor(uri);
  const checked = lintsLanguage(settings, open.text.languageId)
    ? await checkText(open.analysis, open.text.getText(), pack)
    : { findings: [] };
  if (!recentlyEdited.includes(uri)) open.analysis.dropTree();
  // A newer edit arrived while this ran: its own check publishes.
  if (documents.get(uri) !== open || open.text.version !== version) return;
  const { findings, helperUpdate } = checked;
  open.helperUpdate = helperUpdate;
  open.findings = findings;
  open.analyzedVersion = version;
  const diagnostics = findings
    .map((finding) => toDiagnostic(open.text, finding, settings))
    .filter((d): d is Diagnostic => !!d);
  await connection.sendDiagnostics({ uri, version, diagnostics });
}

function schedule(open: OpenDocument, delay: number): void {
  clearTimeout(open.timer);
  open.timer = setTimeout(() => {
    open.timer = undefined;
    check(open.text.uri).catch((error: unknown) =>
      connection.console.error(`checking ${open.text.uri} failed: ${String(error)}`),
    );
  }, delay);
}

function recheckAll(): void {
  settingsCache.clear();
  for (const open of documents.values()) schedule(open, 0);
}

connection.onInitialize((params) => {
  canConfigure = !!params.capabilities.workspace?.configuration;
  const workspaceEdit = params.capabilities.workspace?.workspaceEdit;
  canCreateFiles = !!workspaceEdit?.documentChanges && !!workspaceEdit.resourceOperations?.includes('create');
  canWatchFiles = !!params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
  const options = params.initializationOptions as { fixAppliedCommand?: unknown } | undefined;
  fixAppliedCommand = typeof options?.fixAppliedCommand === 'string' ? options.fixAppliedCommand : undefined;
  workspaceRoots = (params.workspaceFolders ?? [])
    .filter((folder) => folder.uri.startsWith('file:'))
    .map((folder) => fileURLToPath(folder.uri));
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
      executeCommandProvider: { commands: [EXPLAIN_COMMAND] },
    },
    serverInfo: { name: 'redis-locksmith' },
  };
});

connection.onInitialized(() => {
  if (!canWatchFiles) return;
  void connection.client.register(DidChangeWatchedFilesNotification.type, {
    watchers: [{ globPattern: `**/{${MANIFEST_GLOBS.join(',')}}` }],
  });
});

connection.onDidChangeWatchedFiles(({ changes }) => {
  for (const change of changes) if (change.uri.startsWith('file:')) manifests.changed(fileURLToPath(change.uri));
});

connection.onDidChangeConfiguration(({ settings }: { settings: unknown }) => {
  // Editors without workspace/configuration push the settings: `{ redisLocksmith: { lint: {...} } }`.
  if (!canConfigure) {
    const section = (settings as { redisLocksmith?: { lint?: unknown } } | null)?.redisLocksmith?.lint;
    pushedSettings = readSettings(section);
  }
  recheckAll();
});

/** Marks a document as in use: it keeps its tree, and the one used longest ago beyond TREES_KEPT drops its own. */
function touch(uri: string): void {
  const at = recentlyEdited.indexOf(uri);
  if (at >= 0) recentlyEdited.splice(at, 1);
  recentlyEdited.push(uri);
  while (recentlyEdited.length > TREES_KEPT) documents.get(recentlyEdited.shift()!)?.analysis.dropTree();
}

connection.onDidOpenTextDocument(({ textDocument }) => {
  if (!isAnalyzable(textDocument.languageId)) return;
  const open: OpenDocument = {
    text: TextDocument.create(textDocument.uri, textDocument.languageId, textDocument.version, textDocument.text),
    analysis: new AnalyzedDocument(textDocument.languageId),
    findings: [],
    analyzedVersion: -1,
  };
  documents.set(textDocument.uri, open);
  // A document just opened is likely on screen: it keeps its tree like one just edited.
  touch(textDocument.uri);
  schedule(open, 0);
});

connection.onDidChangeTextDocument(({ textDocument, contentChanges }) => {
  const open = documents.get(textDocument.uri);
  if (!open) return;
  touch(textDocument.uri);
  for (const change of contentChanges) {
    if ('range' in change) {
      const before = open.text;
      const startIndex = before.offsetAt(change.range.start);
      const oldEndIndex = before.offsetAt(change.range.end);
      const newEndIndex = startIndex + change.text.length;
      open.text = TextDocument.update(before, [change], textDocument.version);
      const startPosition = { row: change.range.start.line, column: change.range.start.character };
      const end = open.text.positionAt(newEndIndex);
      open.analysis.edit({
        startIndex,
        oldEndIndex,
        newEndIndex,
        startPosition,
        oldEndPosition: { row: change.range.end.line, column: change.range.end.character },
        newEndPosition: { row: end.line, column: end.character },
      });
    } else {
      // A whole new text: the old tree says nothing about it.
      open.analysis.dropTree();
      open.text = TextDocument.update(open.text, [change], textDocument.version);
    }
  }
  schedule(open, DEBOUNCE_MS);
});

connection.onDidCloseTextDocument(({ textDocument }) => {
  const open = documents.get(textDocument.uri);
  if (!open) return;
  clearTimeout(open.timer);
  open.analysis.dispose();
  documents.delete(textDocument.uri);
  if (recentlyEdited.includes(textDocument.uri)) recentlyEdited.splice(recentlyEdited.indexOf(textDocument.uri), 1);
  settingsCache.delete(textDocument.uri);
  void connection.sendDiagnostics({ uri: textDocument.uri, diagnostics: [] });
});

connection.onCodeAction(async ({ textDocument, range, context }) => {
  const open = documents.get(textDocument.uri);
  if (!open) return [];
  if (open.analyzedVersion !== open.text.version) {
    clearTimeout(open.timer);
    await check(textDocument.uri);
  }
  const file = textDocument.uri.startsWith('file:') ? fileURLToPath(textDocument.uri) : undefined;
  const root = file && workspaceRoots.find((folder) => file.startsWith(folder));
  // Without watched manifests, a folder's manifests may have changed since they were read.
  if (!canWatchFiles) manifests.clear();
  return codeActionsFor({
    document: open.text,
    findings: open.findings,
    range,
    diagnostics: context.diagnostics,
    source: SOURCE,
    environment: {
      pack,
      file,
      root,
      manifests: file ? manifests.forFile(file, root) : [],
      readFile: (path) => openText(path) ?? readIfExists(path),
      // A client that cannot create files gets the inline lock, which needs no helper file.
      canCreateFiles,
      helperUpdate: open.helperUpdate,
    },
    fixAppliedCommand,
  });
});

/** The text of an open document at `path`, which may be newer than the file on disk. */
function openText(path: string): string | undefined {
  return documents.get(pathToFileURL(path).href)?.text.getText();
}

const lockSiteIndex = new LockSiteIndex();

/** Go to Code That Takes This Lock: the acquire sites among the given files that can produce the key. */
connection.onRequest(LOCK_SITES_REQUEST, async (params: LockSitesParams): Promise<LockSiteLocation[]> => {
  const matches = await lockSiteIndex.find(params, openText);
  return matches.map((match) => {
    const document = TextDocument.create(pathToFileURL(match.file).href, 'plaintext', 0, match.text);
    return {
      uri: document.uri,
      range: rangeOf(document, match.start, match.end),
      keyText: match.keyText,
      keyGlob: match.keyGlob,
    };
  });
});

connection.onExecuteCommand(async ({ command, arguments: args }) => {
  const code = args?.[0] as RuleCode;
  if (command !== EXPLAIN_COMMAND || !RULE_CODES.includes(code)) return;
  const doc = docs.get(code);
  if (!doc) return;
  const at = { line: doc.line, character: 0 };
  await connection.window.showDocument({ uri: doc.uri, takeFocus: true, selection: { start: at, end: at } });
});

connection.listen();

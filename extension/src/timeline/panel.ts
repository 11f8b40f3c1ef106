// The Lock Timeline panel, the vscode side: one webview panel, its page (html.ts), and messages
// both ways. No retained context: a hidden panel costs no renderer memory; when shown again the
// webview reloads, says `ready`, and gets the whole picture (kept here) as one `reset`, while its
// zoom, pan, filter and owner colours come back from the webview's own saved state. After a
// window reload VS Code hands the panel back (adopt), with that saved state.
import * as vscode from 'vscode';
import { newNonce, TIMELINE_OUT_DIR, TIMELINE_SCRIPT, TIMELINE_STYLE, timelineHtml } from './html';
import { parseFromPanel, TIMELINE_VIEW_TYPE, type TimelineData, type TimelineDelta, type ToPanel } from './protocol';
import { PendingDelta, TimelineState } from './snapshot';
/** Updates are merged for this long before one message goes to the webview. */
const UPDATE_BATCH_MS = 100;

export class LockTimelinePanel implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  /** The webview has loaded and listens (set by its `ready`, cleared when it is torn down). */
  private ready = false;
  private readonly state = new TimelineState();
  private readonly pending = new PendingDelta();
  private flushTimer?: NodeJS.Timeout;
  private readonly selected = new vscode.EventEmitter<string>();
  private readonly closed = new vscode.EventEmitter<void>();
  /** A key was clicked in the timeline: the Locks view should reveal it. */
  readonly onDidSelect = this.selected.event;
  /** The user closed the panel: stop feeding it. */
  readonly onDidClose = this.closed.event;

  constructor(private readonly extensionUri: vscode.Uri) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** The webview has loaded and listens (tests wait for it before reloading the window). */
  get isReady(): boolean {
    return this.ready;
  }

  /** Takes over a panel VS Code restored after a window reload; `show` then fills it. */
  adopt(panel: vscode.WebviewPanel): void {
    this.panel?.dispose();
    this.ready = false;
    this.panel = panel;
    this.setUp(panel);
  }

  /** What the panel shows, as the webview receives it on a reset (tests read it). */
  picture(): TimelineData {
    return this.state.data();
  }

  /** Opens the panel (or brings it to the front) showing `data`. */
  show(data: TimelineData): void {
    this.state.reset(data);
    this.pending.take();
    if (!this.panel) this.panel = this.create();
    else this.panel.reveal(undefined, true);
    this.panel.title = `Lock Timeline: ${data.connection}`;
    if (this.ready) this.post({ type: 'reset', ...this.state.data() });
  }

  /** New or changed holds and waiter counts; merged and posted at most every UPDATE_BATCH_MS. */
  update(delta: TimelineDelta): void {
    if (!this.panel) return;
    this.state.apply(delta);
    if (!this.ready) return;
    this.pending.add(delta);
    this.flushTimer ??= setTimeout(() => this.flush(), UPDATE_BATCH_MS);
  }

  dispose(): void {
    this.panel?.dispose();
    this.selected.dispose();
    this.closed.dispose();
  }

  private create(): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel(
      TIMELINE_VIEW_TYPE,
      'Lock Timeline',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: false },
    );
    this.setUp(panel);
    return panel;
  }

  /** The page, its options and the handlers, on a new panel or one VS Code restored. */
  private setUp(panel: vscode.WebviewPanel): void {
    const outDir = vscode.Uri.joinPath(this.extensionUri, ...TIMELINE_OUT_DIR);
    const { webview } = panel;
    webview.options = { enableScripts: true, localResourceRoots: [outDir] };
    webview.html = timelineHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(outDir, TIMELINE_SCRIPT)).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(outDir, TIMELINE_STYLE)).toString(),
      nonce: newNonce(),
    });
    webview.onDidReceiveMessage((raw: unknown) => {
      const message = parseFromPanel(raw);
      if (message?.type === 'ready') {
        this.ready = true;
        this.pending.take();
        this.post({ type: 'reset', ...this.state.data() });
      } else if (message?.type === 'select') {
        this.selected.fire(message.key);
      }
    });
    panel.onDidChangeViewState(({ webviewPanel }) => {
      // Hidden, the webview is torn down; it says `ready` again when it is back.
      if (!webviewPanel.visible) this.ready = false;
    });
    panel.onDidDispose(() => {
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.ready = false;
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      this.pending.take();
      this.closed.fire();
    });
  }

  private flush(): void {
    this.flushTimer = undefined;
    const delta = this.pending.take();
    if (delta && this.ready) this.post({ type: 'update', ...delta });
  }

  private post(message: ToPanel): void {
    void this.panel?.webview.postMessage(message);
  }
}

// The renderer: takes the extension's messages into the store, draws a frame when something
// changed (at most one per animation frame), keeps the toolbar and the saved state in step, and
// carries out what pointer and keyboard input (pointer.ts, keyboard.ts) ask: zoom, pan, select,
// follow. The extension host's clock is the chart's clock: every message carries its `now`, and
// the offset to this webview's clock is kept.
import type { FromPanel, ToPanel } from '../protocol';
import { Chart, type Frame } from './chart';
import { middle, ZOOM_STEP, type Controls } from './controls';
import { KeyboardNavigation } from './keyboard';
import { PointerInput } from './pointer';
import type { Elements } from './dom';
import { duration, observationText } from './format';
import { AXIS_HEIGHT, contentHeight, layoutFor, plotWidth, ROW_HEIGHT, type Layout } from './layout';
import { OwnerPalette } from './palette';
import { TimelineStore } from './store';
import { readTheme, type Theme } from './theme';
import { DEFAULT_SPAN_MS, NOW_MARGIN, Viewport, type ViewportState } from './viewport';

export interface VsCodeApi {
  postMessage(message: FromPanel): void;
  getState(): unknown;
  setState(state: SavedState): void;
}

/** What survives the webview being rebuilt (hidden and shown again, or the window reloaded). */
export interface SavedState {
  viewport: ViewportState;
  filter: string;
  selectedKey?: string;
  owners: Record<string, number>;
  /** The connection shown: after a window reload the extension shows it again. */
  connectionId?: string;
}

/** The state saved by this renderer, or undefined when there is none or it is not in this version's shape. */
function savedState(state: unknown): SavedState | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const { viewport, filter, selectedKey, owners, connectionId } = state as Partial<SavedState>;
  const valid =
    typeof viewport === 'object' &&
    Number.isFinite(viewport.start) &&
    Number.isFinite(viewport.end) &&
    viewport.end > viewport.start &&
    typeof viewport.following === 'boolean' &&
    typeof filter === 'string' &&
    (selectedKey === undefined || typeof selectedKey === 'string') &&
    typeof owners === 'object' &&
    owners !== null &&
    (connectionId === undefined || typeof connectionId === 'string');
  return valid ? { viewport, filter, selectedKey, owners, connectionId } : undefined;
}

/** Windows a short history is fitted to: the first that holds all of it, else the default. */
const FIT_SPANS_MS = [60_000, 2 * 60_000, 3 * 60_000];
const MAX_TICK_MS = 1000;
const SAVE_DELAY_MS = 300;
const COUNT_FORMAT = new Intl.NumberFormat('en');

export class TimelineApp implements Controls {
  readonly store = new TimelineStore();
  readonly viewport: Viewport;
  private readonly palette: OwnerPalette;
  private readonly chart: Chart;
  private readonly ctx: CanvasRenderingContext2D;
  private theme: Theme;
  private clockOffset = 0;
  private frameLayout: Layout = layoutFor(1, 1, 0, 0);
  /** The widest key label (px), measured when keys come or go. */
  private widestKey = 0;
  private frameRequested = false;
  private tickTimer?: ReturnType<typeof setTimeout>;
  private saveTimer?: ReturnType<typeof setTimeout>;
  private readonly pointer = new PointerInput(this);
  private readonly keyboard = new KeyboardNavigation(this);
  private selectedKey?: string;
  private connectionId?: string;
  /** The window was sized to the data (first reset) or restored from the saved state: left alone from then on. */
  private windowChosen = false;

  constructor(
    readonly elements: Elements,
    private readonly vscode: VsCodeApi,
    private readonly redrawLegend: (theme: Theme) => void,
  ) {
    const ctx = elements.canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('this webview has no 2D canvas');
    this.ctx = ctx;
    const saved = savedState(vscode.getState());
    this.palette = new OwnerPalette(saved?.owners);
    this.chart = new Chart(ctx, this.palette);
    this.viewport = new Viewport(this.now());
    if (saved?.viewport) {
      this.viewport.restore(saved.viewport, this.now());
      this.windowChosen = true;
    }
    if (saved?.filter) {
      elements.filter.value = saved.filter;
      this.store.setFilter(saved.filter);
    }
    this.selectedKey = saved?.selectedKey;
    this.connectionId = saved?.connectionId;
    this.theme = readTheme();
    this.applyTheme();
    this.listen();
    this.resize();
    vscode.postMessage({ type: 'ready' });
  }

  layout(): Layout {
    return this.frameLayout;
  }

  /** The extension host's clock. */
  now(): number {
    return Date.now() + this.clockOffset;
  }

  receive(message: ToPanel): void {
    this.clockOffset = message.now - Date.now();
    if (message.type === 'reset') {
      this.store.reset(message);
      this.connectionId = message.connectionId;
      this.elements.title.textContent = `Lock Timeline · ${message.connection}`;
      this.elements.scroller.setAttribute('aria-label', `Lock timeline of ${message.connection}`);
      // Owners take colours in the order they first held a lock: the same order after every reload.
      const byStart = [...message.holds].sort((a, b) => a.from - b.from);
      for (const hold of byStart) this.palette.slot(hold.owner);
      this.keyboard.focusHold = undefined;
      if (this.keyboard.focusRow !== undefined && this.keyboard.focusRow >= this.store.rows().length)
        this.keyboard.focusRow = undefined;
      if (!this.windowChosen) this.fitWindow();
      this.measureKeys();
    } else if (message.type === 'update') {
      const anchor = this.topRow();
      const keys = this.store.keyCount;
      this.store.apply(message);
      if (this.store.keyCount !== keys) {
        this.measureKeys();
        if (anchor) this.keepTopRow(anchor);
      }
      const focused = this.keyboard.focusHold?.id;
      if (focused !== undefined) {
        this.keyboard.focusHold = message.removed?.includes(focused)
          ? undefined
          : (message.holds.find((hold) => hold.id === focused) ?? this.keyboard.focusHold);
      }
    }
    this.updateChrome();
    this.pointer.rehover();
    this.invalidate();
  }

  private measureKeys(): void {
    this.widestKey = this.chart.widestKey(this.store.keys());
    this.resize();
  }

  /** A short history fills the window: the default window, or a shorter one when the history is shorter. */
  private fitWindow(): void {
    if (!Number.isFinite(this.store.earliest)) return;
    this.windowChosen = true;
    const now = this.now();
    const history = (now - this.store.earliest) / (1 - NOW_MARGIN);
    const span = FIT_SPANS_MS.find((candidate) => candidate >= history) ?? DEFAULT_SPAN_MS;
    this.viewport.zoom(span / this.viewport.span, now, now);
  }

  /** One frame; requested through invalidate(), at most one per animation frame. */
  private drawFrame(): void {
    const ratio = window.devicePixelRatio || 1;
    this.ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    this.viewport.advance(this.now());
    const frame: Frame = {
      store: this.store,
      viewport: this.viewport,
      layout: this.frameLayout,
      now: this.now(),
      hoverRow: this.pointer.hover?.rowIndex,
      hoverHold: this.pointer.hover?.hold ?? this.keyboard.focusHold,
      focusRow: document.activeElement === this.elements.scroller ? this.keyboard.focusRow : undefined,
      selectedKey: this.selectedKey,
    };
    this.chart.draw(frame);
    this.drawEmptyState();
    this.scheduleTick();
  }

  invalidate(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.drawFrame();
    });
  }

  /** While now is in view, redraw as often as now moves a pixel (bounded): live bars grow, a followed window moves. */
  private scheduleTick(): void {
    clearTimeout(this.tickTimer);
    const now = this.now();
    if (now < this.viewport.start || now > this.viewport.end) return;
    const msPerPx = this.viewport.span / plotWidth(this.frameLayout);
    this.tickTimer = setTimeout(() => this.invalidate(), Math.min(MAX_TICK_MS, Math.max(16, msPerPx)));
  }

  private drawEmptyState(): void {
    const rows = this.store.rows().length;
    if (rows > 0) return;
    const text = this.store.keyCount
      ? `No key contains “${this.elements.filter.value.trim()}”.`
      : 'No lock holds yet: locks taken on this connection appear here as they happen.';
    const { ctx, frameLayout: layout } = this;
    ctx.fillStyle = this.theme.muted;
    ctx.font = this.theme.font;
    ctx.textAlign = 'center';
    ctx.fillText(text, layout.width / 2, AXIS_HEIGHT + 40);
    ctx.textAlign = 'left';
  }

  private applyTheme(): void {
    this.chart.setTheme(this.theme);
    this.redrawLegend(this.theme);
    this.measureKeys();
  }

  private resize(): void {
    const { scroller, canvas } = this.elements;
    const width = scroller.clientWidth;
    const height = scroller.clientHeight;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(width * ratio));
    canvas.height = Math.max(1, Math.round(height * ratio));
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    this.frameLayout = layoutFor(width, height, scroller.scrollTop, this.widestKey);
    this.invalidate();
  }

  /** What the data changes: the scroll height and the counts; then what the window changes. */
  private updateChrome(): void {
    const { status, spacer } = this.elements;
    spacer.style.height = `${contentHeight(this.store.rows().length)}px`;
    const count = (n: number) => COUNT_FORMAT.format(n);
    const { keyCount, holdCount } = this.store;
    const shown = this.store.rows().length;
    const keys = shown === keyCount ? `${count(keyCount)} keys` : `${count(shown)} of ${count(keyCount)} keys`;
    status.textContent = `${count(holdCount)} holds · ${keys} · ${observationText(this.store.observation)}`;
    this.updateWindowChrome();
  }

  /**
   * The follow button and the window's span (set only when they change: a drag updates on every
   * move). "Live" only while the connection is observed: following a connection nobody observes
   * shows now, not what happens.
   */
  private updateWindowChrome(): void {
    const { follow, span } = this.elements;
    const { following } = this.viewport;
    const observed = this.store.observation.kind !== 'none';
    const label = following ? (observed ? '● Live' : '○ Not observed') : observed ? 'Go live' : 'Go to now';
    if (follow.textContent !== label) {
      follow.setAttribute('aria-pressed', String(following));
      follow.textContent = label;
      follow.title = observed
        ? 'Follow live updates (L)'
        : `Nothing is recorded: ${observationText(this.store.observation)}. Follow now (L)`;
      follow.classList.toggle('paused', !following || !observed);
    }
    const spanText = `${duration(this.viewport.span)} window`;
    if (span.textContent !== spanText) span.textContent = spanText;
    this.save();
  }

  private save(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      const { start, end, following } = this.viewport;
      this.vscode.setState({
        viewport: { start, end, following },
        filter: this.elements.filter.value,
        selectedKey: this.selectedKey,
        owners: this.palette.saved(),
        connectionId: this.connectionId,
      });
    }, SAVE_DELAY_MS);
  }

  private topRow(): { key: string; offset: number } | undefined {
    const { scrollTop } = this.elements.scroller;
    const row = this.store.rows()[Math.floor(scrollTop / ROW_HEIGHT)];
    return row && scrollTop > 0 ? { key: row.key, offset: scrollTop % ROW_HEIGHT } : undefined;
  }

  /** New keys sort in above the rows in view: scroll so the same rows stay in view. */
  private keepTopRow(anchor: { key: string; offset: number }): void {
    const index = this.store.rows().findIndex((row) => row.key === anchor.key);
    if (index < 0) return;
    this.elements.spacer.style.height = `${contentHeight(this.store.rows().length)}px`;
    this.elements.scroller.scrollTop = index * ROW_HEIGHT + anchor.offset;
    this.frameLayout = { ...this.frameLayout, scrollTop: this.elements.scroller.scrollTop };
  }

  private listen(): void {
    const { scroller, filter, zoomIn, zoomOut, follow, chart } = this.elements;
    new ResizeObserver(() => this.resize()).observe(chart);
    // VS Code switches the body's theme class, and sets the colours on the root element's style.
    const themeChanged = new MutationObserver(() => {
      this.theme = readTheme();
      this.applyTheme();
    });
    themeChanged.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind'] });
    themeChanged.observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });
    scroller.addEventListener('scroll', () => {
      this.frameLayout = { ...this.frameLayout, scrollTop: scroller.scrollTop };
      this.pointer.rehover();
      this.invalidate();
    });
    this.pointer.listen(scroller);
    scroller.addEventListener('keydown', (event) => this.keyboard.onKey(event));
    scroller.addEventListener('focus', () => this.invalidate());
    scroller.addEventListener('blur', () => this.invalidate());
    filter.addEventListener('input', () => {
      this.store.setFilter(filter.value);
      this.keyboard.focusRow = undefined;
      this.keyboard.focusHold = undefined;
      scroller.scrollTop = 0;
      this.frameLayout = { ...this.frameLayout, scrollTop: 0 };
      this.updateChrome();
      this.pointer.rehover();
      this.invalidate();
    });
    zoomIn.addEventListener('click', () => this.zoom(1 / ZOOM_STEP, middle(this.viewport)));
    zoomOut.addEventListener('click', () => this.zoom(ZOOM_STEP, middle(this.viewport)));
    follow.addEventListener('click', () => this.follow());
    window.addEventListener('message', (event: MessageEvent<ToPanel>) => this.receive(event.data));
  }

  follow(): void {
    this.viewport.follow(this.now());
    this.viewChanged();
  }

  zoom(factor: number, anchor: number): void {
    this.viewport.zoom(factor, anchor, this.now());
    this.viewChanged();
  }

  pan(deltaMs: number): void {
    this.viewport.pan(deltaMs, this.now(), this.store.earliest);
    this.viewChanged();
  }

  private viewChanged(): void {
    this.updateWindowChrome();
    this.pointer.rehover();
    this.invalidate();
  }

  select(key: string, rowIndex: number): void {
    this.selectedKey = key;
    this.keyboard.focusRow = rowIndex;
    this.vscode.postMessage({ type: 'select', key });
    this.save();
    this.invalidate();
  }
}

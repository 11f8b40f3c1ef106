// The renderer: takes the extension's messages into the store, draws a frame when something
// changed (at most one per animation frame), and turns pointer, wheel and keyboard input into
// zoom, pan, hover, selection and following. The extension host's clock is the chart's clock:
// every message carries its `now`, and the offset to this webview's clock is kept.
import type { FromPanel, TimelineHold, ToPanel } from '../protocol';
import { Chart, type Frame } from './chart';
import { fillTooltip, placeTooltip, type Elements } from './dom';
import { duration, holdDetails, holdSummary } from './format';
import { AXIS_HEIGHT, contentHeight, hitTest, layoutFor, plotWidth, ROW_HEIGHT, type Hit, type Layout } from './layout';
import { OwnerPalette } from './palette';
import { TimelineStore } from './store';
import { readTheme, type Theme } from './theme';
import { DEFAULT_SPAN_MS, NOW_MARGIN, Viewport, type ViewportState } from './viewport';

export interface VsCodeApi {
  postMessage(message: FromPanel): void;
  getState(): unknown;
  setState(state: SavedState): void;
}

/** What survives the webview being rebuilt (hidden and shown again). */
export interface SavedState {
  viewport: ViewportState;
  filter: string;
  selectedKey?: string;
  owners: Record<string, number>;
}

/** The state saved by this renderer, or undefined when there is none or it is not in this version's shape. */
function savedState(state: unknown): SavedState | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const { viewport, filter, selectedKey, owners } = state as Partial<SavedState>;
  const valid =
    typeof viewport === 'object' &&
    Number.isFinite(viewport.start) &&
    Number.isFinite(viewport.end) &&
    viewport.end > viewport.start &&
    typeof viewport.following === 'boolean' &&
    typeof filter === 'string' &&
    (selectedKey === undefined || typeof selectedKey === 'string') &&
    typeof owners === 'object' &&
    owners !== null;
  return valid ? { viewport, filter, selectedKey, owners } : undefined;
}

const ZOOM_STEP = 1.5;
/** Windows a short history is fitted to: the first that holds all of it, else the default. */
const FIT_SPANS_MS = [60_000, 2 * 60_000, 3 * 60_000];
/** Keyboard pans move this share of the window (Shift: half a window). */
const PAN_SHARE = 0.1;
/** A pointer that moves less than this between down and up clicks rather than drags. */
const CLICK_SLOP_PX = 4;
const MAX_TICK_MS = 1000;
const SAVE_DELAY_MS = 300;
const COUNT_FORMAT = new Intl.NumberFormat('en');
/** Wheel deltas in lines or pages, as pixels. */
const WHEEL_LINE_PX = 16;

export class TimelineApp {
  private readonly store = new TimelineStore();
  private readonly viewport: Viewport;
  private readonly palette: OwnerPalette;
  private readonly chart: Chart;
  private readonly ctx: CanvasRenderingContext2D;
  private theme: Theme;
  private clockOffset = 0;
  private layout: Layout = layoutFor(1, 1, 0, 0);
  /** The widest key label (px), measured when keys come or go. */
  private widestKey = 0;
  private frameRequested = false;
  private tickTimer?: ReturnType<typeof setTimeout>;
  private saveTimer?: ReturnType<typeof setTimeout>;
  private pointer?: { x: number; y: number };
  private drag?: { x: number; lastX: number; moved: boolean };
  private hover?: Hit;
  private focusRow?: number;
  private focusHold?: TimelineHold;
  private selectedKey?: string;
  /** The window was sized to the data (first reset) or restored from the saved state: left alone from then on. */
  private windowChosen = false;

  constructor(
    private readonly elements: Elements,
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
    this.theme = readTheme();
    this.applyTheme();
    this.listen();
    this.resize();
    vscode.postMessage({ type: 'ready' });
  }

  /** The extension host's clock. */
  private now(): number {
    return Date.now() + this.clockOffset;
  }

  receive(message: ToPanel): void {
    this.clockOffset = message.now - Date.now();
    if (message.type === 'reset') {
      this.store.reset(message);
      this.elements.title.textContent = `Lock Timeline · ${message.connection}`;
      this.elements.scroller.setAttribute('aria-label', `Lock timeline of ${message.connection}`);
      // Owners take colours in the order they first held a lock: the same order after every reload.
      const byStart = [...message.holds].sort((a, b) => a.from - b.from);
      for (const hold of byStart) this.palette.slot(hold.owner);
      this.focusHold = undefined;
      if (this.focusRow !== undefined && this.focusRow >= this.store.rows().length) this.focusRow = undefined;
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
      const focused = this.focusHold?.id;
      if (focused !== undefined) {
        this.focusHold = message.removed?.includes(focused)
          ? undefined
          : (message.holds.find((hold) => hold.id === focused) ?? this.focusHold);
      }
    }
    this.updateChrome();
    this.rehover();
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
      layout: this.layout,
      now: this.now(),
      hoverRow: this.hover?.rowIndex,
      hoverHold: this.hover?.hold ?? this.focusHold,
      focusRow: document.activeElement === this.elements.scroller ? this.focusRow : undefined,
      selectedKey: this.selectedKey,
    };
    this.chart.draw(frame);
    this.drawEmptyState();
    this.scheduleTick();
  }

  private invalidate(): void {
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
    const msPerPx = this.viewport.span / plotWidth(this.layout);
    this.tickTimer = setTimeout(() => this.invalidate(), Math.min(MAX_TICK_MS, Math.max(16, msPerPx)));
  }

  private drawEmptyState(): void {
    const rows = this.store.rows().length;
    if (rows > 0) return;
    const text = this.store.keyCount
      ? `No key contains “${this.elements.filter.value.trim()}”.`
      : 'No lock holds yet: locks taken on this connection appear here as they happen.';
    const { ctx, layout } = this;
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
    this.layout = layoutFor(width, height, scroller.scrollTop, this.widestKey);
    this.invalidate();
  }

  /** What the data changes: the scroll height and the counts; then what the window changes. */
  private updateChrome(): void {
    const { status, spacer } = this.elements;
    spacer.style.height = `${contentHeight(this.store.rows().length)}px`;
    const count = (n: number) => COUNT_FORMAT.format(n);
    const { keyCount, holdCount, sampledEveryMs } = this.store;
    const shown = this.store.rows().length;
    const keys = shown === keyCount ? `${count(keyCount)} keys` : `${count(shown)} of ${count(keyCount)} keys`;
    const sampled = sampledEveryMs ? ` · approximate: read every ${duration(sampledEveryMs)}` : '';
    status.textContent = `${count(holdCount)} holds · ${keys}${sampled}`;
    this.updateWindowChrome();
  }

  /** The follow button and the window's span (set only when they change: a drag updates on every move). */
  private updateWindowChrome(): void {
    const { follow, span } = this.elements;
    const following = String(this.viewport.following);
    if (follow.getAttribute('aria-pressed') !== following) {
      follow.setAttribute('aria-pressed', following);
      follow.textContent = this.viewport.following ? '● Live' : 'Go live';
      follow.classList.toggle('paused', !this.viewport.following);
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
    this.layout = { ...this.layout, scrollTop: this.elements.scroller.scrollTop };
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
      this.layout = { ...this.layout, scrollTop: scroller.scrollTop };
      this.rehover();
      this.invalidate();
    });
    scroller.addEventListener('wheel', (event) => this.onWheel(event), { passive: false });
    scroller.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    scroller.addEventListener('pointermove', (event) => this.onPointerMove(event));
    scroller.addEventListener('pointerup', (event) => this.onPointerUp(event));
    scroller.addEventListener('pointercancel', () => (this.drag = undefined));
    scroller.addEventListener('pointerleave', () => {
      this.pointer = undefined;
      this.setHover(undefined);
    });
    scroller.addEventListener('keydown', (event) => this.onKey(event));
    scroller.addEventListener('focus', () => this.invalidate());
    scroller.addEventListener('blur', () => this.invalidate());
    filter.addEventListener('input', () => {
      this.store.setFilter(filter.value);
      this.focusRow = undefined;
      this.focusHold = undefined;
      scroller.scrollTop = 0;
      this.layout = { ...this.layout, scrollTop: 0 };
      this.updateChrome();
      this.rehover();
      this.invalidate();
    });
    zoomIn.addEventListener('click', () => this.zoom(1 / ZOOM_STEP, this.viewportMiddle()));
    zoomOut.addEventListener('click', () => this.zoom(ZOOM_STEP, this.viewportMiddle()));
    follow.addEventListener('click', () => {
      this.viewport.follow(this.now());
      this.viewChanged();
    });
    window.addEventListener('message', (event: MessageEvent<ToPanel>) => this.receive(event.data));
  }

  private viewportMiddle(): number {
    return this.viewport.start + this.viewport.span / 2;
  }

  private zoom(factor: number, anchor: number): void {
    this.viewport.zoom(factor, anchor, this.now());
    this.viewChanged();
  }

  private pan(deltaMs: number): void {
    this.viewport.pan(deltaMs, this.now(), this.store.earliest);
    this.viewChanged();
  }

  private viewChanged(): void {
    this.updateWindowChrome();
    this.rehover();
    this.invalidate();
  }

  private local(event: MouseEvent): { x: number; y: number } {
    const box = this.elements.scroller.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  private msPerPx(): number {
    return this.viewport.span / plotWidth(this.layout);
  }

  private onWheel(event: WheelEvent): void {
    const scale =
      event.deltaMode === WheelEvent.DOM_DELTA_LINE ? WHEEL_LINE_PX : event.deltaMode ? this.layout.height : 1;
    const { x, y } = this.local(event);
    const horizontal = event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY);
    if (event.ctrlKey || event.metaKey || (y < AXIS_HEIGHT && !horizontal)) {
      // Ctrl+wheel (and a trackpad pinch, which arrives as one) or the wheel over the time axis zooms about the pointer.
      event.preventDefault();
      const anchor = this.viewport.time(Math.max(0, x - this.layout.labelWidth), plotWidth(this.layout));
      this.zoom(Math.exp(event.deltaY * scale * 0.002), anchor);
    } else if (horizontal) {
      event.preventDefault();
      this.pan((event.shiftKey ? event.deltaY || event.deltaX : event.deltaX) * scale * this.msPerPx());
    }
    // Otherwise the wheel scrolls the keys, natively.
  }

  private onPointerDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    this.elements.scroller.setPointerCapture(event.pointerId);
    this.drag = { x: event.clientX, lastX: event.clientX, moved: false };
  }

  private onPointerMove(event: PointerEvent): void {
    this.pointer = this.local(event);
    if (this.drag) {
      if (Math.abs(event.clientX - this.drag.x) >= CLICK_SLOP_PX) this.drag.moved = true;
      if (this.drag.moved) {
        const dx = event.clientX - this.drag.lastX;
        this.drag.lastX = event.clientX;
        this.elements.tooltip.hidden = true;
        this.elements.scroller.classList.add('dragging');
        if (dx) this.pan(-dx * this.msPerPx());
        return;
      }
    }
    this.rehover();
  }

  private onPointerUp(event: PointerEvent): void {
    const drag = this.drag;
    this.drag = undefined;
    this.elements.scroller.classList.remove('dragging');
    if (!drag || drag.moved) return;
    const { x, y } = this.local(event);
    const hit = hitTest(this.store, this.viewport, this.layout, x, y, this.now());
    if (hit && (hit.onLabel || hit.hold)) this.select(hit.row.key, hit.rowIndex);
  }

  private select(key: string, rowIndex: number): void {
    this.selectedKey = key;
    this.focusRow = rowIndex;
    this.vscode.postMessage({ type: 'select', key });
    this.save();
    this.invalidate();
  }

  /** Hover follows the pointer, and what is under it changes with scrolling, panning and updates. */
  private rehover(): void {
    if (!this.pointer || this.drag?.moved) return;
    const { x, y } = this.pointer;
    this.setHover(hitTest(this.store, this.viewport, this.layout, x, y, this.now()));
  }

  private setHover(hit: Hit | undefined): void {
    const { tooltip, chart, scroller } = this.elements;
    const changed = hit?.rowIndex !== this.hover?.rowIndex || hit?.hold !== this.hover?.hold;
    this.hover = hit;
    scroller.classList.toggle('pointing', Boolean(hit && (hit.hold || hit.onLabel)));
    const lines = hit && this.hoverLines(hit);
    if (!hit || !lines || !this.pointer) tooltip.hidden = true;
    else {
      fillTooltip(tooltip, lines);
      placeTooltip(tooltip, chart, this.pointer.x, this.pointer.y);
    }
    if (changed) this.invalidate();
  }

  private hoverLines(hit: Hit): Array<[string, string]> | undefined {
    if (hit.hold) {
      const lines = holdDetails(hit.hold, this.now(), this.store.sampledEveryMs);
      if (hit.waiters) lines.push(['Waiting', `${hit.waiters} at this time`]);
      return lines;
    }
    if (hit.onLabel) {
      return [
        ['Key', hit.row.key],
        ['Holds', `${hit.row.holds.length} recorded`],
        ['', 'Click to select it in the Locks view'],
      ];
    }
    if (hit.waiters) return [['Waiting', `${hit.waiters} for ${hit.row.key}`]];
    return undefined;
  }

  private onKey(event: KeyboardEvent): void {
    const rows = this.store.rows().length;
    const page = Math.max(1, Math.floor((this.layout.height - AXIS_HEIGHT) / ROW_HEIGHT) - 1);
    const panBy = (share: number) => this.pan(share * this.viewport.span * (event.shiftKey ? 5 : 1));
    const moveFocus = (to: number) => {
      if (!rows) return;
      this.focusRow = Math.min(rows - 1, Math.max(0, to));
      this.focusHold = undefined;
      this.revealRow(this.focusRow);
      this.announceRow(this.focusRow);
      this.invalidate();
    };
    const current = this.focusRow ?? Math.floor(this.layout.scrollTop / ROW_HEIGHT);
    const handlers: Record<string, () => void> = {
      ArrowLeft: () => panBy(-PAN_SHARE),
      ArrowRight: () => panBy(PAN_SHARE),
      '+': () => this.zoom(1 / ZOOM_STEP, this.viewportMiddle()),
      '=': () => this.zoom(1 / ZOOM_STEP, this.viewportMiddle()),
      '-': () => this.zoom(ZOOM_STEP, this.viewportMiddle()),
      _: () => this.zoom(ZOOM_STEP, this.viewportMiddle()),
      ArrowUp: () => moveFocus(this.focusRow === undefined ? current : current - 1),
      ArrowDown: () => moveFocus(this.focusRow === undefined ? current : current + 1),
      PageUp: () => moveFocus(current - page),
      PageDown: () => moveFocus(current + page),
      Home: () => moveFocus(0),
      End: () => moveFocus(rows - 1),
      '[': () => this.stepHold(-1),
      ']': () => this.stepHold(1),
      l: () => {
        this.viewport.follow(this.now());
        this.viewChanged();
      },
      Enter: () => {
        const row = this.focusRow === undefined ? undefined : this.store.rows()[this.focusRow];
        if (row && this.focusRow !== undefined) this.select(row.key, this.focusRow);
      },
      Escape: () => {
        this.focusHold = undefined;
        this.elements.tooltip.hidden = true;
        this.invalidate();
      },
    };
    handlers[' '] = handlers.Enter;
    handlers.L = handlers.l;
    const handler = event.ctrlKey || event.metaKey || event.altKey ? undefined : handlers[event.key];
    if (!handler) return;
    event.preventDefault();
    handler();
  }

  private revealRow(index: number): void {
    const { scroller } = this.elements;
    const top = index * ROW_HEIGHT;
    const visible = this.layout.height - AXIS_HEIGHT;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > scroller.scrollTop + visible) scroller.scrollTop = top + ROW_HEIGHT - visible;
  }

  /** The previous or next hold of the focused row, from the one shown (or the middle of the window); panned into view. */
  private stepHold(direction: 1 | -1): void {
    if (this.focusRow === undefined) return;
    const row = this.store.rows()[this.focusRow];
    if (!row?.holds.length) return;
    const { holds } = row;
    const from = this.focusHold ? holds.indexOf(this.focusHold) : -1;
    let index: number;
    if (from >= 0) index = from + direction;
    else {
      const middle = this.viewportMiddle();
      const after = holds.findIndex((hold) => hold.from >= middle);
      index = direction > 0 ? (after < 0 ? holds.length : after) : (after < 0 ? holds.length : after) - 1;
    }
    const hold = holds[Math.min(holds.length - 1, Math.max(0, index))];
    this.focusHold = hold;
    const end = hold.to ?? this.now();
    if (hold.from < this.viewport.start || end > this.viewport.end) {
      this.pan((hold.from + end) / 2 - this.viewportMiddle());
    }
    this.elements.announcer.textContent = holdSummary(hold, this.now());
    const width = plotWidth(this.layout);
    const x = this.layout.labelWidth + this.viewport.x(Math.max(hold.from, this.viewport.start), width);
    const y = AXIS_HEIGHT + this.focusRow * ROW_HEIGHT - this.layout.scrollTop + ROW_HEIGHT;
    fillTooltip(this.elements.tooltip, holdDetails(hold, this.now(), this.store.sampledEveryMs));
    placeTooltip(this.elements.tooltip, this.elements.chart, x, y);
    this.invalidate();
  }

  private announceRow(index: number): void {
    const row = this.store.rows()[index];
    if (!row) return;
    let inView = 0;
    let expired = 0;
    let holder: string | undefined;
    this.store.forEachHoldIn(row, this.viewport.start, this.viewport.end, this.now(), (hold) => {
      inView++;
      if (hold.end === 'expired') expired++;
      if (hold.to === undefined) holder = hold.owner;
    });
    const held = holder ? `held now by ${holder}` : 'free now';
    this.elements.announcer.textContent = `${row.key}: ${inView} holds in view, ${expired} expired, ${held}`;
  }
}

// The chart from the keyboard: arrows pan, + and - zoom, Up and Down (Page Up, Page Down, Home,
// End) move a focused row, [ and ] step through its holds with their details in the tooltip,
// Enter selects the key; what is focused is read out through a live region.
import type { TimelineHold } from '../protocol';
import { middle, ZOOM_STEP, type Controls } from './controls';
import { fillTooltip, placeTooltip } from './dom';
import { holdDetails, holdSummary } from './format';
import { AXIS_HEIGHT, plotWidth, ROW_HEIGHT } from './layout';

/** Keyboard pans move this share of the window (Shift: half a window). */
const PAN_SHARE = 0.1;

export class KeyboardNavigation {
  /** The row the keyboard is on (drawn outlined while the chart has focus). */
  focusRow?: number;
  /** The hold [ and ] stepped to. */
  focusHold?: TimelineHold;

  constructor(private readonly timeline: Controls) {}

  onKey(event: KeyboardEvent): void {
    const { store, viewport } = this.timeline;
    const layout = this.timeline.layout();
    const rows = store.rows().length;
    const page = Math.max(1, Math.floor((layout.height - AXIS_HEIGHT) / ROW_HEIGHT) - 1);
    const panBy = (share: number) => this.timeline.pan(share * viewport.span * (event.shiftKey ? 5 : 1));
    const moveFocus = (to: number) => {
      if (!rows) return;
      this.focusRow = Math.min(rows - 1, Math.max(0, to));
      this.focusHold = undefined;
      this.revealRow(this.focusRow);
      this.announceRow(this.focusRow);
      this.timeline.invalidate();
    };
    const current = this.focusRow ?? Math.floor(layout.scrollTop / ROW_HEIGHT);
    const handlers: Record<string, () => void> = {
      ArrowLeft: () => panBy(-PAN_SHARE),
      ArrowRight: () => panBy(PAN_SHARE),
      '+': () => this.timeline.zoom(1 / ZOOM_STEP, middle(viewport)),
      '=': () => this.timeline.zoom(1 / ZOOM_STEP, middle(viewport)),
      '-': () => this.timeline.zoom(ZOOM_STEP, middle(viewport)),
      _: () => this.timeline.zoom(ZOOM_STEP, middle(viewport)),
      ArrowUp: () => moveFocus(this.focusRow === undefined ? current : current - 1),
      ArrowDown: () => moveFocus(this.focusRow === undefined ? current : current + 1),
      PageUp: () => moveFocus(current - page),
      PageDown: () => moveFocus(current + page),
      Home: () => moveFocus(0),
      End: () => moveFocus(rows - 1),
      '[': () => this.stepHold(-1),
      ']': () => this.stepHold(1),
      l: () => this.timeline.follow(),
      Enter: () => {
        const row = this.focusRow === undefined ? undefined : store.rows()[this.focusRow];
        if (row && this.focusRow !== undefined) this.timeline.select(row.key, this.focusRow);
      },
      Escape: () => {
        this.focusHold = undefined;
        this.timeline.elements.tooltip.hidden = true;
        this.timeline.invalidate();
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
    const { scroller } = this.timeline.elements;
    const layout = this.timeline.layout();
    const top = index * ROW_HEIGHT;
    const visible = layout.height - AXIS_HEIGHT;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > scroller.scrollTop + visible) scroller.scrollTop = top + ROW_HEIGHT - visible;
  }

  /** The previous or next hold of the focused row, from the one shown (or the middle of the window); panned into view. */
  private stepHold(direction: 1 | -1): void {
    const { store, viewport, elements } = this.timeline;
    const layout = this.timeline.layout();
    if (this.focusRow === undefined) return;
    const row = store.rows()[this.focusRow];
    if (!row?.holds.length) return;
    const { holds } = row;
    const from = this.focusHold ? holds.indexOf(this.focusHold) : -1;
    let index: number;
    if (from >= 0) index = from + direction;
    else {
      const shown = middle(viewport);
      const after = holds.findIndex((hold) => hold.from >= shown);
      index = direction > 0 ? (after < 0 ? holds.length : after) : (after < 0 ? holds.length : after) - 1;
    }
    const hold = holds[Math.min(holds.length - 1, Math.max(0, index))];
    this.focusHold = hold;
    const end = hold.to ?? this.timeline.now();
    if (hold.from < viewport.start || end > viewport.end) {
      this.timeline.pan((hold.from + end) / 2 - middle(viewport));
    }
    elements.announcer.textContent = holdSummary(hold, this.timeline.now());
    const width = plotWidth(layout);
    const x = layout.labelWidth + viewport.x(Math.max(hold.from, viewport.start), width);
    const y = AXIS_HEIGHT + this.focusRow * ROW_HEIGHT - layout.scrollTop + ROW_HEIGHT;
    fillTooltip(elements.tooltip, holdDetails(hold, this.timeline.now(), store.sampledEveryMs));
    placeTooltip(elements.tooltip, elements.chart, x, y);
    this.timeline.invalidate();
  }

  private announceRow(index: number): void {
    const { store, viewport } = this.timeline;
    const row = store.rows()[index];
    if (!row) return;
    let inView = 0;
    let expired = 0;
    let holder: string | undefined;
    store.forEachHoldIn(row, viewport.start, viewport.end, this.timeline.now(), (hold) => {
      inView++;
      if (hold.end === 'expired') expired++;
      if (hold.to === undefined) holder = hold.owner;
    });
    const held = holder ? `held now by ${holder}` : 'free now';
    this.timeline.elements.announcer.textContent = `${row.key}: ${inView} holds in view, ${expired} expired, ${held}`;
  }
}

// One frame of the chart on the canvas. Only the rows in view are drawn, and in each only the
// holds in the time window (binary search); holds thinner than a pixel that fall on pixels
// already painted are skipped, so a frame costs what is visible, not what is stored.
import type { HoldEnd, TimelineHold } from '../protocol';
import { clockTime, timeTicks } from './format';
import {
  AXIS_HEIGHT,
  LABEL_DOT_ROOM_PX,
  LABEL_PAD_PX,
  plotWidth,
  ROW_HEIGHT,
  rowBands,
  rowTop,
  visibleRows,
  type Layout,
} from './layout';
import {
  type BarStyle,
  makeGapHatch,
  makeHatch,
  paintBar,
  paintEnd,
  paintExpiredOutline,
  paintExtension,
  paintGap,
  paintHeldEdge,
  paintUnseenEdge,
  paintWaiters,
} from './paint';
import type { OwnerPalette } from './palette';
import type { Row, TimelineStore } from './store';
import type { Theme } from './theme';
import type { Viewport } from './viewport';

const TICK_GAP_PX = 90;
/** Keys measured to size the key column: the longest by characters (proportional fonts differ little). */
const MEASURED_KEYS = 32;
/** Below this width (px) a bar shows no extension notches. */
const NOTCH_MIN_PX = 8;
/** A gap at least this wide (px) is labelled on the time axis. */
const GAP_LABEL_MIN_PX = 90;

export interface Frame {
  store: TimelineStore;
  viewport: Viewport;
  layout: Layout;
  now: number;
  hoverRow?: number;
  hoverHold?: TimelineHold;
  focusRow?: number;
  selectedKey?: string;
}

export class Chart {
  private theme?: Theme;
  private hatch: CanvasPattern | null = null;
  private gapHatch: CanvasPattern | null = null;
  private readonly labels = new Map<string, string>();
  /** Owner colours in this theme: a frame draws hundreds of bars and allocates no strings for them. */
  private readonly colors = new Map<string, string>();
  private readonly barStyle: BarStyle = { color: '', approximate: false };
  private labelsWidth = 0;

  constructor(
    private readonly ctx: CanvasRenderingContext2D,
    private readonly palette: OwnerPalette,
  ) {}

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.hatch = makeHatch(this.ctx, theme);
    this.gapHatch = makeGapHatch(this.ctx, theme);
    this.barStyle.hatch = this.hatch;
    this.barStyle.contrastBorder = theme.contrastBorder;
    this.labels.clear();
    this.colors.clear();
  }

  private ownerColor(owner: string): string {
    let color = this.colors.get(owner);
    if (color === undefined) this.colors.set(owner, (color = this.palette.color(owner, this.theme!.kind)));
    return color;
  }

  /** The text width of the widest of these keys, in the key font. */
  widestKey(keys: readonly string[]): number {
    const theme = this.theme;
    if (!theme) return 0;
    this.ctx.font = theme.monoFont;
    const longest = [...keys].sort((a, b) => b.length - a.length).slice(0, MEASURED_KEYS);
    return Math.max(0, ...longest.map((key) => this.ctx.measureText(key).width));
  }

  draw(frame: Frame): void {
    const { ctx, theme } = this;
    if (!theme) throw new Error('Chart.setTheme must come first');
    const { layout, viewport, store } = frame;
    const rows = store.rows();
    const { first, last } = visibleRows(layout, rows.length);
    const width = plotWidth(layout);
    const x = (time: number) => layout.labelWidth + viewport.x(time, width);
    const { ticks, step } = timeTicks(viewport.start, viewport.end, width, TICK_GAP_PX);

    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, layout.width, layout.height);
    this.drawRowBackgrounds(frame, rows, first, last);
    ctx.fillStyle = theme.grid;
    for (const tick of ticks) ctx.fillRect(Math.round(x(tick)), AXIS_HEIGHT, 1, layout.height - AXIS_HEIGHT);

    ctx.save();
    ctx.beginPath();
    ctx.rect(layout.labelWidth, AXIS_HEIGHT, width, layout.height - AXIS_HEIGHT);
    ctx.clip();
    this.drawGaps(frame, x);
    const waiterScale = this.waiterScale(store, rows, first, last, viewport);
    const expiredRows = new Set<number>();
    for (let index = first; index < last; index++) {
      const top = rowTop(layout, index);
      if (waiterScale) this.drawWaiters(frame, rows[index], top, waiterScale, x);
      if (this.drawHolds(frame, rows[index], top, waiterScale > 0, x)) expiredRows.add(index);
    }
    const nowX = x(frame.now);
    ctx.fillStyle = theme.now;
    ctx.fillRect(Math.round(nowX), AXIS_HEIGHT, 1, layout.height - AXIS_HEIGHT);
    ctx.restore();

    this.drawLabels(frame, rows, first, last, expiredRows);
    this.drawAxis(frame, ticks, step, x, nowX);
  }

  /** The stretches nobody observed, hatched across every row: no bar is drawn in them, nothing ends in them. */
  private drawGaps(frame: Frame, x: (time: number) => number): void {
    const { viewport, layout, now } = frame;
    for (const gap of frame.store.gaps()) {
      const to = gap.to ?? now;
      if (to < viewport.start || gap.from > viewport.end) continue;
      paintGap(this.ctx, x(gap.from), x(to), AXIS_HEIGHT, layout.height, this.gapHatch, this.theme!);
    }
  }

  /** "not observed" on the time axis, over the tick labels, above each gap wide enough to hold it. */
  private labelGaps(frame: Frame, x: (time: number) => number): void {
    const { ctx } = this;
    const theme = this.theme!;
    const { viewport, now } = frame;
    const text = 'not observed';
    const textWidth = ctx.measureText(text).width;
    for (const gap of frame.store.gaps()) {
      const to = gap.to ?? now;
      if (to < viewport.start || gap.from > viewport.end) continue;
      const left = Math.max(x(gap.from), frame.layout.labelWidth);
      const right = Math.min(x(to), frame.layout.width);
      if (right - left < Math.max(GAP_LABEL_MIN_PX, textWidth + 8)) continue;
      const middle = (left + right) / 2;
      ctx.fillStyle = theme.background;
      ctx.fillRect(middle - textWidth / 2 - 4, 2, textWidth + 8, AXIS_HEIGHT - 8);
      ctx.fillStyle = theme.muted;
      ctx.fillText(text, middle - textWidth / 2, AXIS_HEIGHT / 2);
    }
  }

  private drawRowBackgrounds(frame: Frame, rows: readonly Row[], first: number, last: number): void {
    const { ctx } = this;
    const theme = this.theme!;
    for (let index = first; index < last; index++) {
      const top = rowTop(frame.layout, index);
      const fill =
        rows[index].key === frame.selectedKey
          ? theme.selection
          : index === frame.hoverRow || index === frame.focusRow
            ? theme.hover
            : index % 2
              ? theme.rowStripe
              : undefined;
      if (!fill) continue;
      ctx.fillStyle = fill;
      ctx.fillRect(0, top, frame.layout.width, ROW_HEIGHT);
    }
    if (frame.focusRow !== undefined && frame.focusRow >= first && frame.focusRow < last) {
      ctx.strokeStyle = theme.focus;
      ctx.lineWidth = 1;
      ctx.strokeRect(0.5, rowTop(frame.layout, frame.focusRow) + 0.5, frame.layout.width - 1, ROW_HEIGHT - 1);
    }
  }

  /** Pixels per waiter: the band's height is the most waiters counted in view (0: none counted). */
  private waiterScale(store: TimelineStore, rows: readonly Row[], first: number, last: number, viewport: Viewport) {
    let most = 0;
    for (let index = first; index < last; index++) {
      const { waiters } = rows[index];
      if (!waiters.length) continue;
      for (let i = Math.max(0, store.waiterIndex(rows[index], viewport.start) - 1); i < waiters.length; i++) {
        most = Math.max(most, waiters[i][1]);
        if (waiters[i][0] > viewport.end) break;
      }
    }
    return most > 0 ? rowBands(true).waitersHeight / most : 0;
  }

  /** Waiters as a step area along the bottom of the row. */
  private drawWaiters(frame: Frame, row: Row, top: number, scale: number, x: (time: number) => number): void {
    const { waiters } = row;
    if (!waiters.length) return;
    const { ctx } = this;
    const theme = this.theme!;
    const { waitersTop, waitersHeight } = rowBands(true);
    const base = top + waitersTop + waitersHeight;
    const start = Math.max(0, frame.store.waiterIndex(row, frame.viewport.start) - 1);
    for (let i = start; i < waiters.length; i++) {
      const [at, count] = waiters[i];
      if (at > frame.viewport.end) break;
      if (count <= 0) continue;
      const until = i + 1 < waiters.length ? waiters[i + 1][0] : frame.now;
      const left = x(at);
      paintWaiters(ctx, left, x(until) - left, base, Math.max(1, count * scale), theme);
    }
  }

  /** Draws the row's holds in the window; true when one of them expired. */
  private drawHolds(frame: Frame, row: Row, top: number, withWaiters: boolean, x: (time: number) => number): boolean {
    const { ctx } = this;
    const theme = this.theme!;
    const { barTop, barHeight } = rowBands(withWaiters);
    const { viewport, now, layout } = frame;
    const minX = layout.labelWidth - 2;
    const maxX = layout.width + 2;
    let paintedTo = -Infinity;
    const markedAt: Partial<Record<HoldEnd, number>> = {};
    let expired = false;
    frame.store.forEachHoldIn(row, viewport.start, viewport.end, now, (hold) => {
      const fromX = x(hold.from);
      const toX = x(hold.to ?? now);
      const left = Math.max(minX, fromX);
      const right = Math.min(maxX, Math.max(toX, left + 1));
      if (right > paintedTo + 0.5 || hold === frame.hoverHold) {
        const style = this.barStyle;
        style.color = this.ownerColor(hold.owner);
        style.approximate = hold.approximate;
        paintBar(ctx, left, right, top + barTop, barHeight, style);
        if (hold.end === 'expired') paintExpiredOutline(ctx, left, right, top + barTop, barHeight, theme);
        if (hold.startUnseen && fromX >= minX) paintUnseenEdge(ctx, fromX, top + barTop, barHeight, 'left', theme);
        if (hold.end === 'unobserved') paintUnseenEdge(ctx, toX, top + barTop, barHeight, 'right', theme);
        if (right - left >= NOTCH_MIN_PX) {
          for (const at of hold.extensions)
            if (at > hold.from) paintExtension(ctx, x(at), top + barTop, barHeight, theme);
        }
        if (hold === frame.hoverHold) {
          ctx.strokeStyle = theme.focus;
          ctx.lineWidth = 2;
          ctx.strokeRect(left - 1, top + barTop - 1, right - left + 2, barHeight + 2);
        }
        paintedTo = Math.max(paintedTo, right);
      }
      if (hold.to === undefined) paintHeldEdge(ctx, toX, top + barTop, barHeight, theme);
      else if (hold.end && hold.end !== 'released' && Math.abs((markedAt[hold.end] ?? -Infinity) - toX) >= 3) {
        paintEnd(ctx, hold.end, toX, top, theme);
        markedAt[hold.end] = toX;
        expired ||= hold.end === 'expired';
      }
    });
    return expired;
  }

  private drawLabels(frame: Frame, rows: readonly Row[], first: number, last: number, expiredRows: Set<number>) {
    const { ctx } = this;
    const theme = this.theme!;
    const { layout } = frame;
    if (layout.labelWidth !== this.labelsWidth) {
      this.labels.clear();
      this.labelsWidth = layout.labelWidth;
    }
    ctx.fillStyle = theme.grid;
    ctx.fillRect(layout.labelWidth - 1, AXIS_HEIGHT, 1, layout.height - AXIS_HEIGHT);
    ctx.font = theme.monoFont;
    ctx.textBaseline = 'middle';
    const room = layout.labelWidth - 2 * LABEL_PAD_PX - LABEL_DOT_ROOM_PX;
    for (let index = first; index < last; index++) {
      const { key } = rows[index];
      const middle = rowTop(layout, index) + ROW_HEIGHT / 2;
      let label = this.labels.get(key);
      if (label === undefined) this.labels.set(key, (label = this.fit(key, room)));
      ctx.fillStyle = theme.foreground;
      ctx.fillText(label, LABEL_PAD_PX, middle);
      if (expiredRows.has(index)) {
        ctx.fillStyle = theme.expired;
        ctx.beginPath();
        ctx.arc(layout.labelWidth - LABEL_PAD_PX - 3, middle, 3.5, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
  }

  /** The key, or its start and end around an ellipsis when it is too wide: ids sit at the end of keys. */
  private fit(key: string, room: number): string {
    const { ctx } = this;
    if (ctx.measureText(key).width <= room) return key;
    let low = 0;
    let high = key.length;
    while (low < high) {
      const keep = Math.ceil((low + high) / 2);
      const head = Math.ceil(keep * 0.4);
      const text = `${key.slice(0, head)}…${key.slice(key.length - (keep - head))}`;
      if (ctx.measureText(text).width <= room) low = keep;
      else high = keep - 1;
    }
    const head = Math.ceil(low * 0.4);
    return `${key.slice(0, head)}…${key.slice(key.length - (low - head))}`;
  }

  private drawAxis(frame: Frame, ticks: number[], step: number, x: (time: number) => number, nowX: number): void {
    const { ctx } = this;
    const theme = this.theme!;
    const { layout } = frame;
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, layout.width, AXIS_HEIGHT);
    ctx.fillStyle = theme.grid;
    ctx.fillRect(0, AXIS_HEIGHT - 1, layout.width, 1);
    ctx.font = theme.font;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = theme.muted;
    ctx.fillText('Key', LABEL_PAD_PX, AXIS_HEIGHT / 2);
    ctx.save();
    ctx.beginPath();
    ctx.rect(layout.labelWidth, 0, layout.width - layout.labelWidth, AXIS_HEIGHT);
    ctx.clip();
    for (const tick of ticks) {
      const tickX = Math.round(x(tick));
      ctx.fillStyle = theme.grid;
      ctx.fillRect(tickX, AXIS_HEIGHT - 6, 1, 6);
      ctx.fillStyle = theme.muted;
      ctx.fillText(clockTime(tick, step), tickX + 4, AXIS_HEIGHT / 2);
    }
    this.labelGaps(frame, x);
    ctx.fillStyle = theme.now;
    ctx.beginPath();
    ctx.moveTo(nowX - 5, AXIS_HEIGHT - 6);
    ctx.lineTo(nowX + 5, AXIS_HEIGHT - 6);
    ctx.lineTo(nowX, AXIS_HEIGHT);
    ctx.closePath();
    ctx.fill();
    ctx.restore();
  }
}

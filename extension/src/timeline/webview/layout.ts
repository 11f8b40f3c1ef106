// Where things are on the canvas: the time axis on top, key labels on the left, one row per key
// below; which rows are in view (only those are drawn), and what lies under the pointer.
import type { ObservationGap, TimelineHold } from '../protocol';
import type { Row, TimelineStore } from './store';
import type { Viewport } from './viewport';

export const ROW_HEIGHT = 22;
export const AXIS_HEIGHT = 24;
/** The key column fits the widest key, within these bounds (and never more than this share of the width). */
const LABEL_MIN = 110;
const LABEL_MAX = 320;
const LABEL_SHARE_MAX = 0.4;
/** Room around a key label: padding, and the expiry dot. */
export const LABEL_PAD_PX = 8;
export const LABEL_DOT_ROOM_PX = 14;
/** How near (px) the pointer must be to a hold thinner than that to hover it. */
const HIT_SLOP_PX = 4;

export interface Layout {
  /** CSS pixels. */
  width: number;
  height: number;
  labelWidth: number;
  scrollTop: number;
}

/** `widestKey`: the widest key label's text width (px). */
export function layoutFor(width: number, height: number, scrollTop: number, widestKey: number): Layout {
  const wanted = widestKey + 2 * LABEL_PAD_PX + LABEL_DOT_ROOM_PX;
  const labelWidth = Math.ceil(Math.min(LABEL_MAX, width * LABEL_SHARE_MAX, Math.max(LABEL_MIN, wanted)));
  return { width, height, labelWidth, scrollTop };
}

export const plotWidth = (layout: Layout) => Math.max(1, layout.width - layout.labelWidth);

/** The rows [first, last) that intersect the visible area. */
export function visibleRows(layout: Layout, rowCount: number): { first: number; last: number } {
  const first = Math.max(0, Math.floor(layout.scrollTop / ROW_HEIGHT));
  const last = Math.min(rowCount, Math.ceil((layout.scrollTop + layout.height - AXIS_HEIGHT) / ROW_HEIGHT));
  return { first, last: Math.max(first, last) };
}

/** The top of a row on the canvas. */
export const rowTop = (layout: Layout, index: number) => AXIS_HEIGHT + index * ROW_HEIGHT - layout.scrollTop;

/** The scroll height the rows need (the axis stays on top). */
export const contentHeight = (rowCount: number) => AXIS_HEIGHT + rowCount * ROW_HEIGHT;

/** The bar's and the waiters band's vertical place in a row; the band only where waiters are counted. */
export function rowBands(withWaiters: boolean) {
  return withWaiters
    ? { barTop: 2, barHeight: 11, waitersTop: 14, waitersHeight: 7 }
    : { barTop: 4, barHeight: 14, waitersTop: ROW_HEIGHT, waitersHeight: 0 };
}

export interface Hit {
  rowIndex: number;
  row: Row;
  /** The time under the pointer. */
  at: number;
  /** Over the key labels (left column) rather than the plot. */
  onLabel: boolean;
  hold?: TimelineHold;
  /** Waiters counted at that time, where they are counted. */
  waiters?: number;
  /** Nobody observed at that time. */
  gap?: ObservationGap;
}

/** What lies at (x, y) in CSS pixels: a row, and the hold there (the nearest within a few pixels). */
export function hitTest(
  store: TimelineStore,
  viewport: Viewport,
  layout: Layout,
  x: number,
  y: number,
  now: number,
): Hit | undefined {
  if (y < AXIS_HEIGHT || y >= layout.height || x < 0 || x >= layout.width) return undefined;
  const rows = store.rows();
  const rowIndex = Math.floor((y - AXIS_HEIGHT + layout.scrollTop) / ROW_HEIGHT);
  const row = rows[rowIndex];
  if (!row) return undefined;
  const width = plotWidth(layout);
  const at = viewport.time(x - layout.labelWidth, width);
  if (x < layout.labelWidth) return { rowIndex, row, at, onLabel: true };
  const slop = (HIT_SLOP_PX * viewport.span) / width;
  let best: TimelineHold | undefined;
  let bestDistance = Infinity;
  store.forEachHoldIn(row, at - slop, at + slop, now, (hold) => {
    const end = hold.to ?? now;
    const distance = at < hold.from ? hold.from - at : at > end ? at - end : 0;
    // Inside several (overlapping approximate holds): the one that began last is drawn on top.
    if (distance < bestDistance || (distance === 0 && bestDistance === 0 && best && hold.from >= best.from)) {
      best = hold;
      bestDistance = distance;
    }
  });
  return {
    rowIndex,
    row,
    at,
    onLabel: false,
    hold: best,
    waiters: store.waitersAt(row, at),
    gap: store.gapAt(at, now),
  };
}

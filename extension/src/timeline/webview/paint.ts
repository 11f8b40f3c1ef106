// The marks of the chart, shared by the chart and its legend: a hold's bar (striped and outlined
// dashed when approximate), its extension ticks, the still-held edge, and how it ended.
import type { HoldEnd } from '../protocol';
import { ROW_HEIGHT } from './layout';
import type { Theme } from './theme';

export interface BarStyle {
  color: string;
  approximate: boolean;
  /** A hatch pattern for approximate bars (patterns need a canvas; the painter makes one per theme). */
  hatch?: CanvasPattern | null;
  contrastBorder?: string;
}

export function paintBar(
  ctx: CanvasRenderingContext2D,
  left: number,
  right: number,
  top: number,
  height: number,
  style: BarStyle,
): void {
  const width = Math.max(1, right - left);
  ctx.fillStyle = style.color;
  if (!style.approximate) {
    ctx.fillRect(left, top, width, height);
  } else {
    ctx.globalAlpha = 0.45;
    ctx.fillRect(left, top, width, height);
    ctx.globalAlpha = 1;
    if (style.hatch) {
      ctx.fillStyle = style.hatch;
      ctx.fillRect(left, top, width, height);
    }
    if (width > 4) {
      ctx.strokeStyle = style.color;
      ctx.lineWidth = 1;
      ctx.setLineDash([3, 2]);
      ctx.strokeRect(left + 0.5, top + 0.5, width - 1, height - 1);
      ctx.setLineDash([]);
    }
  }
  if (style.contrastBorder && width > 2) {
    ctx.strokeStyle = style.contrastBorder;
    ctx.lineWidth = 1;
    ctx.strokeRect(left + 0.5, top + 0.5, width - 1, height - 1);
  }
}

/** A hold whose lease ran out is outlined red along its length, not only marked at its end. */
export function paintExpiredOutline(
  ctx: CanvasRenderingContext2D,
  left: number,
  right: number,
  top: number,
  height: number,
  theme: Theme,
): void {
  if (right - left < 3) return;
  ctx.strokeStyle = theme.expired;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(left + 0.75, top + 0.75, right - left - 1.5, height - 1.5);
}

/** Lease extensions: notches cut into the top half of the bar. */
export function paintExtension(ctx: CanvasRenderingContext2D, x: number, top: number, height: number, theme: Theme) {
  ctx.fillStyle = theme.background;
  ctx.fillRect(Math.round(x) - 1, top, 2, Math.ceil(height / 2));
}

/** Still held: a bright edge at now, the bar's growing end. */
export function paintHeldEdge(ctx: CanvasRenderingContext2D, x: number, top: number, height: number, theme: Theme) {
  ctx.fillStyle = theme.foreground;
  ctx.fillRect(Math.round(x) - 2, top - 1, 2, height + 2);
}

/** How a hold ended, at its end `x`, in the row whose top is `rowY`. Released ends are plain. */
export function paintEnd(ctx: CanvasRenderingContext2D, end: HoldEnd, x: number, rowY: number, theme: Theme): void {
  const top = rowY + 1;
  const bottom = rowY + ROW_HEIGHT - 1;
  const middle = rowY + ROW_HEIGHT / 2;
  x = Math.round(x);
  switch (end) {
    case 'released':
      return;
    case 'expired':
      // A full-height red cap and a flag: the one mark meant to be seen across a thousand rows.
      ctx.fillStyle = theme.expired;
      ctx.fillRect(x - 2, top, 4, bottom - top);
      ctx.beginPath();
      ctx.moveTo(x + 2, top);
      ctx.lineTo(x + 10, top);
      ctx.lineTo(x + 2, top + 8);
      ctx.closePath();
      ctx.fill();
      return;
    case 'forced':
      ctx.fillStyle = theme.forced;
      ctx.fillRect(x - 1, top, 2, bottom - top);
      ctx.fillRect(x + 1, middle - 3, 6, 6);
      return;
    case 'overwritten':
      ctx.strokeStyle = theme.overwritten;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x - 3, bottom);
      ctx.lineTo(x + 3, top);
      ctx.stroke();
      return;
    case 'evicted':
      ctx.strokeStyle = theme.evicted;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(x + 4, middle, 3, 0, 2 * Math.PI);
      ctx.stroke();
      return;
    case 'unobserved':
      // No end was seen: the bar's edge is torn (paintUnseenEdge), with no mark of an ending.
      return;
  }
}

/**
 * A start or an end nobody saw: the bar's edge at `x` torn in a zigzag, cut into the bar from its
 * `side` (left: the start, right: the end).
 */
export function paintUnseenEdge(
  ctx: CanvasRenderingContext2D,
  x: number,
  top: number,
  height: number,
  side: 'left' | 'right',
  theme: Theme,
): void {
  const depth = side === 'left' ? 3 : -3;
  const teeth = 3;
  const step = height / teeth;
  ctx.fillStyle = theme.background;
  ctx.beginPath();
  ctx.moveTo(x, top);
  for (let i = 0; i < teeth; i++) {
    ctx.lineTo(x + depth, top + step * (i + 0.5));
    ctx.lineTo(x, top + step * (i + 1));
  }
  ctx.closePath();
  ctx.fill();
}

/** A stretch nobody observed: the plot's full height between `left` and `right`, hatched in the muted colour. */
export function paintGap(
  ctx: CanvasRenderingContext2D,
  left: number,
  right: number,
  top: number,
  bottom: number,
  hatch: CanvasPattern | null,
  theme: Theme,
): void {
  const width = Math.max(1, right - left);
  ctx.fillStyle = theme.gap;
  ctx.fillRect(left, top, width, bottom - top);
  if (hatch) {
    ctx.fillStyle = hatch;
    ctx.fillRect(left, top, width, bottom - top);
  }
}

/** Waiters: a step of an area chart standing on `base`, `height` tall for the count. */
export function paintWaiters(
  ctx: CanvasRenderingContext2D,
  left: number,
  width: number,
  base: number,
  height: number,
  theme: Theme,
): void {
  width = Math.max(1, width);
  ctx.fillStyle = theme.waiters;
  ctx.globalAlpha = 0.6;
  ctx.fillRect(left, base - height, width, height);
  ctx.globalAlpha = 1;
  ctx.fillRect(left, base - height, width, 1);
}

/** A repeating tile of diagonal stripes, `size` px square, in `color` at `alpha`. */
function stripes(
  ctx: CanvasRenderingContext2D,
  size: number,
  color: string,
  alpha: number,
  lineWidth: number,
): CanvasPattern | null {
  const tile = document.createElement('canvas');
  tile.width = size;
  tile.height = size;
  const tileCtx = tile.getContext('2d');
  if (!tileCtx) return null;
  const overhang = size / 4;
  tileCtx.strokeStyle = color;
  tileCtx.globalAlpha = alpha;
  tileCtx.lineWidth = lineWidth;
  tileCtx.beginPath();
  tileCtx.moveTo(0, size);
  tileCtx.lineTo(size, 0);
  tileCtx.moveTo(-overhang, overhang);
  tileCtx.lineTo(overhang, -overhang);
  tileCtx.moveTo(size - overhang, size + overhang);
  tileCtx.lineTo(size + overhang, size - overhang);
  tileCtx.stroke();
  return ctx.createPattern(tile, 'repeat');
}

/** Diagonal stripes in the background colour, for approximate bars. */
export function makeHatch(ctx: CanvasRenderingContext2D, theme: Theme): CanvasPattern | null {
  return stripes(ctx, 6, theme.background, 0.6, 1.5);
}

/** Faint stripes in the muted colour, for gaps: unlike anything a bar is drawn with. */
export function makeGapHatch(ctx: CanvasRenderingContext2D, theme: Theme): CanvasPattern | null {
  return stripes(ctx, 8, theme.muted, 0.45, 1);
}

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

/** Diagonal stripes in the background colour, for approximate bars. */
export function makeHatch(ctx: CanvasRenderingContext2D, theme: Theme): CanvasPattern | null {
  const tile = document.createElement('canvas');
  tile.width = 6;
  tile.height = 6;
  const tileCtx = tile.getContext('2d');
  if (!tileCtx) return null;
  tileCtx.strokeStyle = theme.background;
  tileCtx.globalAlpha = 0.6;
  tileCtx.lineWidth = 1.5;
  tileCtx.beginPath();
  tileCtx.moveTo(0, 6);
  tileCtx.lineTo(6, 0);
  tileCtx.moveTo(-1, 1);
  tileCtx.lineTo(1, -1);
  tileCtx.moveTo(5, 7);
  tileCtx.lineTo(7, 5);
  tileCtx.stroke();
  return ctx.createPattern(tile, 'repeat');
}

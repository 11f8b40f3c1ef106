// The legend: each entry's swatch drawn with the chart's own marks, so the two always agree.
import type { HoldEnd } from '../protocol';
import { legendEntry } from './dom';
import { ROW_HEIGHT, rowBands } from './layout';
import {
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
import { slotColor } from './palette';
import type { Theme } from './theme';

const SWATCH_WIDTH = 34;

type Painter = (ctx: CanvasRenderingContext2D, theme: Theme) => void;

const { barTop, barHeight } = rowBands(false);
const BAR_LEFT = 2;
const BAR_RIGHT = 24;

function bar(ctx: CanvasRenderingContext2D, theme: Theme, slot: number, approximate = false): void {
  const hatch = approximate ? makeHatch(ctx, theme) : null;
  const style = { color: slotColor(slot, theme.kind), approximate, hatch, contrastBorder: theme.contrastBorder };
  paintBar(ctx, BAR_LEFT, BAR_RIGHT, barTop, barHeight, style);
}

const ended =
  (end: HoldEnd): Painter =>
  (ctx, theme) => {
    bar(ctx, theme, 0);
    if (end === 'expired') paintExpiredOutline(ctx, BAR_LEFT, BAR_RIGHT, barTop, barHeight, theme);
    paintEnd(ctx, end, BAR_RIGHT, 0, theme);
  };

const ENTRIES: Array<[string, Painter]> = [
  [
    'owners (a colour each)',
    (ctx, theme) => {
      for (let slot = 0; slot < 3; slot++) {
        ctx.fillStyle = slotColor(slot, theme.kind);
        ctx.fillRect(BAR_LEFT + slot * 10, barTop, 8, barHeight);
      }
    },
  ],
  [
    'held now',
    (ctx, theme) => {
      bar(ctx, theme, 0);
      paintHeldEdge(ctx, BAR_RIGHT, barTop, barHeight, theme);
    },
  ],
  ['released', ended('released')],
  ['expired: lease ran out, lock lost', ended('expired')],
  ['forced from the view', ended('forced')],
  ['overwritten', ended('overwritten')],
  ['evicted', ended('evicted')],
  [
    'extended',
    (ctx, theme) => {
      bar(ctx, theme, 0);
      paintExtension(ctx, 10, barTop, barHeight, theme);
      paintExtension(ctx, 17, barTop, barHeight, theme);
    },
  ],
  ['approximate (sampled)', (ctx, theme) => bar(ctx, theme, 0, true)],
  [
    'not observed (no end or start seen across it)',
    (ctx, theme) => {
      paintGap(ctx, 12, 22, 0, ROW_HEIGHT, makeGapHatch(ctx, theme), theme);
      const style = { color: slotColor(0, theme.kind), approximate: false, contrastBorder: theme.contrastBorder };
      paintBar(ctx, BAR_LEFT, 12, barTop, barHeight, style);
      paintUnseenEdge(ctx, 12, barTop, barHeight, 'right', theme);
      paintBar(ctx, 22, 32, barTop, barHeight, style);
      paintUnseenEdge(ctx, 22, barTop, barHeight, 'left', theme);
    },
  ],
  [
    'waiters',
    (ctx, theme) => {
      const { waitersTop, waitersHeight } = rowBands(true);
      for (const [left, count] of [
        [2, 1],
        [10, 3],
        [18, 2],
      ]) {
        paintWaiters(ctx, left, 8, waitersTop + waitersHeight, (count * waitersHeight) / 3, theme);
      }
    },
  ],
];

/** Builds the legend's entries; returns a function that redraws their swatches (on a theme change). */
export function buildLegend(legend: HTMLElement): (theme: Theme) => void {
  const swatches = ENTRIES.map(([text, paint]) => ({
    paint,
    canvas: legendEntry(legend, text, SWATCH_WIDTH, ROW_HEIGHT),
  }));
  return (theme) => {
    const ratio = window.devicePixelRatio || 1;
    for (const { paint, canvas } of swatches) {
      canvas.width = Math.round(SWATCH_WIDTH * ratio);
      canvas.height = Math.round(ROW_HEIGHT * ratio);
      const ctx = canvas.getContext('2d');
      if (!ctx) continue;
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      paint(ctx, theme);
    }
  };
}

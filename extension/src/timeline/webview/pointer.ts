// The chart under the mouse: hover (the tooltip), a click selects the key under it, a drag
// pans; Ctrl+wheel (and a trackpad pinch) or the wheel over the time axis zooms about the
// pointer, Shift+wheel and sideways swipes pan, and the plain wheel scrolls the keys natively.
import type { Controls } from './controls';
import { fillTooltip, placeTooltip } from './dom';
import { gapDetails, holdDetails } from './format';
import { AXIS_HEIGHT, hitTest, plotWidth, type Hit } from './layout';

/** A pointer that moves less than this between down and up clicks rather than drags. */
const CLICK_SLOP_PX = 4;
/** Wheel deltas in lines, as pixels. */
const WHEEL_LINE_PX = 16;

export class PointerInput {
  /** What is under the pointer. */
  hover?: Hit;
  private pointer?: { x: number; y: number };
  private drag?: { x: number; lastX: number; moved: boolean };

  constructor(private readonly timeline: Controls) {}

  listen(scroller: HTMLElement): void {
    scroller.addEventListener('wheel', (event) => this.onWheel(event), { passive: false });
    scroller.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    scroller.addEventListener('pointermove', (event) => this.onPointerMove(event));
    scroller.addEventListener('pointerup', (event) => this.onPointerUp(event));
    scroller.addEventListener('pointercancel', () => (this.drag = undefined));
    scroller.addEventListener('pointerleave', () => {
      this.pointer = undefined;
      this.setHover(undefined);
    });
  }

  private local(event: MouseEvent): { x: number; y: number } {
    const box = this.timeline.elements.scroller.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  private msPerPx(): number {
    return this.timeline.viewport.span / plotWidth(this.timeline.layout());
  }

  private onWheel(event: WheelEvent): void {
    const scale =
      event.deltaMode === WheelEvent.DOM_DELTA_LINE
        ? WHEEL_LINE_PX
        : event.deltaMode
          ? this.timeline.layout().height
          : 1;
    const { x, y } = this.local(event);
    const horizontal = event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY);
    if (event.ctrlKey || event.metaKey || (y < AXIS_HEIGHT && !horizontal)) {
      // Ctrl+wheel (and a trackpad pinch, which arrives as one) or the wheel over the time axis zooms about the pointer.
      event.preventDefault();
      const anchor = this.timeline.viewport.time(
        Math.max(0, x - this.timeline.layout().labelWidth),
        plotWidth(this.timeline.layout()),
      );
      this.timeline.zoom(Math.exp(event.deltaY * scale * 0.002), anchor);
    } else if (horizontal) {
      event.preventDefault();
      this.timeline.pan((event.shiftKey ? event.deltaY || event.deltaX : event.deltaX) * scale * this.msPerPx());
    }
    // Otherwise the wheel scrolls the keys, natively.
  }

  private onPointerDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    this.timeline.elements.scroller.setPointerCapture(event.pointerId);
    this.drag = { x: event.clientX, lastX: event.clientX, moved: false };
  }

  private onPointerMove(event: PointerEvent): void {
    this.pointer = this.local(event);
    if (this.drag) {
      if (Math.abs(event.clientX - this.drag.x) >= CLICK_SLOP_PX) this.drag.moved = true;
      if (this.drag.moved) {
        const dx = event.clientX - this.drag.lastX;
        this.drag.lastX = event.clientX;
        this.timeline.elements.tooltip.hidden = true;
        this.timeline.elements.scroller.classList.add('dragging');
        if (dx) this.timeline.pan(-dx * this.msPerPx());
        return;
      }
    }
    this.rehover();
  }

  private onPointerUp(event: PointerEvent): void {
    const drag = this.drag;
    this.drag = undefined;
    this.timeline.elements.scroller.classList.remove('dragging');
    if (!drag || drag.moved) return;
    const { x, y } = this.local(event);
    const hit = hitTest(this.timeline.store, this.timeline.viewport, this.timeline.layout(), x, y, this.timeline.now());
    if (hit && (hit.onLabel || hit.hold)) this.timeline.select(hit.row.key, hit.rowIndex);
  }

  /** Hover follows the pointer, and what is under it changes with scrolling, panning and updates. */
  rehover(): void {
    if (!this.pointer || this.drag?.moved) return;
    const { x, y } = this.pointer;
    this.setHover(
      hitTest(this.timeline.store, this.timeline.viewport, this.timeline.layout(), x, y, this.timeline.now()),
    );
  }

  private setHover(hit: Hit | undefined): void {
    const { tooltip, chart, scroller } = this.timeline.elements;
    const changed = hit?.rowIndex !== this.hover?.rowIndex || hit?.hold !== this.hover?.hold;
    this.hover = hit;
    scroller.classList.toggle('pointing', Boolean(hit && (hit.hold || hit.onLabel)));
    const lines = hit && this.hoverLines(hit);
    if (!hit || !lines || !this.pointer) tooltip.hidden = true;
    else {
      fillTooltip(tooltip, lines);
      placeTooltip(tooltip, chart, this.pointer.x, this.pointer.y);
    }
    if (changed) this.timeline.invalidate();
  }

  private hoverLines(hit: Hit): Array<[string, string]> | undefined {
    if (hit.hold) {
      const lines = holdDetails(hit.hold, this.timeline.now(), this.timeline.store.sampledEveryMs);
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
    if (hit.gap) return gapDetails(hit.gap, this.timeline.now());
    if (hit.waiters) return [['Waiting', `${hit.waiters} for ${hit.row.key}`]];
    return undefined;
  }
}

// The time window on screen: zoom about a point, pan, and following "now" (the window's right
// edge stays just after now until the user pans back; panning forward to now follows again).

export const MIN_SPAN_MS = 250;
export const MAX_SPAN_MS = 24 * 60 * 60_000;
export const DEFAULT_SPAN_MS = 5 * 60_000;
/** While following, this share of the window lies right of now: the live ends of bars stay in sight. */
export const NOW_MARGIN = 0.04;

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

export interface ViewportState {
  start: number;
  end: number;
  following: boolean;
}

export class Viewport implements ViewportState {
  start: number;
  end: number;
  following = true;

  constructor(now: number, span = DEFAULT_SPAN_MS) {
    this.end = now + span * NOW_MARGIN;
    this.start = this.end - span;
  }

  get span(): number {
    return this.end - this.start;
  }

  restore(state: ViewportState, now: number): void {
    const span = clamp(state.end - state.start, MIN_SPAN_MS, MAX_SPAN_MS);
    this.start = state.start;
    this.end = state.start + span;
    this.following = state.following;
    if (this.following) this.advance(now);
  }

  /** Moves the window to now while following; true when it moved. */
  advance(now: number): boolean {
    if (!this.following) return false;
    const end = now + this.span * NOW_MARGIN;
    if (end === this.end) return false;
    this.start = end - this.span;
    this.end = end;
    return true;
  }

  follow(now: number): void {
    this.following = true;
    this.advance(now);
  }

  /**
   * Scales the window by `factor` (< 1 zooms in) about the time `anchor`; while following, about
   * now, so that it keeps following.
   */
  zoom(factor: number, anchor: number, now: number): void {
    const span = clamp(this.span * factor, MIN_SPAN_MS, MAX_SPAN_MS);
    if (this.following) {
      this.end = now + span * NOW_MARGIN;
      this.start = this.end - span;
      return;
    }
    const share = clamp((anchor - this.start) / this.span, 0, 1);
    this.start = anchor - share * span;
    this.end = this.start + span;
    this.keepInBounds(now, -Infinity);
  }

  /**
   * Moves the window by `deltaMs` (negative: back in time). Back stops following; forward up to
   * now follows again. `earliest` is the first hold's start: the window keeps some of it in view.
   */
  pan(deltaMs: number, now: number, earliest: number): void {
    if (deltaMs === 0) return;
    this.start += deltaMs;
    this.end += deltaMs;
    this.following = false;
    this.keepInBounds(now, earliest);
  }

  x(time: number, width: number): number {
    return ((time - this.start) / this.span) * width;
  }

  time(x: number, width: number): number {
    return this.start + (x / width) * this.span;
  }

  private keepInBounds(now: number, earliest: number): void {
    const span = this.span;
    const latestEnd = now + span * NOW_MARGIN;
    const earliestEnd = Math.min(earliest, now) + span * 0.1;
    if (this.end >= latestEnd) {
      this.end = latestEnd;
      this.following = true;
    } else if (this.end < earliestEnd) {
      this.end = earliestEnd;
    }
    this.start = this.end - span;
  }
}

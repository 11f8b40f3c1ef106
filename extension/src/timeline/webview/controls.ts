// What the keyboard and the pointer act on: the renderer's data, window and actions.
import type { Elements } from './dom';
import type { Layout } from './layout';
import type { TimelineStore } from './store';
import type { Viewport } from './viewport';

/** One zoom step (buttons, keys): the window's span grows or shrinks by this factor. */
export const ZOOM_STEP = 1.5;

/** What keyboard and pointer input act on: the renderer. */
export interface Controls {
  readonly store: TimelineStore;
  readonly viewport: Viewport;
  readonly elements: Elements;
  layout(): Layout;
  now(): number;
  pan(deltaMs: number): void;
  zoom(factor: number, anchor: number): void;
  follow(): void;
  select(key: string, rowIndex: number): void;
  invalidate(): void;
}

/** The time in the middle of the window: what the buttons and keys zoom about. */
export const middle = (viewport: Viewport) => viewport.start + viewport.span / 2;

// The interactions the timeline must keep smooth, driven through real input events in the
// page (drag, Ctrl+wheel, wheel, the Live button) and the extension's update messages, with
// the frame times each produced. Shared by the renderer's test and bench/timeline.ts.
import type { TimelineData } from '../extension/src/timeline/protocol';
import { liveDeltas } from './timeline-data';
import type { TimelinePage } from './timeline-page';

export interface PhaseTimes {
  phase: string;
  /** Each frame's render time (ms). */
  frames: number[];
  /** Each update message's handling time (ms), for the live phase. */
  messages?: number[];
}

const WHEEL_STEPS = 40;
const DRAG_STEPS = 60;
const LIVE_UPDATES = 100;
const HOLDS_PER_UPDATE = 20;
const UPDATE_EVERY_MS = 20;

export async function measureInteractions(timeline: TimelinePage, history: TimelineData): Promise<PhaseTimes[]> {
  const { page } = timeline;
  const box = await page.locator('#scroller').boundingBox();
  if (!box) throw new Error('the chart is not on screen');
  const middle = { x: box.x + box.width * 0.6, y: box.y + box.height / 2 };
  const settle = () => page.waitForTimeout(50);
  const phases: PhaseTimes[] = [];
  const phase = async (name: string, run: () => Promise<number[] | void>) => {
    await settle();
    await timeline.takeFrames();
    const messages = await run();
    await settle();
    phases.push({ phase: name, frames: await timeline.takeFrames(), ...(messages ? { messages } : {}) });
  };

  await phase('pan (drag)', async () => {
    await page.mouse.move(middle.x, middle.y);
    await page.mouse.down();
    for (let i = 1; i <= DRAG_STEPS; i++) {
      await page.mouse.move(middle.x + (i <= DRAG_STEPS / 2 ? i : DRAG_STEPS - i) * 8, middle.y);
      await page.waitForTimeout(8);
    }
    await page.mouse.up();
  });
  await phase('zoom (Ctrl+wheel)', async () => {
    await page.mouse.move(middle.x, middle.y);
    await page.keyboard.down('Control');
    for (let i = 0; i < WHEEL_STEPS; i++) {
      await page.mouse.wheel(0, i < WHEEL_STEPS / 2 ? 120 : -120);
      await page.waitForTimeout(16);
    }
    await page.keyboard.up('Control');
  });
  await phase('scroll keys (wheel)', async () => {
    for (let i = 0; i < WHEEL_STEPS; i++) {
      await page.mouse.wheel(0, i < WHEEL_STEPS / 2 ? 400 : -400);
      await page.waitForTimeout(16);
    }
  });
  await page.locator('#follow').click();
  await phase('live updates (following)', async () => {
    const deltas = liveDeltas(history, LIVE_UPDATES, HOLDS_PER_UPDATE, Date.now(), UPDATE_EVERY_MS);
    const handling: number[] = [];
    for (const delta of deltas) {
      handling.push(await timeline.send({ type: 'update', ...delta, now: Date.now() }));
      await page.waitForTimeout(UPDATE_EVERY_MS);
    }
    return handling;
  });
  return phases;
}

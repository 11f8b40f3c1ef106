// What a frame of the Lock Timeline costs with 1,000 keys (10,000 holds, the history's default
// bound, and 100,000), in headless Chromium with software rendering (no GPU, as in the remote
// setups the panel is for): frame times while panning (drag), zooming (Ctrl+wheel), scrolling
// the keys and taking live updates, against two baselines measured in the same page on a canvas
// of the same size: an empty frame (clear the canvas: the floor) and a naive renderer that draws
// every row and every hold each frame (no virtualisation, no culling). Each frame is timed with
// the canvas flushed (a 1-pixel read), so rasterising counts. Not a test.
//   node --import tsx bench/timeline.ts
import type { TimelineData } from '../extension/src/timeline/protocol';
import { syntheticHistory } from '../harness/timeline-data';
import { buildRenderer, openTimelinePage, percentile, type TimelinePage } from '../harness/timeline-page';
import { measureInteractions } from '../harness/timeline-phases';
import { launchChromium } from '../harness/chromium';

const BASELINE_FRAMES = 60;

/**
 * The baselines, in the page: each frame shifts the window a little (as a pan does) and draws
 * into a canvas the size of the chart. `holds` are [row, from, to, owner], times relative to now.
 */
const BASELINES = `
window.__baseline = (kind, holds, keys, frames) => new Promise((resolve) => {
  const chart = document.getElementById('canvas');
  const canvas = document.createElement('canvas');
  canvas.width = chart.width;
  canvas.height = chart.height;
  canvas.className = 'baseline';
  document.body.append(canvas);
  const ctx = canvas.getContext('2d', { alpha: false });
  const colours = Array.from({ length: 40 }, (_, i) => 'hsl(' + (i * 37) % 360 + ' 60% 60%)');
  const width = canvas.width, height = canvas.height, labels = 200, span = 300000;
  const times = [];
  let frame = 0;
  const draw = () => {
    const started = performance.now();
    ctx.fillStyle = '#1f1f1f';
    ctx.fillRect(0, 0, width, height);
    if (kind === 'naive') {
      const start = -span - frame * 1000;
      const scale = (width - labels) / span;
      ctx.font = '13px monospace';
      ctx.fillStyle = '#cccccc';
      for (let row = 0; row < keys.length; row++) ctx.fillText(keys[row], 8, 24 + row * 22 + 15);
      for (const [row, from, to, owner] of holds) {
        ctx.fillStyle = colours[owner % colours.length];
        ctx.fillRect(labels + (from - start) * scale, 24 + row * 22 + 4, Math.max(1, (to - from) * scale), 14);
      }
    }
    ctx.getImageData(0, 0, 1, 1);
    times.push(performance.now() - started);
    if (++frame < frames) requestAnimationFrame(draw);
    else { canvas.remove(); resolve(times); }
  };
  requestAnimationFrame(draw);
});
`;

async function baseline(timeline: TimelinePage, kind: 'empty' | 'naive', data: TimelineData): Promise<number[]> {
  const keys = [...new Set(data.holds.map((hold) => hold.key))];
  const rowOf = new Map(keys.map((key, row) => [key, row]));
  const owners = new Map<string, number>();
  const holds = data.holds.map((hold) => {
    if (!owners.has(hold.owner)) owners.set(hold.owner, owners.size);
    return [rowOf.get(hold.key), hold.from - data.now, (hold.to ?? data.now) - data.now, owners.get(hold.owner)];
  });
  await timeline.page.evaluate(BASELINES);
  // The frame timer wraps requestAnimationFrame: its own list is emptied, the baseline keeps its times.
  const times = await timeline.page.evaluate<number[]>(
    `window.__baseline(${JSON.stringify(kind)}, ${JSON.stringify(holds)}, ${JSON.stringify(keys)}, ${BASELINE_FRAMES})`,
  );
  await timeline.takeFrames();
  return times;
}

const ms = (value: number) => value.toFixed(2).padStart(7);
const row = (label: string, frames: number[]) =>
  `${label.padEnd(40)} ${String(frames.length).padStart(6)} ${ms(percentile(frames, 50))} ${ms(percentile(frames, 95))} ${ms(Math.max(...frames))}`;

async function main(): Promise<void> {
  const renderer = await buildRenderer();
  const browser = await launchChromium();
  try {
    for (const holds of [10_000, 100_000]) {
      const data = syntheticHistory({ keys: 1000, holds, now: Date.now(), spanMs: 10 * 60_000, owners: 40, seed: 1 });
      const timeline = await openTimelinePage(browser, renderer.dir, { theme: 'dark', width: 1280, height: 720 });
      const reset = await timeline.send({ type: 'reset', ...data });
      await timeline.page.waitForTimeout(300);
      await timeline.takeFrames();
      console.log(`\n1,000 keys x ${holds.toLocaleString('en')} holds (reset taken in ${reset.toFixed(1)} ms)`);
      console.log(
        `${'frame times (ms)'.padEnd(40)} ${'frames'.padStart(6)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'max'.padStart(7)}`,
      );
      const phases = await measureInteractions(timeline, data);
      for (const { phase, frames, messages } of phases) {
        console.log(row(`timeline: ${phase}`, frames));
        if (messages) console.log(row('  update message handling', messages));
      }
      const empty = await baseline(timeline, 'empty', data);
      const naive = await baseline(timeline, 'naive', data);
      console.log(row('baseline: empty frame (clear)', empty));
      console.log(row('baseline: naive (every row, every hold)', naive));
      // The naive baseline draws a shifting window, as a pan does: compared with the pan phase.
      const pan = phases.find(({ phase }) => phase.startsWith('pan'))?.frames ?? [];
      const ratio = (p: number) => (percentile(naive, p) / percentile(pan, p)).toFixed(1);
      console.log(`naive / timeline (pan): p50 ${ratio(50)}x, p95 ${ratio(95)}x`);
      await timeline.page.close();
    }
  } finally {
    await browser.close();
    renderer.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(`bench/timeline: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});

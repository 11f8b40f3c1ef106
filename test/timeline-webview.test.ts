// The Lock Timeline renderer in headless Chromium, in the page the panel makes (its CSP in
// force), with a fake acquireVsCodeApi: the demo's contention drawn in a dark and a light theme
// (screenshots in .test-artifacts/), then 1,000 keys x 10,000 holds: rows drawn, hover, click
// to select, following stopped by a pan and resumed, keyboard, filter; and the frame times of
// panning, zooming, scrolling and live updates, printed as diagnostics (timings are asserted
// nowhere: bench/timeline.ts compares them with baselines).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TimelineData, TimelineHold } from '../extension/src/timeline/protocol';
import { contentionScenario, syntheticHistory } from '../harness/timeline-data';
import {
  buildRenderer,
  chartGeometry,
  openTimelinePage,
  percentile,
  pixelAt,
  pointAt,
  THEMES,
  type TimelinePage,
} from '../harness/timeline-page';
import { measureInteractions } from '../harness/timeline-phases';
import { launchChromium } from '../harness/chromium';

const ARTIFACTS = join(__dirname, '..', '.test-artifacts');
const hex = (color: string) => [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
const isBackground = (pixel: number[], background: number[]) =>
  pixel.every((channel, i) => Math.abs(channel - background[i]) <= 8);

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;

before(async () => {
  renderer = await buildRenderer();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  renderer?.dispose();
});

/** Rows in the renderer's order: natural key order. */
function rowsOf(data: TimelineData): string[] {
  const collator = new Intl.Collator('en', { numeric: true });
  return [...new Set([...data.holds.map((hold) => hold.key), ...data.waiters.map((w) => w.key)])].sort(
    collator.compare,
  );
}

/** A hold that lies wholly inside the window, and the middle of its bar. */
function middleOf(hold: TimelineHold): number {
  return (hold.from + (hold.to ?? Date.now())) / 2;
}

describe('the contention scenario, as the README shows it', () => {
  for (const theme of ['dark', 'light'] as const) {
    test(`draws in the ${theme} theme, under its CSP, with the expired hold explained on hover`, async (t) => {
      const timeline = await openTimelinePage(browser, renderer.dir, { theme, width: 1200, height: 420 });
      t.after(() => timeline.page.close());
      const errors: string[] = [];
      timeline.page.on('pageerror', (error) => errors.push(error.message));
      const data = contentionScenario(Date.now());
      await timeline.send({ type: 'reset', ...data });
      await timeline.page.waitForTimeout(300);
      const status = await timeline.page.locator('#status').textContent();
      assert.equal(status, `${data.holds.length} holds · ${rowsOf(data).length} keys · approximate: read every 2 s`);
      assert.equal(await timeline.page.locator('#title').textContent(), `Lock Timeline · ${data.connection}`);

      const rows = rowsOf(data);
      const expired = data.holds.find((hold) => hold.end === 'expired');
      assert.ok(expired);
      const geometry = await chartGeometry(timeline, rows);
      const point = pointAt(geometry, rows.indexOf(expired.key), middleOf(expired));
      await timeline.page.mouse.move(point.x, point.y);
      const tooltip = timeline.page.locator('#tooltip');
      await tooltip.waitFor({ state: 'visible' });
      const text = await tooltip.textContent();
      assert.match(text ?? '', /worker-3#5120/);
      assert.match(text ?? '', /expired: the lease ran out while held, so the holder lost the lock/);
      assert.ok(!isBackground(await pixelAt(timeline, point.x, point.y), hex(THEMES[theme].vars['editor-background'])));

      mkdirSync(ARTIFACTS, { recursive: true });
      const path = join(ARTIFACTS, `timeline-${theme}.png`);
      await timeline.page.screenshot({ path });
      t.diagnostic(`screenshot: ${path}`);
      assert.deepEqual(await timeline.violations(), [], 'no CSP violations');
      assert.deepEqual(errors, []);
    });
  }

  test('a theme change repaints in the new colours', async (t) => {
    const timeline = await openTimelinePage(browser, renderer.dir, { theme: 'dark', width: 900, height: 300 });
    t.after(() => timeline.page.close());
    await timeline.send({ type: 'reset', ...contentionScenario(Date.now()) });
    const box = await timeline.page.locator('#scroller').boundingBox();
    assert.ok(box);
    // The time axis over the key column: nothing but background there.
    const [x, y] = [box.x + 60, box.y + 3];
    await timeline.page.waitForTimeout(100);
    assert.ok(isBackground(await pixelAt(timeline, x, y), hex(THEMES.dark.vars['editor-background'])));
    await timeline.page.evaluate(`(() => {
      const theme = ${JSON.stringify(THEMES.light)};
      for (const [name, value] of Object.entries(theme.vars)) {
        document.documentElement.style.setProperty('--vscode-' + name, value);
      }
      document.body.classList.replace('vscode-dark', theme.bodyClass);
    })()`);
    await timeline.page.waitForTimeout(100);
    assert.ok(isBackground(await pixelAt(timeline, x, y), hex(THEMES.light.vars['editor-background'])));
  });

  test('a webview rebuilt after being hidden comes back with its window, filter and colours', async (t) => {
    const data = contentionScenario(Date.now());
    const first = await openTimelinePage(browser, renderer.dir, { theme: 'dark', width: 900, height: 300 });
    t.after(() => first.page.close());
    await first.send({ type: 'reset', ...data });
    await first.page.locator('#filter').fill('orders');
    await first.page.locator('#scroller').focus();
    await first.page.keyboard.press('ArrowLeft');
    const saved = await first.savedState();
    assert.ok(saved);
    assert.equal(saved.connectionId, data.connectionId, 'the connection, for the panel restored after a window reload');

    const again = await openTimelinePage(browser, renderer.dir, {
      theme: 'dark',
      width: 900,
      height: 300,
      savedState: saved,
    });
    t.after(() => again.page.close());
    await again.send({ type: 'reset', ...data, now: Date.now() });
    assert.equal(await again.page.locator('#filter').inputValue(), 'orders');
    assert.equal(
      await again.page.locator('#status').textContent(),
      `${data.holds.length} holds · 3 of 7 keys · approximate: read every 2 s`,
    );
    assert.equal(await again.page.locator('#follow').getAttribute('aria-pressed'), 'false');
    const restored = await again.savedState();
    assert.deepEqual(restored?.viewport, saved.viewport);
    assert.deepEqual(restored?.owners, saved.owners, 'each owner keeps its colour');
  });

  test('the CSP is in force: a script without the nonce does not run', async (t) => {
    const timeline = await openTimelinePage(browser, renderer.dir, { theme: 'dark' });
    t.after(() => timeline.page.close());
    const ran = await timeline.page.evaluate(`(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true';
      document.body.append(script);
      return window.__injected === true;
    })()`);
    assert.equal(ran, false);
    await timeline.page.waitForTimeout(50);
    assert.match((await timeline.violations()).join('\n'), /script-src/);
  });
});

describe('what nobody observed', () => {
  test('a gap is drawn as a gap: hovering it says when and why; the hold it cut ended unobserved, not expired; Live only while observed', async (t) => {
    const timeline = await openTimelinePage(browser, renderer.dir, { theme: 'dark', width: 1000, height: 300 });
    t.after(() => timeline.page.close());
    const now = Date.now();
    const gap = { from: now - 40_000, to: now - 20_000, reason: 'the Locks view was hidden' };
    const cut: TimelineHold = {
      id: 1,
      key: 'lock:a',
      owner: 'api-1#4711',
      token: 'api-1:4711:aaaa',
      from: now - 50_000,
      to: gap.from,
      end: 'unobserved',
      extensions: [],
      leaseMs: 3000,
      approximate: false,
    };
    const found: TimelineHold = {
      ...cut,
      id: 2,
      owner: 'api-2#5120',
      token: 'api-2:5120:bbbb',
      from: gap.to + 10,
      to: undefined,
      end: undefined,
      approximate: true,
      startUnseen: { gapFrom: gap.from },
    };
    await timeline.send({
      type: 'reset',
      connection: 'c',
      connectionId: 'id',
      now,
      holds: [cut, found],
      waiters: [],
      gaps: [gap],
      observation: { kind: 'events', since: gap.to },
    });
    await timeline.page.waitForTimeout(200);
    const follow = timeline.page.locator('#follow');
    assert.equal(await follow.textContent(), '● Live');
    assert.match((await timeline.page.locator('#status').textContent()) ?? '', /live: keyspace notifications$/);

    const geometry = await chartGeometry(timeline, ['lock:a']);
    const tooltip = timeline.page.locator('#tooltip');
    const inGap = pointAt(geometry, 0, (gap.from + gap.to) / 2);
    await timeline.page.mouse.move(inGap.x, inGap.y);
    await tooltip.waitFor({ state: 'visible' });
    const gapText = (await tooltip.textContent()) ?? '';
    assert.match(gapText, /Not observed/);
    assert.match(gapText, /the Locks view was hidden/);
    assert.match(gapText, /no release or expiry is shown for it/);
    assert.ok(!isBackground(await pixelAt(timeline, inGap.x, inGap.y), hex(THEMES.dark.vars['editor-background'])));

    const onCut = pointAt(geometry, 0, cut.from + 5_000);
    await timeline.page.mouse.move(onCut.x, onCut.y);
    await timeline.page.waitForFunction("document.getElementById('tooltip').textContent.includes('api-1')");
    const cutText = (await tooltip.textContent()) ?? '';
    assert.match(cutText, /not observed: observation stopped while it was held/);
    assert.match(cutText, /at least 10/);
    assert.doesNotMatch(cutText, /expired/);

    const onFound = pointAt(geometry, 0, gap.to + 5_000);
    await timeline.page.mouse.move(onFound.x, onFound.y);
    await timeline.page.waitForFunction("document.getElementById('tooltip').textContent.includes('api-2')");
    assert.match((await tooltip.textContent()) ?? '', /already held when first seen/);

    // Observation stops (the Locks view hidden): the follow button no longer says Live.
    const stopped = now + 100;
    await timeline.send({
      type: 'update',
      now: stopped,
      holds: [{ ...found, to: stopped, end: 'unobserved' }],
      waiters: [],
      gaps: [{ from: stopped, reason: 'the Locks view was hidden' }],
      observation: { kind: 'none', reason: 'the Locks view was hidden', since: stopped },
    });
    await timeline.page.waitForFunction("document.getElementById('follow').textContent !== '● Live'");
    assert.equal(await follow.textContent(), '○ Not observed');
    assert.match(
      (await timeline.page.locator('#status').textContent()) ?? '',
      /not observed since \d\d:\d\d:\d\d\.\d{3} \(the Locks view was hidden\)$/,
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    await timeline.page.screenshot({ path: join(ARTIFACTS, 'timeline-gap.png') });
  });
});

describe('1,000 keys x 10,000 holds', () => {
  const data = syntheticHistory({
    keys: 1000,
    holds: 10_000,
    now: Date.now(),
    spanMs: 10 * 60_000,
    owners: 40,
    seed: 1,
  });
  const rows = rowsOf(data);
  const byKey = new Map<string, TimelineHold[]>();
  for (const hold of data.holds) byKey.set(hold.key, [...(byKey.get(hold.key) ?? []), hold]);
  const background = hex(THEMES.dark.vars['editor-background']);
  let timeline: TimelinePage;
  let resetMs: number;
  const pageErrors: string[] = [];

  before(async () => {
    timeline = await openTimelinePage(browser, renderer.dir, { theme: 'dark', width: 1280, height: 720 });
    timeline.page.on('pageerror', (error) => pageErrors.push(error.message));
    resetMs = await timeline.send({ type: 'reset', ...data });
    await timeline.page.waitForTimeout(300);
    // Paused a tenth of a window back: what is on screen stays put while the tests look at it.
    await timeline.page.locator('#scroller').focus();
    await timeline.page.keyboard.press('ArrowLeft');
  });

  after(() => timeline?.page.close());

  /** A hold of the row, wholly within the window shown. */
  async function visibleHold(rowIndex: number) {
    const geometry = await chartGeometry(timeline, rows);
    const hold = byKey
      .get(rows[rowIndex])
      ?.find((h) => h.to !== undefined && h.from > geometry.start && h.to < geometry.end && h.to - h.from > 5000);
    assert.ok(hold, `row ${rowIndex} has a hold in view`);
    return { hold, point: pointAt(geometry, rowIndex, middleOf(hold)), geometry };
  }

  test('the status counts keys and holds; the rows in view are drawn, bars where holds are', async () => {
    assert.equal(
      await timeline.page.locator('#status').textContent(),
      '10,000 holds · 1,000 keys · live: keyspace notifications',
    );
    for (const rowIndex of [0, 5, 20]) {
      const { point } = await visibleHold(rowIndex);
      assert.ok(!isBackground(await pixelAt(timeline, point.x, point.y), background), `a bar in row ${rowIndex}`);
    }
  });

  test('scrolled to the end, the last keys are drawn', async (t) => {
    const scrollTo = (top: string) => timeline.page.evaluate(`document.getElementById('scroller').scrollTop = ${top}`);
    await scrollTo('1e9');
    t.after(() => scrollTo('0'));
    await timeline.page.waitForTimeout(100);
    const { point } = await visibleHold(rows.length - 2);
    assert.ok(!isBackground(await pixelAt(timeline, point.x, point.y), background));
  });

  test('hover shows the hold under the pointer: key, owner, token, how it ended', async () => {
    const { hold, point } = await visibleHold(7);
    await timeline.page.mouse.move(point.x, point.y);
    const tooltip = timeline.page.locator('#tooltip');
    await tooltip.waitFor({ state: 'visible' });
    const text = (await tooltip.textContent()) ?? '';
    for (const part of [hold.key, hold.owner, hold.token, hold.end ?? 'not yet']) assert.ok(text.includes(part), part);
    await timeline.page.mouse.move(point.x, 5);
    await tooltip.waitFor({ state: 'hidden' });
  });

  test('clicking a bar or a key label posts select with the key', async () => {
    const { hold, point } = await visibleHold(3);
    await timeline.page.mouse.click(point.x, point.y);
    const { geometry } = await visibleHold(9);
    await timeline.page.mouse.click(geometry.left + 10, pointAt(geometry, 9, geometry.start).y);
    const selects = (await timeline.posted()).filter((message) => message.type === 'select');
    assert.deepEqual(selects.slice(-2), [
      { type: 'select', key: hold.key },
      { type: 'select', key: rows[9] },
    ]);
  });

  test('a drag back in time stops following; Live follows again', async () => {
    const follow = timeline.page.locator('#follow');
    await follow.click();
    assert.equal(await follow.getAttribute('aria-pressed'), 'true');
    const box = await timeline.page.locator('#scroller').boundingBox();
    assert.ok(box);
    await timeline.page.mouse.move(box.x + 600, box.y + 200);
    await timeline.page.mouse.down();
    await timeline.page.mouse.move(box.x + 800, box.y + 200, { steps: 5 });
    await timeline.page.mouse.up();
    assert.equal(await follow.getAttribute('aria-pressed'), 'false');
    assert.equal(await follow.textContent(), 'Go live');
    assert.equal((await timeline.savedState())?.viewport.following, false);
    assert.equal(
      (await timeline.posted()).filter((message) => message.type === 'select').length,
      2,
      'a drag is not a click',
    );
    await follow.click();
    assert.equal(await follow.getAttribute('aria-pressed'), 'true');
    assert.equal((await timeline.savedState())?.viewport.following, true);
  });

  test('keyboard: + and - zoom, arrows pan, Home then Enter selects the first key, ] steps to a hold', async () => {
    const span = timeline.page.locator('#span');
    await timeline.page.locator('#scroller').focus();
    const before = await span.textContent();
    await timeline.page.keyboard.press('+');
    assert.notEqual(await span.textContent(), before);
    await timeline.page.keyboard.press('-');
    assert.equal(await span.textContent(), before);
    await timeline.page.keyboard.press('ArrowLeft');
    assert.equal(await timeline.page.locator('#follow').getAttribute('aria-pressed'), 'false');
    await timeline.page.keyboard.press('Home');
    assert.match((await timeline.page.locator('#announcer').textContent()) ?? '', /^lock:orders:0: \d+ holds in view/);
    await timeline.page.keyboard.press('Enter');
    assert.deepEqual((await timeline.posted()).at(-1), { type: 'select', key: rows[0] });
    await timeline.page.keyboard.press(']');
    assert.match((await timeline.page.locator('#announcer').textContent()) ?? '', /held lock:orders:0 from/);
    await timeline.page.keyboard.press('Escape');
  });

  test('the filter keeps keys containing the text', async (t) => {
    const filter = timeline.page.locator('#filter');
    t.after(() => filter.fill(''));
    await filter.fill('ORDERS:99');
    assert.equal(
      await timeline.page.locator('#status').textContent(),
      '10,000 holds · 11 of 1,000 keys · live: keyspace notifications',
    );
    await filter.fill('no such key');
    assert.equal(
      await timeline.page.locator('#status').textContent(),
      '10,000 holds · 0 of 1,000 keys · live: keyspace notifications',
    );
  });

  test('frame times while panning, zooming, scrolling and taking live updates', async (t) => {
    t.diagnostic(`reset with 10,000 holds: taken in ${resetMs.toFixed(1)} ms`);
    for (const { phase, frames, messages } of await measureInteractions(timeline, data)) {
      assert.ok(frames.length > 0, `${phase}: frames were drawn`);
      const stats = (values: number[]) =>
        `p50 ${percentile(values, 50).toFixed(2)} ms, p95 ${percentile(values, 95).toFixed(2)} ms, max ${Math.max(...values).toFixed(2)} ms`;
      t.diagnostic(`${phase}: ${frames.length} frames, ${stats(frames)}`);
      if (messages) t.diagnostic(`${phase}: ${messages.length} update messages, handling ${stats(messages)}`);
    }
    const holds = Number((await timeline.page.locator('#status').textContent())?.split(' ')[0].replace(/,/g, ''));
    assert.ok(holds > data.holds.length, `the live updates' new holds are counted (${holds})`);
    assert.deepEqual(pageErrors, []);
  });
});

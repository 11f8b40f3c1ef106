// What the runner does on the workbench page when the suite asks (suite/report.ts): as a user
// would, through the page, which the extension host cannot reach.
import type { Page } from 'playwright-core';
import type { HoverSample, PageAnswer, PageRequest } from './results';

/** A spot with nothing to hover: the empty title bar right of the command center. */
const RESTING_POINT = { x: 1000, y: 16 };
const SAMPLE_EVERY_MS = 100;
/** The workbench's hover widget, as the hover service shows it for tree rows. */
const HOVER = '.workbench-hover, .monaco-hover';

/** The text of the hover widgets on screen, or undefined when none is. */
function visibleHover(page: Page): Promise<string | undefined> {
  return page.evaluate(`(() => {
    const shown = [...document.querySelectorAll(${JSON.stringify(HOVER)})].filter((node) => {
      const box = node.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(node).visibility !== 'hidden';
    });
    return shown.length ? shown.map((node) => node.textContent).join('\\n') : undefined;
  })()`);
}

/** A tooltip's text on screen, not VS Code's placeholder while it asks the extension for it. */
const shown = (text: string | undefined) => text !== undefined && text.trim() !== 'Loading...';

/** Rests the pointer on a side bar row and notes what the hover shows, every 100 ms for `holdMs`. */
async function hoverRow(page: Page, row: string, holdMs: number): Promise<HoverSample[]> {
  const target = page.locator(`.part.sidebar .monaco-list-row[aria-label^="${row.replace(/"/g, '\\"')}"]`).first();
  await target.waitFor({ state: 'visible', timeout: 10_000 });
  // On the row's label, which carries the tooltip (its icon does not).
  const box = await target.locator('.monaco-icon-label').first().boundingBox();
  if (!box) throw new Error(`the row ${row} is not on screen`);
  await page.mouse.move(RESTING_POINT.x, RESTING_POINT.y);
  await page.mouse.move(box.x + 20, box.y + box.height / 2, { steps: 4 });
  const started = Date.now();
  const samples: HoverSample[] = [];
  // Until a tooltip shows, the pointer moves along the key every 300 ms, as a hand settling on a
  // row does (VS Code arms a tooltip when the pointer moves onto its text); then it rests. VS Code's
  // "Loading..." is no tooltip yet: a redraw that lands before the extension host is asked for the
  // tooltip closes it (the tree cannot hold a redraw for a hover it does not know of yet), and a
  // user moves the pointer again.
  const spots = [box.x + 20, box.x + 50];
  let moves = 0;
  while (Date.now() - started < holdMs) {
    const text = await visibleHover(page);
    samples.push({ at: Date.now() - started, ...(text === undefined ? {} : { text }) });
    if (!samples.some((sample) => shown(sample.text)) && samples.length % 3 === 0) {
      await page.mouse.move(spots[++moves % 2], box.y + box.height / 2, { steps: 3 });
    }
    await page.waitForTimeout(SAMPLE_EVERY_MS);
  }
  await page.mouse.move(RESTING_POINT.x, RESTING_POINT.y);
  return samples;
}

/** Carries out one request; `screenshot` saves the page under the name given and returns the path. */
export async function carryOut(
  page: Page,
  request: PageRequest,
  screenshot: (name: string) => Promise<string>,
): Promise<PageAnswer> {
  switch (request.kind) {
    case 'screenshot':
      return { path: await screenshot(request.name) };
    case 'hover':
      return { samples: await hoverRow(page, request.row, request.holdMs) };
  }
}

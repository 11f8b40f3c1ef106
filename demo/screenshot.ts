// Screenshots the Locks view of a running demo (README images, and checking the first
// impression by eye): opens the printed URL in headless Chromium, clicks the Redis Locksmith
// icon in the activity bar and waits until the locks are listed.
//   node --import tsx demo/screenshot.ts <url printed by npm run demo> <out.png>
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/vscode/chromium';

const WORKBENCH_TIMEOUT_MS = 60_000;
// Long enough for a refresh (2 s by default) after the first listing, so TTLs have moved.
const SETTLE_MS = 3_000;
const SIDEBAR_EXTRA_PX = 200;

/** Drags the sidebar's edge: at the default width, owners and TTLs are cut short. */
async function widenSidebar(page: Page, px: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) throw new Error('the sidebar is not visible');
  const edge = { x: box.x + box.width, y: box.y + box.height / 2 };
  await page.mouse.move(edge.x, edge.y);
  await page.mouse.down();
  await page.mouse.move(edge.x + px, edge.y, { steps: 10 });
  await page.mouse.up();
}

async function main(url: string, out: string): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page
      .locator('.part.activitybar a.action-label[aria-label^="Redis Locksmith"]')
      .click({ timeout: WORKBENCH_TIMEOUT_MS });
    // A lock row under the connection: connected and scanned.
    await page
      .locator('.part.sidebar .monaco-list-row', { hasText: 'lock:' })
      .first()
      .waitFor({ timeout: WORKBENCH_TIMEOUT_MS });
    await widenSidebar(page, SIDEBAR_EXTRA_PX);
    // Show the reentrant lock's holders.
    await page
      .locator('.part.sidebar .monaco-list-row', { hasText: 'lock:inventory' })
      .locator('.monaco-tl-twistie')
      .click();
    // Focus and the pointer away from the view: no focus outline, no hover tooltip.
    await page.mouse.click(900, 700);
    await page.waitForTimeout(SETTLE_MS);
    await page.screenshot({ path: out });
  } finally {
    await browser.close();
  }
}

const [url, out] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node --import tsx demo/screenshot.ts <url> <out.png>');
  process.exit(2);
}
main(url, out).catch((error: unknown) => {
  console.error(`screenshot: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

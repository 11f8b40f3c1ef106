// Screenshots the Locks view of a running demo (checking the first impression by eye): opens the
// printed URL in headless Chromium, clicks the Redis Locksmith icon in the activity bar and
// waits until the locks are listed. `npm run media` retakes every picture the README and the
// walkthrough show.
//   node --import tsx demo/screenshot.ts <url printed by npm run demo> <out.png>
import { launchChromium } from '../harness/chromium';
import { visible, WINDOW, Workbench, WORKBENCH_TIMEOUT_MS } from '../tools/workbench';

// Long enough for a refresh (2 s by default) after the first listing, so TTLs have moved.
const SETTLE_MS = 3_000;
// At the default width, owners and TTLs are cut short.
const SIDEBAR_EXTRA_PX = 200;

async function main(url: string, out: string): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: WINDOW });
    await page.goto(url);
    const wb = new Workbench(page);
    await wb.openActivity('Redis Locksmith');
    // A lock row under the connection: connected and scanned.
    await visible(wb.sidebarRow('lock:'), 'a lock in the Locks view', WORKBENCH_TIMEOUT_MS);
    await wb.widenSidebar(SIDEBAR_EXTRA_PX);
    // Show the reentrant lock's holders.
    await wb.sidebarRow('lock:inventory').locator('.monaco-tl-twistie').click();
    // Focus and the pointer away from the view: no focus outline, no hover tooltip.
    await page.mouse.click(900, 700);
    await wb.restPointer();
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

// Renders media/icon.svg (the padlock of media/locksmith.svg on Redis red) to the 128x128 PNG
// that the Marketplace and Open VSX show: `npm run icon`. vsce takes no SVG icon.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../harness/chromium';

const ROOT = join(__dirname, '..');
const SIZE = 128;

async function main(): Promise<void> {
  const svg = readFileSync(join(ROOT, 'media', 'icon.svg'), 'utf8');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    await page.locator('svg').screenshot({ path: join(ROOT, 'media', 'icon.png'), omitBackground: true });
  } finally {
    await browser.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

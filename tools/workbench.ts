// Drives code-server's workbench in Chromium as a user would: the command palette, the activity
// bar, view headers, tree rows by their aria-labels, the keyboard. For tools/media.ts and
// demo/screenshot.ts; every wait is bounded and names what it waited for.
import type { FrameLocator, Locator, Page } from 'playwright-core';

/** The browser window the pictures are taken in. */
export const WINDOW = { width: 1280, height: 800 };
/** Long enough for a cold workbench and extension host on a loaded 2-core machine. */
export const WORKBENCH_TIMEOUT_MS = 90_000;
const STEP_TIMEOUT_MS = 20_000;
const PALETTE_TIMEOUT_MS = 5_000;
/** A spot with nothing to hover: the empty title bar right of the command center. */
const RESTING_POINT = { x: 1000, y: 16 };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Waits for `locator` to be visible; the error names `what`. */
export async function visible(locator: Locator, what: string, timeout = STEP_TIMEOUT_MS): Promise<Locator> {
  await waitFor(locator, 'visible', timeout, `${what} did not show`);
  return locator;
}

async function gone(locator: Locator, what: string): Promise<void> {
  await waitFor(locator, 'hidden', STEP_TIMEOUT_MS, `${what} did not close`);
}

/** Waits for the first element `locator` matches; a timeout becomes `failure`, other errors pass. */
async function waitFor(locator: Locator, state: 'visible' | 'hidden', timeout: number, failure: string): Promise<void> {
  try {
    await locator.first().waitFor({ state, timeout });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new Error(`${failure} within ${timeout / 1000} s`);
    throw error;
  }
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The smallest box in whole pixels holding all of `locators`, grown to the right and below, inside the window. */
export async function around(locators: Locator[], grow: { right?: number; below?: number } = {}): Promise<Box> {
  const boxes = await Promise.all(locators.map((locator) => locator.boundingBox()));
  if (!boxes.length || boxes.some((box) => !box)) throw new Error('a part of the picture is not on the screen');
  const left = Math.max(0, Math.floor(Math.min(...boxes.map((box) => box!.x))));
  const top = Math.max(0, Math.floor(Math.min(...boxes.map((box) => box!.y))));
  const right = Math.ceil(Math.max(...boxes.map((box) => box!.x + box!.width)) + (grow.right ?? 0));
  const bottom = Math.ceil(Math.max(...boxes.map((box) => box!.y + box!.height)) + (grow.below ?? 0));
  return {
    x: left,
    y: top,
    width: Math.min(WINDOW.width, right) - left,
    height: Math.min(WINDOW.height, bottom) - top,
  };
}

export class Workbench {
  constructor(readonly page: Page) {}

  /** The quick input (command palette, quick picks, input boxes). */
  get quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  /** A row of the sidebar's trees whose accessible label starts with `text`. */
  sidebarRow(text: string): Locator {
    return this.page.locator(`.part.sidebar .monaco-list-row[aria-label^="${text.replace(/"/g, '\\"')}"]`);
  }

  /** The activity bar item labelled `label` (e.g. "Redis Locksmith"). */
  activity(label: string): Locator {
    return this.page.locator('.part.activitybar .action-item', {
      has: this.page.locator(`a.action-label[aria-label^="${label}"]`),
    });
  }

  /** Opens the view container whose activity bar icon is labelled `label`. */
  async openActivity(label: string): Promise<void> {
    const item = this.activity(label);
    const icon = await visible(
      item.locator('a.action-label'),
      `the ${label} icon in the activity bar`,
      WORKBENCH_TIMEOUT_MS,
    );
    // A second click on the active container's icon would close the sidebar.
    if ((await item.getAttribute('class'))?.includes('checked')) return;
    await icon.click();
  }

  /** Runs a command by its palette title, e.g. "Redis Locksmith: Load Lock Scripts into Redis". */
  async runCommand(title: string): Promise<void> {
    const input = this.quickInput.locator('input');
    // F1 while the workbench moves focus (a prompt closing, an editor opening) can be lost: press it again.
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.press('F1');
      try {
        await visible(input, 'the command palette', PALETTE_TIMEOUT_MS);
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    await input.fill(`>${title}`);
    // The row with exactly this label: Enter would take whichever row the palette ranks first.
    const row = this.quickInput.locator('.monaco-list-row', {
      has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }),
    });
    await (await visible(row, `"${title}" in the command palette`)).first().click();
    await gone(row, 'the command palette');
  }

  /** Waits for the quick input titled `title` (a prefix), e.g. "Add Connection (1/4)". */
  async quickInputTitled(title: string): Promise<Locator> {
    return visible(
      this.quickInput.filter({ has: this.page.locator('.quick-input-title', { hasText: title }) }),
      `the "${title}" prompt`,
    );
  }

  /** Answers an input box: replaces its text with `value` and accepts it. */
  async answer(title: string, value: string): Promise<void> {
    const prompt = await this.quickInputTitled(title);
    await prompt.locator('input').fill(value);
    await this.page.keyboard.press('Enter');
  }

  /** Picks the item whose label starts with `label` in the quick pick titled `title`. */
  async pick(title: string, label: string): Promise<void> {
    const prompt = await this.quickInputTitled(title);
    const row = prompt.locator('.monaco-list-row', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}`) });
    await visible(row.first(), `"${label}" in the "${title}" pick`);
    await row.first().click();
    await gone(prompt.locator('.quick-input-title', { hasText: title }), `the "${title}" pick`);
  }

  /** Closes every notification toast: the pictures show the product, not its confirmations. */
  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications');
    await gone(this.page.locator('.notification-toast'), 'the notification toasts');
  }

  /** The sidebar pane (view) named `name`, e.g. "Locks", header and body. */
  pane(name: string): Locator {
    return this.page.locator('.part.sidebar .pane', {
      has: this.page.locator('.pane-header h3.title', { hasText: new RegExp(`^${escapeRegExp(name)}$`, 'i') }),
    });
  }

  /** The header of the view named `name`: its title, twistie and actions. */
  paneHeader(name: string): Locator {
    return this.pane(name).locator('.pane-header');
  }

  /** Clicks a view's title bar action (shown while the pointer is over the view), e.g. "Show Lock Timeline". */
  async clickViewAction(view: string, action: string): Promise<void> {
    const header = this.paneHeader(view);
    await header.hover();
    await header.locator(`.actions a.action-label[aria-label^="${action}"]`).click();
  }

  /** Collapses or expands a sidebar view by clicking its header. */
  async setPaneExpanded(view: string, expanded: boolean): Promise<void> {
    const header = await visible(this.paneHeader(view), `the ${view} view`);
    if ((await header.getAttribute('aria-expanded')) !== String(expanded)) await header.click();
  }

  /** Drags the sidebar's edge `px` wider (negative: narrower). */
  async widenSidebar(px: number): Promise<void> {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box) throw new Error('the sidebar is not visible');
    const edge = { x: box.x + box.width, y: box.y + box.height / 2 };
    await this.page.mouse.move(edge.x, edge.y);
    await this.page.mouse.down();
    await this.page.mouse.move(edge.x + px, edge.y, { steps: 10 });
    await this.page.mouse.up();
  }

  /** Drags the sidebar's edge until the sidebar is `width` wide (the workbench keeps it at 170 or more). */
  async setSidebarWidth(width: number): Promise<void> {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box) throw new Error('the sidebar is not visible');
    await this.widenSidebar(width - box.width);
  }

  /** The pointer where it hovers nothing. */
  async restPointer(): Promise<void> {
    await this.page.mouse.move(RESTING_POINT.x, RESTING_POINT.y);
  }

  /** The active webview's document (the page inside the panel's two iframes, which lie over the editor part). */
  webview(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  }
}

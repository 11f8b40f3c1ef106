// `npm run media`: retakes the pictures the walkthrough and the README show, from the real demo
// (demo/start.ts: the throwaway Redis, the contending workers, code-server with the extension
// in development mode) driven in headless Chromium at 1280x800 as a user would: the Add
// Connection prompts, the Locks view, the timeline after a minute of contention, Load Lock
// Scripts, the quick fix on demo/workspace/report_job.py (a copy of it), Insert Lock Snippet.
// Everything it starts is stopped however it ends.
//   node --import tsx tools/media.ts [--out <dir>]     (after npm run build; default: this repository)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser, Locator, Page } from 'playwright-core';
import { DOOMED_WORKER, KILL_AFTER_MS, WORKER_PLANS } from '../demo/scenario';
import {
  checkBuilt,
  createWorkspace,
  DEMO_CONNECTION_NAME,
  editorSettings,
  ROOT,
  scheduleCrash,
  startEditor,
  startScenario,
  type DemoEditor,
  type Scenario,
} from '../demo/start';
import { atExit } from '../harness/atExit';
import { launchChromium } from '../harness/chromium';
import { around, visible, WINDOW, Workbench, WORKBENCH_TIMEOUT_MS, type Box } from './workbench';

export const PICTURES = {
  addConnection: 'media/walkthrough/add-connection.png',
  locksView: 'media/walkthrough/locks-view.png',
  scriptsView: 'media/walkthrough/scripts-view.png',
  helperCallSite: 'media/walkthrough/helper-call-site.png',
  lintFix: 'media/walkthrough/lint-fix.png',
  readmeLocksView: 'media/locks-view.png',
  timeline: 'media/timeline.png',
  fixedReportJob: 'media/fixed-report-job.png',
} as const;

const SIDEBAR_EXTRA_PX = 160;
/** Worker locks held at once that make a good Locks view picture, and how long to wait for that. */
const BUSY_LOCKS = 3;
const BUSY_WAIT_MS = 20_000;
/** The Explorer's width in the editor pictures: the file names, and the most room for the code. */
const EXPLORER_WIDTH_PX = 180;
/**
 * From the first listing (when the view starts recording history and the demo's crash is
 * scheduled) to the timeline picture: the SIGKILLed worker's lease has run out 13 s before, and
 * the history is short enough (under 57.6 s) for the panel to fit it into a 1 minute window.
 */
const TIMELINE_AFTER_MS = KILL_AFTER_MS + WORKER_PLANS[DOOMED_WORKER].ttlMs + 13_000;
/** Long enough for a refresh (2 s by default) after the first listing, so TTLs have moved. */
const SETTLE_MS = 3_000;
const REPORT_JOB = 'report_job.py';
const HELPER = 'locksmith.py';
const FIX_TITLE = "Replace with a call of the project's lock helper (redis-py), adding locksmith.py";
const NEW_FILE = 'invoice_sync.py';
/** One blank line between the functions: the call site inserted after the docstring ends with a line break. */
const NEW_FILE_TEXT = `# Sends the day's invoices: one host at a time, or they go out twice.
import redis

r = redis.Redis()


def sync_invoices(day):
    """Pushes every invoice of \`day\` that is not sent yet."""

def push_invoices(day):
    ...
`;

class Shoot {
  constructor(
    readonly wb: Workbench,
    readonly out: string,
    readonly workspace: string,
  ) {}

  get page(): Page {
    return this.wb.page;
  }

  /** Saves the picture, with the pointer resting where it hovers nothing; refuses one with a notification on it. */
  async save(picture: string, clip: Box): Promise<void> {
    await this.wb.restPointer();
    const toast = this.page.locator('.notification-toast');
    if (await toast.count()) throw new Error(`a notification covers ${picture}: ${await toast.first().innerText()}`);
    const path = join(this.out, picture);
    mkdirSync(dirname(path), { recursive: true });
    await this.page.screenshot({ path, clip });
    console.log(`  ${picture}  ${clip.width}x${clip.height}, ${Math.round(statSync(path).size / 1024)} KB`);
  }

  sidebar(): Locator {
    return this.page.locator('.part.sidebar');
  }

  activityBar(): Locator {
    return this.page.locator('.part.activitybar');
  }

  /** The padlock in the activity bar: the pictures of the views reach down to it, so they show where the views are. */
  ourIcon(): Locator {
    return this.wb.activity('Redis Locksmith');
  }
}

/** The Locks view's welcome, the Add Connection prompt with the demo's URL typed, then the rest of the prompts. */
async function addConnection(shoot: Shoot, url: string): Promise<void> {
  const { wb, page } = shoot;
  await wb.openActivity('Redis Locksmith');
  const welcome = shoot.sidebar().locator('.welcome-view-content', { hasText: 'No Redis connection yet' });
  await visible(welcome, 'the Locks view welcome', WORKBENCH_TIMEOUT_MS);
  await welcome.locator('.monaco-button', { hasText: 'Add Connection' }).click();
  const prompt = await wb.quickInputTitled('Add Connection (1/4)');
  await prompt.locator('input').fill(url);
  await wb.restPointer();
  // The view's progress (the extension activating) gone from the padlock.
  await shoot.ourIcon().locator('.progress-badge').waitFor({ state: 'hidden' });
  const picture = await around([shoot.ourIcon(), welcome, prompt], { below: 12, right: 12 });
  // Down to the padlock, above the Lock Scripts view.
  const next = await around([wb.paneHeader('Lock Scripts')]);
  await shoot.save(PICTURES.addConnection, { ...picture, height: Math.min(picture.height, next.y - 1 - picture.y) });
  await page.keyboard.press('Enter');
  await wb.answer('Add Connection (2/4)', DEMO_CONNECTION_NAME);
  await wb.answer('Add Connection (3/4)', '');
  await wb.answer('Add Connection (4/4)', '');
}

/** Waits for the Locks view's first listing of the workers' locks; resolves to when it came. */
async function firstListing(shoot: Shoot): Promise<number> {
  await visible(shoot.wb.sidebarRow('lock:{'), 'a worker lock in the Locks view', WORKBENCH_TIMEOUT_MS);
  return Date.now();
}

/** The live Locks view: owners, TTLs, the warnings, the reentrant lock's holders. */
async function locksView(shoot: Shoot): Promise<void> {
  const { wb, page } = shoot;
  const workerLocks = wb.sidebarRow('lock:{');
  await wb.clearNotifications();
  await wb.widenSidebar(SIDEBAR_EXTRA_PX);
  await wb.sidebarRow('lock:inventory').locator('.monaco-tl-twistie').click();
  // Focus away from the view: no focus outline.
  await page.mouse.click(900, 600);
  await wb.restPointer();
  await page.waitForTimeout(SETTLE_MS);
  // Workers pause between holds: a moment when most of them hold a lock shows more.
  for (let deadline = Date.now() + BUSY_WAIT_MS; Date.now() < deadline;) {
    if ((await workerLocks.count()) >= BUSY_LOCKS) break;
    await page.waitForTimeout(250);
  }
  const lastRow = wb.pane('Locks').locator('.monaco-list-row').last();
  await shoot.save(
    PICTURES.locksView,
    await around([shoot.ourIcon(), shoot.sidebar().locator('.composite.title'), lastRow], { below: 10 }),
  );
  await shoot.save(PICTURES.readmeLocksView, await around([shoot.activityBar(), shoot.sidebar()]));
}

/** The Lock Timeline over the minute since the view's first listing, across the window. */
async function timeline(shoot: Shoot, at: number): Promise<void> {
  const { wb, page } = shoot;
  await page.waitForTimeout(Math.max(0, at - Date.now()));
  await wb.clickViewAction('Locks', 'Show Lock Timeline');
  await visible(wb.webview().locator('#legend li'), 'the Lock Timeline panel');
  // The whole width for the chart; the view stops recording only now.
  await wb.runCommand('View: Toggle Primary Side Bar Visibility');
  await wb.restPointer();
  await page.waitForTimeout(1_000);
  const editor = await around([page.locator('.part.editor')]);
  const chart = await around([wb.webview().locator('.spacer')]);
  await shoot.save(PICTURES.timeline, { ...editor, height: chart.y + chart.height + 12 - editor.y });
  await wb.runCommand('View: Toggle Primary Side Bar Visibility');
}

/** The Lock Scripts view after Load Lock Scripts: each script loaded into the demo's Redis. */
async function scriptsView(shoot: Shoot): Promise<void> {
  const { wb, page } = shoot;
  await wb.runCommand('View: Close All Editors');
  await wb.runCommand('Redis Locksmith: Load Lock Scripts into Redis');
  await wb.clearNotifications();
  await wb.setPaneExpanded('Locks', false);
  await visible(wb.sidebarRow('acquire.lua'), 'acquire.lua in the Lock Scripts view');
  await page.mouse.click(900, 600);
  await wb.restPointer();
  await page.waitForTimeout(1_000);
  const lastRow = wb.pane('Lock Scripts').locator('.monaco-list-row').last();
  await shoot.save(
    PICTURES.scriptsView,
    await around([shoot.ourIcon(), shoot.sidebar().locator('.composite.title'), lastRow], { below: 10 }),
  );
  await wb.setPaneExpanded('Locks', true);
}

/** Moves the cursor to `line`:`column` (1-based) with Go to Line. */
async function goTo(shoot: Shoot, line: number, column: number): Promise<void> {
  await shoot.page.keyboard.press('Control+G');
  const input = await visible(shoot.wb.quickInput.locator('input'), 'Go to Line');
  await input.fill(`:${line}:${column}`);
  await shoot.page.keyboard.press('Enter');
}

/** Opens a file of the workspace from the Explorer. */
async function openFromExplorer(shoot: Shoot, name: string): Promise<void> {
  const { wb, page } = shoot;
  await wb.openActivity('Explorer');
  const row = await visible(wb.sidebarRow(name), `${name} in the Explorer`);
  await row.click();
  await visible(page.locator('.part.editor .tab.active', { hasText: name }), `the ${name} editor`);
}

/** report_job.py: its findings (squiggles, the count on the tab), the quick-fix menu open on the SETNX. */
async function lintFix(shoot: Shoot): Promise<void> {
  const { wb, page } = shoot;
  // The Explorer, narrower than the Locks view wanted: room for the code.
  await wb.setSidebarWidth(EXPLORER_WIDTH_PX);
  await openFromExplorer(shoot, REPORT_JOB);
  const findings = page.locator('.part.editor .squiggly-warning');
  await visible(findings, `the lint findings in ${REPORT_JOB}`, WORKBENCH_TIMEOUT_MS);
  await wb.runCommand('View: Toggle Primary Side Bar Visibility');
  const lines = readFileSync(join(shoot.workspace, REPORT_JOB), 'utf8').split('\n');
  const line = lines.findIndex((text) => text.includes('.setnx('));
  await goTo(shoot, line + 1, lines[line].indexOf('setnx(') + 1);
  await page.keyboard.press('Control+.');
  const fix = page.locator('.action-widget .monaco-list-row', { hasText: FIX_TITLE });
  await visible(fix, `"${FIX_TITLE}" in the quick-fix menu`);
  await wb.restPointer();
  await page.waitForTimeout(500);
  const code = await toCode(shoot, await around([page.locator('.part.editor')]), true);
  const menu = await around([page.locator('.action-widget')]);
  await shoot.save(PICTURES.lintFix, { ...code, width: menu.x + menu.width + 24 - code.x });
  await fix.click();
  await wb.runCommand('View: Toggle Primary Side Bar Visibility');
}

/** `box` cut below the editor's last line of text and, unless `keepWidth`, right of its longest line. */
async function toCode(shoot: Shoot, box: Box, keepWidth = false): Promise<Box> {
  const lines = shoot.page.locator('.part.editor .view-lines .view-line');
  const code = await around([...(await lines.all()), ...(await lines.locator(':scope > span').all())]);
  const text = await around(await lines.locator(':scope > span').all());
  return {
    ...box,
    width: keepWidth ? box.width : Math.min(box.width, text.x + text.width + 40 - box.x),
    height: code.y + code.height + 12 - box.y,
  };
}

/** After the fix: report_job.py calls the helper the fix added, which the Explorer lists. */
async function fixedReportJob(shoot: Shoot): Promise<void> {
  const { wb, page } = shoot;
  await visible(wb.sidebarRow(HELPER), `${HELPER} in the Explorer`);
  await wb.runCommand('File: Save All Files');
  await until(
    () => readFileSync(join(shoot.workspace, REPORT_JOB), 'utf8').includes('from locksmith import lock'),
    `${REPORT_JOB} saved with the call of the helper`,
  );
  await page.locator('.part.editor .squiggly-warning').first().waitFor({ state: 'detached' });
  await page.keyboard.press('Control+Home');
  await shoot.save(PICTURES.fixedReportJob, await editorWithExplorer(shoot));
}

/** The Explorer and the editor, down to the file's last line. */
async function editorWithExplorer(shoot: Shoot): Promise<Box> {
  const { page } = shoot;
  await shoot.wb.restPointer();
  await page.waitForTimeout(500);
  return toCode(shoot, await around([shoot.sidebar(), page.locator('.part.editor')]));
}

/** A new file of the project, Insert Lock Snippet in it: a call site of the project's helper, filled in. */
async function helperCallSite(shoot: Shoot): Promise<void> {
  const { wb, page } = shoot;
  writeFileSync(join(shoot.workspace, NEW_FILE), NEW_FILE_TEXT);
  await openFromExplorer(shoot, NEW_FILE);
  const lines = NEW_FILE_TEXT.split('\n');
  const docstring = lines.findIndex((text) => text.includes('"""'));
  await goTo(shoot, docstring + 1, lines[docstring].length + 1);
  await page.keyboard.press('Enter');
  await wb.runCommand('Redis Locksmith: Insert Lock Snippet');
  await wb.pick('Insert Lock Snippet: client library', 'redis-py');
  await wb.pick('Insert Lock Snippet: pattern', 'Auto-extending lease');
  await wb.pick('Insert Lock Snippet: how', 'Call the lock helper');
  await visible(page.locator('.part.editor .snippet-placeholder'), 'the inserted call site');
  // The snippet's tabstops: the key (typed as a user types it, the closing quote over the
  // one the editor adds), the lease, the body.
  await page.keyboard.press('Backspace');
  await page.keyboard.type('"lock:invoice-sync"');
  await page.keyboard.press('Tab');
  await page.keyboard.insertText('60000');
  await page.keyboard.press('Tab');
  await page.keyboard.insertText('push_invoices(day)');
  // To the snippet's end, which ends the snippet mode.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+S');
  await until(
    () => readFileSync(join(shoot.workspace, NEW_FILE), 'utf8').includes('push_invoices(day)'),
    `${NEW_FILE} saved with the call site`,
  );
  await wb.clearNotifications();
  await shoot.save(PICTURES.helperCallSite, await editorWithExplorer(shoot));
}

/** Polls `done` every 100 ms for up to 20 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 20_000; !done();) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(out: string): Promise<void> {
  checkBuilt('npm run media');
  const scratch = mkdtempSync(join(tmpdir(), 'locksmith-media-'));
  const cancelScratchRemoval = atExit(() => rmSync(scratch, { recursive: true, force: true }));
  let scenario: Scenario | undefined;
  let editor: DemoEditor | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let crash: NodeJS.Timeout | undefined;
  try {
    const workspace = createWorkspace(scratch);
    scenario = await startScenario();
    editor = await startEditor(workspace, { ...editorSettings(undefined), 'remote.autoForwardPorts': false });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: WINDOW });
    await page.goto(editor.url, { waitUntil: 'commit' });
    const shoot = new Shoot(new Workbench(page), out, workspace);
    console.log(`Taking the pictures into ${out}:`);
    await addConnection(shoot, scenario.connectionUrl);
    const listed = await firstListing(shoot);
    // The view records the history from its first listing: the crash comes inside the timeline's window.
    crash = scheduleCrash(scenario.crash);
    await locksView(shoot);
    await timeline(shoot, listed + TIMELINE_AFTER_MS);
    await scriptsView(shoot);
    await lintFix(shoot);
    await fixedReportJob(shoot);
    await helperCallSite(shoot);
  } catch (error) {
    if (page) {
      const failure = join(ROOT, '.test-artifacts', 'media-failure.png');
      mkdirSync(dirname(failure), { recursive: true });
      await page.screenshot({ path: failure }).catch(() => undefined);
      console.error(`the screen when it failed: ${relative(process.cwd(), failure)}`);
    }
    throw error;
  } finally {
    clearTimeout(crash);
    await browser?.close();
    await editor?.server.stop();
    await scenario?.stop();
    rmSync(scratch, { recursive: true, force: true });
    cancelScratchRemoval();
  }
}

let out: string;
try {
  out = parseArgs({ options: { out: { type: 'string', default: ROOT } } }).values.out;
} catch (error) {
  console.error(`${(error as Error).message}; usage: npm run media [-- --out <dir>]`);
  process.exit(2);
}
main(out).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`media: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);

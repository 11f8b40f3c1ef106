// The Lock Timeline renderer in headless Chromium as a VS Code webview would run it: the page
// html.ts makes (its Content Security Policy included), served from a fake webview origin, the
// renderer bundled from its sources, VS Code's theme variables and body class set as VS Code
// sets them, and a fake acquireVsCodeApi that records what the renderer posts and saves. Each
// animation frame's callback is timed, with the canvas flushed (a 1-pixel read) so the time
// includes rasterising.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { newNonce, TIMELINE_SCRIPT, TIMELINE_STYLE, timelineHtml } from '../extension/src/timeline/html';
import type { FromPanel, ToPanel } from '../extension/src/timeline/protocol';
import { AXIS_HEIGHT, layoutFor, plotWidth, ROW_HEIGHT, type Layout } from '../extension/src/timeline/webview/layout';
import { NOW_MARGIN } from '../extension/src/timeline/webview/viewport';

const ROOT = join(__dirname, '..');
const ORIGIN = 'https://webview.test';

/** Roughly VS Code's Dark Modern and Light Modern, the variables the panel uses. */
export const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      'font-family': 'system-ui, "Segoe UI", "Ubuntu", sans-serif',
      'font-size': '13px',
      'editor-font-family': '"DejaVu Sans Mono", monospace',
      foreground: '#cccccc',
      descriptionForeground: '#9d9d9d',
      'editor-background': '#1f1f1f',
      'panel-border': '#2b2b2b',
      'list-hoverBackground': '#2a2d2e',
      'list-inactiveSelectionBackground': '#37373d',
      focusBorder: '#0078d4',
      'input-background': '#313131',
      'input-foreground': '#cccccc',
      'input-border': '#3c3c3c',
      'button-background': '#0078d4',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#026ec1',
      'button-secondaryBackground': '#313131',
      'button-secondaryForeground': '#cccccc',
      'button-secondaryHoverBackground': '#3c3c3c',
      'editorHoverWidget-background': '#202020',
      'editorHoverWidget-foreground': '#cccccc',
      'editorHoverWidget-border': '#454545',
      'widget-shadow': 'rgba(0, 0, 0, 0.36)',
      'charts-foreground': '#cccccc',
      'charts-red': '#f14c4c',
      'charts-blue': '#3794ff',
      'charts-yellow': '#cca700',
      'charts-orange': '#d18616',
      'charts-purple': '#b180d7',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: {
      'font-family': 'system-ui, "Segoe UI", "Ubuntu", sans-serif',
      'font-size': '13px',
      'editor-font-family': '"DejaVu Sans Mono", monospace',
      foreground: '#3b3b3b',
      descriptionForeground: '#717171',
      'editor-background': '#ffffff',
      'panel-border': '#e5e5e5',
      'list-hoverBackground': '#f2f2f2',
      'list-inactiveSelectionBackground': '#e4e6f1',
      focusBorder: '#005fb8',
      'input-background': '#ffffff',
      'input-foreground': '#3b3b3b',
      'input-border': '#cecece',
      'button-background': '#005fb8',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#0258a8',
      'button-secondaryBackground': '#e5e5e5',
      'button-secondaryForeground': '#3b3b3b',
      'button-secondaryHoverBackground': '#cccccc',
      'editorHoverWidget-background': '#f8f8f8',
      'editorHoverWidget-foreground': '#3b3b3b',
      'editorHoverWidget-border': '#c8c8c8',
      'widget-shadow': 'rgba(0, 0, 0, 0.16)',
      'charts-foreground': '#616161',
      'charts-red': '#e51400',
      'charts-blue': '#1a85ff',
      'charts-yellow': '#bf8803',
      'charts-orange': '#d18616',
      'charts-purple': '#652d90',
    },
  },
} as const;

export type ThemeName = keyof typeof THEMES;

/** The renderer bundled from its sources (as esbuild.mjs bundles it) into a temporary folder. */
export async function buildRenderer(): Promise<{ dir: string; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'locksmith-timeline-'));
  await build({
    entryPoints: [join(ROOT, 'extension/src/timeline/webview/main.ts')],
    outfile: join(dir, TIMELINE_SCRIPT),
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
    logLevel: 'warning',
  });
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs in the page before its scripts: VS Code's webview environment, and the frame timer. */
const PAGE_SETUP = `
  window.__posted = [];
  window.__state = __STATE__;
  window.__frames = [];
  window.__violations = [];
  window.acquireVsCodeApi = () => ({
    postMessage: (message) => window.__posted.push(message),
    getState: () => window.__state,
    setState: (state) => { window.__state = state; },
  });
  document.addEventListener('securitypolicyviolation', (event) =>
    window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));
  const theme = __THEME__;
  new MutationObserver((records, observer) => {
    if (!document.body) return;
    for (const [name, value] of Object.entries(theme.vars)) {
      document.documentElement.style.setProperty('--vscode-' + name, value);
    }
    document.body.classList.add(theme.bodyClass);
    observer.disconnect();
  }).observe(document, { childList: true, subtree: true });
  const requestFrame = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => requestFrame((time) => {
    const started = performance.now();
    callback(time);
    const canvas = document.getElementById('canvas');
    if (canvas) canvas.getContext('2d').getImageData(0, 0, 1, 1);
    window.__frames.push(performance.now() - started);
  });
`;

export interface TimelinePage {
  page: Page;
  /** Posts a message to the renderer as the extension would (a MessageEvent on window). */
  send(message: ToPanel): Promise<number>;
  /** What the renderer posted so far. */
  posted(): Promise<FromPanel[]>;
  /** What the renderer saved with setState, once its save delay has passed. */
  savedState(): Promise<
    | {
        viewport: { start: number; end: number; following: boolean };
        owners: Record<string, number>;
        connectionId?: string;
      }
    | undefined
  >;
  /** The frame times (ms) recorded since the last call. */
  takeFrames(): Promise<number[]>;
  /** Content Security Policy violations the page reported. */
  violations(): Promise<string[]>;
}

export async function openTimelinePage(
  browser: Browser,
  rendererDir: string,
  options: { theme: ThemeName; width?: number; height?: number; savedState?: unknown },
): Promise<TimelinePage> {
  const page = await browser.newPage({ viewport: { width: options.width ?? 1280, height: options.height ?? 720 } });
  const html = timelineHtml({
    cspSource: ORIGIN,
    scriptUri: `${ORIGIN}/out/${TIMELINE_SCRIPT}`,
    styleUri: `${ORIGIN}/out/${TIMELINE_STYLE}`,
    nonce: newNonce(),
  });
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/') return route.fulfill({ contentType: 'text/html', body: html });
    const file = path.replace(/^\/out\//, '');
    if (file === TIMELINE_SCRIPT || file === TIMELINE_STYLE) {
      const contentType = file.endsWith('.js') ? 'text/javascript' : 'text/css';
      return route.fulfill({ contentType, body: readFileSync(join(rendererDir, file)) });
    }
    return route.fulfill({ status: 404 });
  });
  await page.addInitScript(
    PAGE_SETUP.replace('__THEME__', JSON.stringify(THEMES[options.theme])).replace(
      '__STATE__',
      // What VS Code keeps of a webview's setState() while it is torn down.
      JSON.stringify(options.savedState) ?? 'undefined',
    ),
  );
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction('window.__posted.some((message) => message.type === "ready")');
  return {
    page,
    // The time the renderer took to take the message in (not the frame it draws later).
    send: (message) =>
      page.evaluate(
        `(() => { const started = performance.now();
          window.dispatchEvent(new MessageEvent('message', { data: ${JSON.stringify(message)} }));
          return performance.now() - started; })()`,
      ),
    posted: () => page.evaluate('window.__posted'),
    savedState: async () => {
      await page.waitForTimeout(400);
      return page.evaluate('window.__state');
    },
    takeFrames: () => page.evaluate('window.__frames.splice(0)'),
    violations: () => page.evaluate('window.__violations'),
  };
}

/** The p-th percentile of `values` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Where the chart is on the page, and what it shows: enough to find a hold's bar on screen. */
export interface ChartGeometry {
  left: number;
  top: number;
  layout: Layout;
  start: number;
  end: number;
}

/**
 * The chart's geometry as the renderer computes it: the scroller's box, the key column sized
 * to the widest of `keys` in the key font, and the time window it last saved (moved on to now
 * while it follows).
 */
export async function chartGeometry(timeline: TimelinePage, keys: readonly string[]): Promise<ChartGeometry> {
  const saved = await timeline.savedState();
  if (!saved) throw new Error('the renderer saved no state');
  const box = await timeline.page.evaluate<{
    left: number;
    top: number;
    width: number;
    height: number;
    scrollTop: number;
    widest: number;
  }>(`(() => {
    const scroller = document.getElementById('scroller');
    const style = getComputedStyle(document.body);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = style.getPropertyValue('--vscode-font-size').trim() + ' ' +
      style.getPropertyValue('--vscode-editor-font-family').trim();
    const keys = ${JSON.stringify([...keys].sort((a, b) => b.length - a.length).slice(0, 32))};
    const rect = scroller.getBoundingClientRect();
    return { left: rect.left, top: rect.top, width: scroller.clientWidth, height: scroller.clientHeight,
      scrollTop: scroller.scrollTop, widest: Math.max(0, ...keys.map((key) => ctx.measureText(key).width)) };
  })()`);
  let { start, end } = saved.viewport;
  if (saved.viewport.following) {
    const span = end - start;
    end = Date.now() + span * NOW_MARGIN;
    start = end - span;
  }
  const layout = layoutFor(box.width, box.height, box.scrollTop, box.widest);
  return { left: box.left, top: box.top, layout, start, end };
}

/** The page position of `time` in row `rowIndex`. */
export function pointAt(geometry: ChartGeometry, rowIndex: number, time: number): { x: number; y: number } {
  const { layout, start, end } = geometry;
  return {
    x: geometry.left + layout.labelWidth + ((time - start) / (end - start)) * plotWidth(layout),
    y: geometry.top + AXIS_HEIGHT + rowIndex * ROW_HEIGHT - layout.scrollTop + ROW_HEIGHT / 2,
  };
}

/** The canvas pixel at a page position, as [r, g, b]. */
export async function pixelAt(timeline: TimelinePage, x: number, y: number): Promise<[number, number, number]> {
  return timeline.page.evaluate(`(() => {
    const canvas = document.getElementById('canvas');
    const rect = canvas.getBoundingClientRect();
    const ratio = canvas.width / rect.width;
    const data = canvas.getContext('2d').getImageData(Math.round((${x} - rect.left) * ratio),
      Math.round((${y} - rect.top) * ratio), 1, 1).data;
    return [data[0], data[1], data[2]];
  })()`);
}

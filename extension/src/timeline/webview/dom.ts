// The panel's elements: a toolbar (filter, zoom, follow), a legend whose swatches are drawn with
// the chart's own marks, the chart (a canvas under a scroller that provides the native vertical
// scrollbar and takes pointer and keyboard input), a tooltip, and text for screen readers.
// Built with createElement and textContent only: keys and owners are never parsed as HTML.

export interface Elements {
  title: HTMLElement;
  filter: HTMLInputElement;
  zoomOut: HTMLButtonElement;
  zoomIn: HTMLButtonElement;
  follow: HTMLButtonElement;
  span: HTMLElement;
  status: HTMLElement;
  legend: HTMLElement;
  chart: HTMLElement;
  canvas: HTMLCanvasElement;
  scroller: HTMLElement;
  spacer: HTMLElement;
  tooltip: HTMLElement;
  announcer: HTMLElement;
}

export const KEYBOARD_HELP =
  'Left and Right arrows move back and forward in time, plus and minus zoom, Up and Down move between keys, ' +
  '[ and ] step through the holds of a key, Enter selects the key in the Locks view, L follows live updates.';

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(id: string, text: string, label: string, title: string): HTMLButtonElement {
  return element('button', { id, type: 'button', 'aria-label': label, title }, text);
}

export function buildElements(root: HTMLElement): Elements {
  const title = element('h1', { id: 'title', class: 'title' }, 'Lock Timeline');
  const filter = element('input', {
    id: 'filter',
    type: 'search',
    placeholder: 'Filter keys',
    'aria-label': 'Filter keys: show keys that contain this text',
    spellcheck: 'false',
  });
  const zoomOut = button('zoom-out', '−', 'Zoom out', 'Zoom out (−, or Ctrl+wheel)');
  const zoomIn = button('zoom-in', '+', 'Zoom in', 'Zoom in (+, or Ctrl+wheel)');
  const span = element('span', { id: 'span', class: 'span', 'aria-live': 'polite' });
  // Labelled by the renderer once it knows whether the connection is observed.
  const follow = button('follow', '', 'Follow live updates', 'Follow live updates (L)');
  follow.setAttribute('aria-pressed', 'true');
  const status = element('span', { id: 'status', class: 'status' });
  const toolbar = element('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Timeline' });
  toolbar.append(title, filter, zoomOut, zoomIn, span, follow, status);

  const legend = element('ul', { id: 'legend', class: 'legend', 'aria-label': 'Legend' });
  const canvas = element('canvas', { id: 'canvas', 'aria-hidden': 'true' });
  const spacer = element('div', { class: 'spacer' });
  const scroller = element('div', {
    id: 'scroller',
    class: 'scroller',
    tabindex: '0',
    role: 'application',
    'aria-roledescription': 'lock timeline',
    'aria-label': 'Lock timeline',
    'aria-describedby': 'keyboard-help',
  });
  scroller.append(spacer);
  const tooltip = element('div', { id: 'tooltip', class: 'tooltip', role: 'tooltip' });
  tooltip.hidden = true;
  const chart = element('div', { id: 'chart', class: 'chart' });
  chart.append(canvas, scroller, tooltip);

  const help = element('p', { id: 'keyboard-help', class: 'visually-hidden' }, KEYBOARD_HELP);
  const announcer = element('div', { id: 'announcer', class: 'visually-hidden', 'aria-live': 'polite' });
  root.append(toolbar, legend, chart, help, announcer);
  return {
    title,
    filter,
    zoomOut,
    zoomIn,
    follow,
    span,
    status,
    legend,
    chart,
    canvas,
    scroller,
    spacer,
    tooltip,
    announcer,
  };
}

/** Fills the tooltip with label/value lines (a description list). */
export function fillTooltip(tooltip: HTMLElement, lines: ReadonlyArray<readonly [string, string]>): void {
  const list = element('dl');
  for (const [label, value] of lines) list.append(element('dt', {}, label), element('dd', {}, value));
  tooltip.replaceChildren(list);
}

/** Places the tooltip near (x, y) inside the chart, flipped to stay within it. */
export function placeTooltip(tooltip: HTMLElement, chart: HTMLElement, x: number, y: number): void {
  tooltip.hidden = false;
  const gap = 14;
  const { offsetWidth: width, offsetHeight: height } = tooltip;
  const left = x + gap + width > chart.clientWidth ? Math.max(0, x - gap - width) : x + gap;
  const top = y + gap + height > chart.clientHeight ? Math.max(0, y - gap - height) : y + gap;
  tooltip.style.transform = `translate(${Math.round(left)}px, ${Math.round(top)}px)`;
}

/** One legend entry: a swatch canvas (drawn by the caller) and its text. */
export function legendEntry(legend: HTMLElement, text: string, width: number, height: number): HTMLCanvasElement {
  const swatch = element('canvas', { 'aria-hidden': 'true', class: 'swatch' });
  swatch.style.width = `${width}px`;
  swatch.style.height = `${height}px`;
  const item = element('li');
  item.append(swatch, element('span', {}, text));
  legend.append(item);
  return swatch;
}

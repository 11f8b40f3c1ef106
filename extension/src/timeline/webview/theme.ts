// The canvas cannot use CSS variables, so the colours VS Code gives the webview (--vscode-*,
// updated with the body's theme class) are read into a plain object, again on a theme change.
import type { ThemeKind } from './palette';

export interface Theme {
  kind: ThemeKind;
  background: string;
  foreground: string;
  muted: string;
  grid: string;
  rowStripe: string;
  hover: string;
  selection: string;
  focus: string;
  now: string;
  /** The lease ran out: red, and only that is red. */
  expired: string;
  forced: string;
  overwritten: string;
  evicted: string;
  waiters: string;
  /** Under the hatch of a stretch nobody observed. */
  gap: string;
  /** Drawn around bars in high-contrast themes. */
  contrastBorder?: string;
  font: string;
  monoFont: string;
}

function themeKind(body: HTMLElement): ThemeKind {
  const kind = body.dataset.vscodeThemeKind;
  if (kind === 'vscode-high-contrast-light' || body.classList.contains('vscode-high-contrast-light')) {
    return 'high-contrast-light';
  }
  if (kind === 'vscode-high-contrast' || body.classList.contains('vscode-high-contrast')) return 'high-contrast';
  if (kind === 'vscode-light' || body.classList.contains('vscode-light')) return 'light';
  return 'dark';
}

export function readTheme(): Theme {
  const style = getComputedStyle(document.body);
  const css = (name: string, fallback: string) => style.getPropertyValue(`--vscode-${name}`).trim() || fallback;
  const kind = themeKind(document.body);
  const light = kind === 'light' || kind === 'high-contrast-light';
  const foreground = css('foreground', light ? '#3b3b3b' : '#cccccc');
  const fontSize = css('font-size', '13px');
  const contrastBorder = style.getPropertyValue('--vscode-contrastBorder').trim();
  return {
    kind,
    background: css('editor-background', light ? '#ffffff' : '#1f1f1f'),
    foreground,
    muted: css('descriptionForeground', light ? '#717171' : '#9d9d9d'),
    grid: light ? 'rgba(0, 0, 0, 0.08)' : 'rgba(255, 255, 255, 0.08)',
    rowStripe: light ? 'rgba(0, 0, 0, 0.025)' : 'rgba(255, 255, 255, 0.025)',
    hover: css('list-hoverBackground', light ? '#f2f2f2' : '#2a2d2e'),
    selection: css('list-inactiveSelectionBackground', light ? '#e4e6f1' : '#37373d'),
    focus: css('focusBorder', '#0078d4'),
    now: css('charts-blue', '#3794ff'),
    expired: css('charts-red', light ? '#e51400' : '#f14c4c'),
    forced: css('charts-orange', '#d18616'),
    overwritten: css('charts-purple', '#b180d7'),
    evicted: css('charts-foreground', foreground),
    waiters: css('charts-yellow', light ? '#bf8803' : '#cca700'),
    gap: light ? 'rgba(0, 0, 0, 0.05)' : 'rgba(255, 255, 255, 0.05)',
    contrastBorder: contrastBorder || undefined,
    font: `${fontSize} ${css('font-family', 'system-ui, sans-serif')}`,
    monoFont: `${fontSize} ${css('editor-font-family', 'monospace')}`,
  };
}

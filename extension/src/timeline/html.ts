// The Lock Timeline webview's page: a strict Content Security Policy (nothing but the renderer's
// script, by nonce, and its stylesheet, from the extension's files), and an empty body the
// renderer fills. No vscode import: the panel passes the webview's URIs in.
import { randomBytes } from 'node:crypto';

/** The renderer's files, built by esbuild.mjs from webview/main.ts into this folder under the extension. */
export const TIMELINE_OUT_DIR = ['extension', 'out', 'timeline'] as const;
export const TIMELINE_SCRIPT = 'timeline.js';
export const TIMELINE_STYLE = 'timeline.css';

export interface TimelinePage {
  /** webview.cspSource: the origin the webview serves the extension's files from. */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  /** A fresh nonce per page (newNonce()). */
  nonce: string;
}

/** 128 random bits, base64: what CSP calls a nonce. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

const escapeAttribute = (text: string): string =>
  text.replace(/[&"<>]/g, (char) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[char] ?? char);

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function timelineHtml(page: TimelinePage): string {
  const csp = escapeAttribute(contentSecurityPolicy(page.cspSource, page.nonce));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttribute(page.styleUri)}">
<title>Lock Timeline</title>
</head>
<body>
<div id="timeline" class="timeline"></div>
<script nonce="${escapeAttribute(page.nonce)}" src="${escapeAttribute(page.scriptUri)}"></script>
</body>
</html>
`;
}

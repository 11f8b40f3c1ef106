// The Lock Timeline webview's script (bundled by esbuild.mjs into extension/out/timeline/).
import './timeline.css';
import { TimelineApp, type VsCodeApi } from './app';
import { buildElements } from './dom';
import { buildLegend } from './legend';

declare function acquireVsCodeApi(): VsCodeApi;

const root = document.getElementById('timeline');
if (!root) throw new Error('the page has no #timeline element');
const elements = buildElements(root);
new TimelineApp(elements, acquireVsCodeApi(), buildLegend(elements.legend));

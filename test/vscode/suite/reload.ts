// A test that reloads the window: the extension host it runs in ends, and the workbench starts
// the suite again in a new one. The run goes on there: the tests that finished keep their
// results and do not run again, and the test that reloaded runs again, knowing it is after the
// reload. Needs the results file (both runners give one); index.ts reads the marker.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { RESULTS_FILE_ENV } from '../results';
import { report } from './report';

/** The marker a reloading test leaves next to the results file: its full title. */
export function reloadMarker(): string | undefined {
  const results = process.env[RESULTS_FILE_ENV];
  return results && `${results}.reload`;
}

/** What a reloading test leaves for the next extension host: its full title, and the metrics measured so far. */
export interface Reloaded {
  title: string;
  metrics: Record<string, number>;
}

/** The test that reloaded the window before this extension host started, read once (index.ts). */
export function takeReloadMarker(): Reloaded | undefined {
  const marker = reloadMarker();
  if (!marker || !existsSync(marker)) return undefined;
  const reloaded = JSON.parse(readFileSync(marker, 'utf8')) as Reloaded;
  rmSync(marker);
  return reloaded;
}

/** This test already reloaded the window: it runs in the extension host after the reload. */
export function afterReload(title: string): boolean {
  return (globalThis as { [key: symbol]: string | undefined })[Symbol.for('redis-locksmith.reloaded-by')] === title;
}

/** This extension host started after a test reloaded the window: what happened once per activation happened in the one before. */
export function reloadedBefore(): boolean {
  return (globalThis as { [key: symbol]: string | undefined })[Symbol.for('redis-locksmith.reloaded-by')] !== undefined;
}

/** Notes which test reloaded the window, for afterReload() in every suite file's bundle. */
export function noteReloadedBy(title: string): void {
  (globalThis as { [key: symbol]: string | undefined })[Symbol.for('redis-locksmith.reloaded-by')] = title;
}

/** Reloads the window; the test `title` runs again after it (afterReload). Never returns: this extension host ends. */
export function reloadWindow(title: string): Promise<never> {
  const marker = reloadMarker();
  if (!marker) throw new Error(`${RESULTS_FILE_ENV} is not set: a run cannot go on across a reload without it`);
  writeFileSync(marker, JSON.stringify({ title, metrics: report().metrics } satisfies Reloaded));
  // Not awaited: the command is cancelled as this extension host ends, which must not end the test.
  vscode.commands.executeCommand('workbench.action.reloadWindow').then(undefined, () => undefined);
  return new Promise<never>(() => {});
}

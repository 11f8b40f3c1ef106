// What a suite can tell the runner: metrics, and screenshots of the workbench (which only the
// runner can reach). Every suite file is bundled on its own, so the state shared with index.ts
// lives on globalThis (one extension host, one run), not in this module.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ANSWER_SUFFIX,
  REQUEST_SUFFIX,
  SCREENSHOT_REQUESTS_ENV,
  type ScreenshotAnswer,
  type ScreenshotRequest,
  type SuiteResults,
} from '../results';

type Report = Omit<SuiteResults, 'tests'>;

export function report(): Report {
  const global = globalThis as { [key: symbol]: Report | undefined };
  const key = Symbol.for('redis-locksmith.vscode-test-report');
  return (global[key] ??= { metrics: {} });
}

export function recordMetric(name: string, value: number): void {
  report().metrics[name] = value;
}

/**
 * Names the screenshot the runner takes after the run, after what is on screen; counts only
 * when called by the last test to run (default name: after-run).
 */
export function screenshotAfterRun(name: string): void {
  report().finalScreenshot = name;
}

/**
 * Asks the runner for a screenshot of the workbench now and waits until it is saved; returns
 * its path, or undefined under a runner that takes none (desktop VS Code).
 */
export async function takeScreenshot(name: string, timeoutMs = 30_000): Promise<string | undefined> {
  const dir = process.env[SCREENSHOT_REQUESTS_ENV];
  if (!dir) return undefined;
  const base = join(dir, randomUUID());
  const request: ScreenshotRequest = { name };
  // Written whole, then renamed: the runner never reads half a request.
  writeFileSync(`${base}.tmp`, JSON.stringify(request));
  renameSync(`${base}.tmp`, `${base}${REQUEST_SUFFIX}`);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(`${base}${ANSWER_SUFFIX}`)) {
    if (Date.now() > deadline) throw new Error(`the runner took no screenshot "${name}" within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const answer = JSON.parse(readFileSync(`${base}${ANSWER_SUFFIX}`, 'utf8')) as ScreenshotAnswer;
  if ('error' in answer) throw new Error(`screenshot "${name}" failed: ${answer.error}`);
  return answer.path;
}

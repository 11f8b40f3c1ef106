// What a suite can tell the runner: metrics, and what to do on the workbench page (which only the
// runner can reach): screenshots, a pointer resting on a row. Every suite file is bundled on its own, so the state shared with index.ts
// lives on globalThis (one extension host, one run), not in this module.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ANSWER_SUFFIX,
  PAGE_REQUESTS_ENV,
  REQUEST_SUFFIX,
  type HoverSample,
  type PageAnswer,
  type PageRequest,
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

/** Asks the runner to act on the page and waits for its answer; undefined under a runner that serves none (desktop VS Code). */
async function askRunner(request: PageRequest, timeoutMs: number): Promise<PageAnswer | undefined> {
  const dir = process.env[PAGE_REQUESTS_ENV];
  if (!dir) return undefined;
  const base = join(dir, randomUUID());
  // Written whole, then renamed: the runner never reads half a request.
  writeFileSync(`${base}.tmp`, JSON.stringify(request));
  renameSync(`${base}.tmp`, `${base}${REQUEST_SUFFIX}`);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(`${base}${ANSWER_SUFFIX}`)) {
    if (Date.now() > deadline)
      throw new Error(`the runner did not answer ${JSON.stringify(request)} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const answer = JSON.parse(readFileSync(`${base}${ANSWER_SUFFIX}`, 'utf8')) as PageAnswer;
  if ('error' in answer) throw new Error(`${request.kind} failed: ${answer.error}`);
  return answer;
}

/**
 * Asks the runner for a screenshot of the workbench now and waits until it is saved; returns
 * its path, or undefined under a runner that takes none (desktop VS Code).
 */
export async function takeScreenshot(name: string, timeoutMs = 30_000): Promise<string | undefined> {
  const answer = await askRunner({ kind: 'screenshot', name }, timeoutMs);
  return answer && 'path' in answer ? answer.path : undefined;
}

/**
 * Rests the pointer on the Locks or Scripts view row whose label starts with `row` for `holdMs`,
 * as a user reading its tooltip, and returns what the hover showed every 100 ms; undefined under a
 * runner that cannot (desktop VS Code).
 */
export async function hoverRow(row: string, holdMs: number): Promise<HoverSample[] | undefined> {
  const answer = await askRunner({ kind: 'hover', row, holdMs }, holdMs + 30_000);
  return answer && 'samples' in answer ? answer.samples : undefined;
}

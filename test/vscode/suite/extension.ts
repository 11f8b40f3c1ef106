// The extension under test, as suites see it through the vscode API.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { recordMetric } from './report';

export const EXTENSION_ID = 'redis-locksmith.redis-locksmith';

export function locksmith(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not loaded in the extension host`);
  return extension;
}

/**
 * Activates the extension. Suites activate it through here so that whichever runs first
 * records the activation time as a suite sees it (metric activationMs).
 */
export async function activateLocksmith(): Promise<vscode.Extension<unknown>> {
  const extension = locksmith();
  if (!extension.isActive) {
    const started = performance.now();
    await extension.activate();
    recordMetric('activationMs', Math.round(performance.now() - started));
  }
  return extension;
}

// The "Get started" walkthrough's steps complete on the real actions, not on opening a command:
// each success sets a context key that the step's completion event waits for.
import * as vscode from 'vscode';

export const WALKTHROUGH_STEPS = {
  connected: 'locksmith.walkthrough.connected',
  scriptsLoaded: 'locksmith.walkthrough.scriptsLoaded',
  codeWritten: 'locksmith.walkthrough.codeWritten',
  fixApplied: 'locksmith.walkthrough.fixApplied',
} as const;

export type WalkthroughStep = keyof typeof WALKTHROUGH_STEPS;

export function stepDone(step: WalkthroughStep): void {
  void vscode.commands.executeCommand('setContext', WALKTHROUGH_STEPS[step], true);
}

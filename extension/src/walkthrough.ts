// The "Get started" walkthrough's steps complete on the real actions, not on opening a command or
// a view: each success sets a context key that the step's completion event waits for.
import * as vscode from 'vscode';
import { WALKTHROUGH_STEPS, type WalkthroughStep } from './walkthroughSteps';

export { WALKTHROUGH_STEPS, type WalkthroughStep } from './walkthroughSteps';

const done = new Set<WalkthroughStep>();

export function stepDone(step: WalkthroughStep): void {
  if (done.has(step)) return;
  done.add(step);
  void vscode.commands.executeCommand('setContext', WALKTHROUGH_STEPS[step], true);
}

/** The steps completed in this window (tests). */
export function stepsDone(): ReadonlySet<WalkthroughStep> {
  return done;
}

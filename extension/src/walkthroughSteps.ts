// The "Get started" walkthrough's steps and the context key each one's completion waits for
// (package.json's completionEvents name them). Plain data: test/walkthrough.test.ts checks the
// manifest against it.
export const WALKTHROUGH_STEPS = {
  connected: 'locksmith.walkthrough.connected',
  /** The Locks view listed a connection's locks: seen, not merely opened. */
  locksListed: 'locksmith.walkthrough.locksListed',
  scriptsLoaded: 'locksmith.walkthrough.scriptsLoaded',
  codeWritten: 'locksmith.walkthrough.codeWritten',
  fixApplied: 'locksmith.walkthrough.fixApplied',
} as const;

export type WalkthroughStep = keyof typeof WALKTHROUGH_STEPS;

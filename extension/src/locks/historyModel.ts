// The lock history's vocabulary as plain data, with no Node and no vscode: the history
// (history.ts) records it, and the Lock Timeline's webview protocol (timeline/protocol.ts) carries
// it to the renderer. The protocol builds on this, never the reverse.

/** How a hold ended: released by compare-and-delete, lease ran out, released from the view, SET by someone else, evicted. */
export type HoldEnd = 'released' | 'expired' | 'forced' | 'overwritten' | 'evicted';

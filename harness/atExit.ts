// Cleanup that must happen however the process ends: normally, by an uncaught error, or by
// SIGINT/SIGTERM (which would otherwise end it without running 'exit' listeners).
let signalsHooked = false;

/** Runs `cleanup` (synchronous) at process exit; returns a function that cancels it. */
export function atExit(cleanup: () => void): () => void {
  if (!signalsHooked) {
    signalsHooked = true;
    process.once('SIGINT', () => process.exit(130));
    process.once('SIGTERM', () => process.exit(143));
  }
  process.once('exit', cleanup);
  return () => process.off('exit', cleanup);
}

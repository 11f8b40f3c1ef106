await withLock(«client», «key», { ttlMs: «ttl», renew: true }, async ({ signal }) => {
  // signal aborts when the lease is lost: pass it on, or check signal.aborted before writing
  «body»
});

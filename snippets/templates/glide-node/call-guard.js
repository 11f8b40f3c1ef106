await withLock(«client», «key», { ttlMs: «ttl» }, async () => {
  «body»
});

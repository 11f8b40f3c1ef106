await withLock(«client», «key», { ttlMs: «ttl», fenceKey: «fence» }, async ({ fence }) => {
  // fence grows with every new holder: the guarded resource refuses writes with an older one
  «body»
});

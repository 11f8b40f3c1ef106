Locksmith::withLock(«client», «key», «ttl», function ($lease) {
    «body»
});

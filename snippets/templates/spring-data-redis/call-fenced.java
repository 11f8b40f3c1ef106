try (Locksmith.Lease lease = new Locksmith(«client»).acquire(«key», Locksmith.ttlMs(«ttl»).fenceKey(«fence»))) {
    // lease.fence() grows with every new holder: the guarded resource refuses older ones
    «body»
}

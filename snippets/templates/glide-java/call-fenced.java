try (Locksmith.Lease lease = Locksmith.acquire(«client», «key», Locksmith.ttlMs(«ttl»).fenceKey(«fence»))) {
    // lease.fence() grows with every new holder: the guarded resource refuses older ones
    «body»
}

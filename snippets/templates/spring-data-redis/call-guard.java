try (Locksmith.Lease lease = new Locksmith(«client»).acquire(«key», Locksmith.ttlMs(«ttl»))) {
    «body»
}

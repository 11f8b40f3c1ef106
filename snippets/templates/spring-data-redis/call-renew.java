try (Locksmith.Lease lease = new Locksmith(«client»).acquire(«key», Locksmith.ttlMs(«ttl»).renew())) {
    // lease.lost() turns true when the lease is gone: check it before each write
    «body»
}

try (Locksmith.Lease lease = Locksmith.acquire(«client», «key», Locksmith.ttlMs(«ttl»).renew())) {
    // lease.lost() turns true when the lease is gone: check it before each write
    «body»
}

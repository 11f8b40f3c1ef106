try (Locksmith.Lease lease = Locksmith.acquire(«client», «key», Locksmith.ttlMs(«ttl»))) {
    «body»
}

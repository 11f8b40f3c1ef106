Locksmith::withLock(«client», «key», «ttl», function ($lease) {
    // call $lease->check() between steps: it renews the lease and throws once it is lost
    «body»
}, renew: true);

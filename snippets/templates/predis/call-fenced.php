Locksmith::withLock(«client», «key», «ttl», function ($lease) {
    // $lease->fence grows with every new holder: the guarded resource refuses older ones
    «body»
}, fenceKey: «fence»);

await using var lease = await RedisLock.AcquireAsync(«client», «key», «ttl», fenceKey: «fence»);
// lease.Fence grows with every new holder: the guarded resource refuses older ones
«body»

await using var lease = await RedisLock.AcquireAsync(«client», «key», «ttl»);
«body»

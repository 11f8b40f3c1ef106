await using var lease = await RedisLock.AcquireAsync(«client», «key», TimeSpan.FromMilliseconds(«ttl»));
«body»

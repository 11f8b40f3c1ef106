await using var lease = await RedisLock.AcquireAsync(«client», «key», «ttl», renew: true);
// lease.Lost is cancelled when the lease is gone: pass it to the calls that write
«body»

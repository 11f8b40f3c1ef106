Locksmith.with_lock(«client», «key», ttl_ms: «ttl», renew: true) do |lease|
  # lease.lost? turns true when the lease is gone: check it before each write
  «body»
end

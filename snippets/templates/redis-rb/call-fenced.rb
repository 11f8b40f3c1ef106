Locksmith.with_lock(«client», «key», ttl_ms: «ttl», fence_key: «fence») do |lease|
  # lease.fence grows with every new holder: the guarded resource refuses older ones
  «body»
end

Locksmith.with_lock(«client», «key», ttl_ms: «ttl») do |_lease|
  «body»
end

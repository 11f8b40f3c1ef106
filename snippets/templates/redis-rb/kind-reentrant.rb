«section:scripts»
  REENTRANT_ACQUIRE = <<~'LUA'
«lua:reentrant_acquire»  LUA
  REENTRANT_EXTEND = <<~'LUA'
«lua:reentrant_extend»  LUA
  REENTRANT_RELEASE = <<~'LUA'
«lua:reentrant_release»  LUA
«section:acquire»
    if kind.delete(:reentrant)
      return acquire_reentrant(redis, key, ttl_ms: ttl_ms, wait_ms: wait_ms, fence_key: fence_key, renew: renew,
                                           retry_ms: retry_ms, **kind)
    end
«section:with-lock»
    return hold_reentrant(lease, &block) if options[:reentrant]
«section:code»

  # The reentrant lock: with_lock(redis, key, ttl_ms:, reentrant: true); a nested one on the same key
  # in the same thread or fiber re-enters it (each take needs its release).
  def acquire_reentrant(redis, key, ttl_ms:, wait_ms:, fence_key:, renew:, retry_ms:)
    raise ArgumentError, 'fence_key works with a plain lock, not a reentrant one' unless fence_key.nil?

    token = reentrant_holds[key] || new_token
    take(redis, key, ttl_ms, wait_ms, retry_ms) { run(redis, REENTRANT_ACQUIRE, [key], [token, ttl_ms]) }
    Lease.new(redis, key, token, ttl_ms, nil, renew, REENTRANT_EXTEND, REENTRANT_RELEASE)
  end

  # Holds a reentrant lease around the block, its token the one a nested take on its key re-enters with.
  def hold_reentrant(lease, &block)
    outer = reentrant_holds
    Thread.current[:locksmith_reentrant] = outer.merge(lease.key => lease.token)
    begin
      hold(lease, &block)
    ensure
      Thread.current[:locksmith_reentrant] = outer
    end
  end

  # The owner tokens of the reentrant locks held around the current code (this thread or fiber), by key.
  def reentrant_holds
    Thread.current[:locksmith_reentrant] || {}
  end

«section:scripts»
  SEMAPHORE_ACQUIRE = <<~'LUA'
«lua:semaphore_acquire»  LUA
  SEMAPHORE_EXTEND = <<~'LUA'
«lua:semaphore_extend»  LUA
  SEMAPHORE_RELEASE = <<~'LUA'
«lua:semaphore_release»  LUA
«section:code»

  # Takes one of permits permits of the semaphore key, each holder with its own lease: a holder
  # that dies gives its permit back when its lease ends. permits: the same for every caller.
  def acquire_semaphore(redis, key, permits:, ttl_ms:, wait_ms: 10_000, renew: false, retry_ms: 500) # rubocop:disable Metrics/ParameterLists
    unless permits.is_a?(Integer) && permits.between?(1, 999_999_999)
      raise ArgumentError, "permits must be an integer from 1 to 999999999, got #{permits.inspect}"
    end

    token = new_token
    args = [token, ttl_ms, permits]
    take(redis, key, ttl_ms, wait_ms, retry_ms, 'the other holders of its permits') { run(redis, SEMAPHORE_ACQUIRE, [key], args) }
    Lease.new(redis, key, token, ttl_ms, nil, renew, SEMAPHORE_EXTEND, SEMAPHORE_RELEASE)
  end

  # Yields a permit of the semaphore key (permits: holders at once), as with_lock does.
  def with_semaphore(redis, key, **options, &block)
    hold(acquire_semaphore(redis, key, **options), &block)
  end

«section:scripts»
  READ_ACQUIRE = <<~'LUA'
«lua:read_acquire»  LUA
  WRITE_ACQUIRE = <<~'LUA'
«lua:write_acquire»  LUA
  RW_EXTEND = <<~'LUA'
«lua:rw_extend»  LUA
  RW_RELEASE = <<~'LUA'
«lua:rw_release»  LUA
«section:code»

  # Takes a read lock: held with other readers, never with a writer. Waits as acquire does.
  def acquire_read(redis, key, ttl_ms:, wait_ms: 10_000, renew: false, retry_ms: 500)
    token = new_token
    take(redis, key, ttl_ms, wait_ms, retry_ms, 'a writer') { run(redis, READ_ACQUIRE, [key], [token, ttl_ms]) }
    Lease.new(redis, key, token, ttl_ms, nil, renew, RW_EXTEND, RW_RELEASE)
  end

  # Takes the write lock: held alone, with no reader. While it waits, its intent keeps new readers
  # out (renewed by every try), so a stream of readers cannot starve it.
  def acquire_write(redis, key, ttl_ms:, wait_ms: 10_000, renew: false, retry_ms: 500)
    token = new_token
    args = [token, ttl_ms, wait_ms.positive? ? 2 * retry_ms : 1]
    take(redis, key, ttl_ms, wait_ms, retry_ms, 'readers or another writer') { run(redis, WRITE_ACQUIRE, [key], args) }
    Lease.new(redis, key, token, ttl_ms, nil, renew, RW_EXTEND, RW_RELEASE)
  end

  # Yields a read lease (other readers may hold it at the same time, no writer), as with_lock does.
  def with_read_lock(redis, key, **options, &block)
    hold(acquire_read(redis, key, **options), &block)
  end

  # Yields the write lease (no reader and no other writer at the same time), as with_lock does.
  def with_write_lock(redis, key, **options, &block)
    hold(acquire_write(redis, key, **options), &block)
  end

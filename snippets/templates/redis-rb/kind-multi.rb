«section:scripts»
  MULTI_ACQUIRE = <<~'LUA'
«lua:multi_acquire»  LUA
  MULTI_EXTEND = <<~'LUA'
«lua:multi_extend»  LUA
  MULTI_RELEASE = <<~'LUA'
«lua:multi_release»  LUA
«section:code»

  # Several plain locks held together under one token (keys: each lock key once, in the order taken).
  # extend_ttl and release act on every key the token still holds; both answer true only when it held
  # all of them. With renew: true a thread extends them all every ttl/3 until release.
  class MultiLease < Lease
    attr_reader :keys

    def initialize(redis, keys, token, ttl_ms, renew)
      @keys = keys
      super(redis, keys.join(', '), token, ttl_ms, nil, renew, MULTI_EXTEND, MULTI_RELEASE)
    end

    # Sets every lock's lease to ttl_ms from now (default: the acquire's); false when the token no
    # longer held all of them.
    def extend_ttl(ttl_ms = @ttl_ms)
      Locksmith.check_ms(:ttl_ms, ttl_ms, positive: true)
      Locksmith.run(@redis, MULTI_EXTEND, @keys, [@token, ttl_ms]) == @keys.length
    end

    # Stops renewing and gives back every lock the token still holds, waking their waiters; false
    # when it no longer held all of them.
    def release
      @mutex.synchronize do
        return false if @released

        @released = true
        @changed.broadcast
      end
      @renewer&.join unless @renewer == Thread.current # a renewal in flight ends before the release
      Locksmith.run(@redis, MULTI_RELEASE, @keys, [@token]) == @keys.length
    end
  end

  # Takes every lock in keys, all or none (the "move money between two accounts" lock), in one
  # multi_acquire call, waiting up to wait_ms, then BusyError naming a busy key. No caller waits
  # holding part of its keys, so overlapping key sets cannot deadlock. A waiter polls as acquire
  # does, never past the busy key's lease. A cluster client is refused (no slot-by-slot taking
  # here): connect to one server.
  def acquire_multi(redis, keys, ttl_ms:, wait_ms: 10_000, renew: false, retry_ms: 500) # rubocop:disable Metrics/ParameterLists
    keys = multi_keys(redis, keys)
    check_ms(:ttl_ms, ttl_ms, positive: true)
    check_ms(:wait_ms, wait_ms, positive: false)
    check_ms(:retry_ms, retry_ms, positive: true)
    token = new_token
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + wait_ms / 1000.0
    attempt = 0
    loop do
      taken, at, pttl = run(redis, MULTI_ACQUIRE, keys, [token, ttl_ms])
      return MultiLease.new(redis, keys, token, ttl_ms, renew) if taken == 1

      left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
      raise BusyError.new(keys[at - 1] || keys[0], wait_ms) if left <= 0

      lease = pttl == -1 ? left : [pttl + 1, 0].max / 1000.0 # -1: no lease, the back-off alone
      sleep([[0.01 * 2**[attempt, 20].min, retry_ms / 1000.0].min * (0.5 + rand / 2), lease, left].min)
      attempt += 1
    end
  end

  # Yields the multi-key lease while holding every lock in keys (see acquire_multi), as with_lock does.
  def with_multi_lock(redis, keys, **options, &block)
    hold(acquire_multi(redis, keys, **options), &block)
  end

  # keys in the one order every caller takes them in (by bytes); bad input refused before anything is sent.
  def multi_keys(redis, keys)
    unless keys.is_a?(Array) && !keys.empty? && keys.all? { |key| key.is_a?(String) && !key.empty? }
      raise ArgumentError, "keys must be a non-empty array of non-empty lock key strings, got #{keys.inspect}"
    end

    repeated = keys.tally.find { |_, count| count > 1 }
    raise ArgumentError, "keys names #{repeated[0]} more than once: give each lock key once" if repeated
    if defined?(Redis::Cluster) && (redis.is_a?(Redis::Cluster) || redis._client.is_a?(Redis::Cluster))
      raise ArgumentError, 'acquire_multi takes every key in one call on one server: a cluster client is not supported, connect to one server'
    end

    keys.sort_by(&:b)
  end

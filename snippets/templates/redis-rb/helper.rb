# frozen_string_literal: true

«header»

require 'digest/sha1'
require 'securerandom'
require 'socket'

# Redis locks for redis-rb (4.x, 5.x): Locksmith.with_lock(redis, key, ttl_ms: ...) { |lease| ... }
# holds the lock around the block; Locksmith.acquire and lease.release are for code that cannot use
# one; Locksmith.try_lock and try_acquire try once and never wait (nil when busy); release_lock and
# extend_lock take a key and a token.
#
# A waiter polls with jittered back-off (10 ms doubling to retry_ms, jittered down to half), never past the
# holder's lease (PTTL after a busy try). No wake-up: SSUBSCRIBE is not in redis-rb 4.x (Debian 12 ships 4.8).
module Locksmith
  ACQUIRE = <<~'LUA'
«lua:acquire»  LUA
  EXTEND = <<~'LUA'
«lua:extend»  LUA
  RELEASE = <<~'LUA'
«lua:release»  LUA
«kinds:scripts»
«kinds:classes»
  # Each script's SHA1, for EVALSHA.
  SHA1S = Hash.new { |known, lua| known[lua] = Digest::SHA1.hexdigest(lua) }

  # The lock stayed held for the whole wait.
  class BusyError < StandardError
    attr_reader :key, :waited_ms

    def initialize(key, waited_ms, holders = 'another owner')
      super("#{key} is held by #{holders}; gave up after waiting #{waited_ms} ms")
      @key = key
      @waited_ms = waited_ms
    end
  end

  # The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable.
  class LeaseLostError < StandardError
    attr_reader :key

    def initialize(key, why)
      super("lease on #{key} lost: #{why}")
      @key = key
    end
  end

  # A held lock. With renew: true a thread extends it every ttl/3 until release.
  class Lease
    # token: this holder's owner token; fence: the fencing token with fence_key (the guarded
    # resource refuses older ones); lost_reason: a LeaseLostError once a renewal failed.
    attr_reader :key, :token, :fence, :lost_reason

    # extend_lua, release_lua: the scripts of its kind.
    def initialize(redis, key, token, ttl_ms, fence, renew, extend_lua = EXTEND, release_lua = RELEASE) # rubocop:disable Metrics/ParameterLists
      @redis = redis
      @extend_lua = extend_lua
      @release_lua = release_lua
      @key = key
      @token = token
      @ttl_ms = ttl_ms
      @fence = fence
      @lost_reason = nil
      @released = false
      @mutex = Mutex.new
      @changed = ConditionVariable.new
      @renewer = renew ? Thread.new { renew_until_released } : nil
    end

    # True once a renewal found the lease gone or failed: stop writing.
    def lost?
      !@lost_reason.nil?
    end

    # Waits up to timeout seconds for the lease to be lost; true if it was.
    def wait_lost(timeout)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
      @mutex.synchronize do
        until lost? || (left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)) <= 0
          @changed.wait(@mutex, left)
        end
      end
      lost?
    end

    # Sets the lease to ttl_ms from now (default: the acquire's); false when it is no longer held.
    def extend_ttl(ttl_ms = @ttl_ms)
      Locksmith.check_ms(:ttl_ms, ttl_ms, positive: true)
      Locksmith.run(@redis, @extend_lua, [@key], [@token, ttl_ms]) == 1
    end

    # Stops renewing and gives the hold back if this lease still has it, waking waiters; false when
    # it no longer did.
    def release
      @mutex.synchronize do
        return false if @released

        @released = true
        @changed.broadcast
      end
      @renewer&.join unless @renewer == Thread.current # a renewal in flight ends before the release
      Locksmith.run(@redis, @release_lua, [@key], [@token]) != 0
    end
«kinds:lease»

    private

    def renew_until_released
      loop do
        @mutex.synchronize { @changed.wait(@mutex, @ttl_ms / 3000.0) unless @released }
        break if @mutex.synchronize { @released }
        next if extend_ttl

        lose(LeaseLostError.new(@key, 'taken by another owner or expired'))
        break
      end
    rescue Redis::BaseError => e
      lose(LeaseLostError.new(@key, "renewal failed, it may expire unseen: #{e.message}"))
    end

    def lose(reason)
      @mutex.synchronize do
        @lost_reason = reason
        @changed.broadcast
      end
    end
  end

  module_function

  # Takes the lock, waiting up to wait_ms with jittered back-off (10 ms doubling to retry_ms, jittered
  # down to half) never past the holder's lease (PTTL), then BusyError. ttl_ms: how long the lock
  # outlives a holder that dies without releasing it; fence_key: a fencing counter key (in Cluster,
  # with the lock key's {hash tag}); Redis errors are raised as they are.
  def acquire(redis, key, ttl_ms:, wait_ms: 10_000, fence_key: nil, renew: false, retry_ms: 500, **kind) # rubocop:disable Metrics/ParameterLists
«kinds:acquire»
    raise ArgumentError, "this helper has no lock kind that takes #{kind.keys.join(', ')}" unless kind.empty?

    token = new_token
    keys = fence_key.nil? ? [key] : [key, fence_key]
    attempt = -> { run(redis, ACQUIRE, keys, [token, ttl_ms]) }
«kinds:attempt»
    reply = take(redis, key, ttl_ms, wait_ms, retry_ms, &attempt)
    Lease.new(redis, key, token, ttl_ms, fence_key.nil? ? nil : reply, renew)
  end

  # One try, never waits: the lease, or nil while another holder has the lock.
  def try_acquire(redis, key, ttl_ms:, fence_key: nil, renew: false)
    acquire(redis, key, ttl_ms: ttl_ms, wait_ms: 0, fence_key: fence_key, renew: renew)
  rescue BusyError
    nil
  end

  # One try, never waits: when it takes the lock, yields the lease as with_lock does; while another
  # holder has it, returns nil at once without yielding.
  def try_lock(redis, key, ttl_ms:, fence_key: nil, renew: false, &block)
    lease = try_acquire(redis, key, ttl_ms: ttl_ms, fence_key: fence_key, renew: renew)
    lease && hold(lease, &block)
  end

  # Compare-and-delete: deletes key while it holds token (true, and wakes a waiter); false when it
  # held another token or none.
  def release_lock(redis, key, token)
    run(redis, RELEASE, [key], [token]) == 1
  end

  # Compare-and-extend: sets key's lease to ttl_ms while it holds token (true); false when it held
  # another token or none.
  def extend_lock(redis, key, token, ttl_ms)
    check_ms(:ttl_ms, ttl_ms, positive: true)
    run(redis, EXTEND, [key], [token, ttl_ms]) == 1
  end

  # Yields the lease while holding the lock and releases it afterwards, also after an exception.
  # Raises LeaseLostError after a block that ended normally if the lease was gone before the
  # release: another holder may have run at the same time, so the block's effects need checking.
  def with_lock(redis, key, **options, &block)
    lease = acquire(redis, key, **options)
«kinds:with-lock»
    hold(lease, &block)
  end

  def hold(lease)
    begin
      result = yield lease
    rescue Exception # rubocop:disable Lint/RescueException -- released on every way out, then re-raised
      begin
        lease.release
      rescue Redis::BaseError
        nil # the block's error is the one to report
      end
      raise
    end
    raise LeaseLostError.new(lease.key, 'it expired or was taken before release') unless lease.release

    result
  end

  # Runs the block (an acquire script's call) until it takes the lock (its reply) or wait_ms passes (BusyError),
  # never sleeping past the lock's lease (PTTL after a busy try): a dead holder's lock is taken as it ends.
  def take(redis, key, ttl_ms, wait_ms, retry_ms, holders = 'another owner') # rubocop:disable Metrics/ParameterLists
    check_ms(:ttl_ms, ttl_ms, positive: true)
    check_ms(:wait_ms, wait_ms, positive: false)
    check_ms(:retry_ms, retry_ms, positive: true)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + wait_ms / 1000.0
    attempt = 0
    loop do
      reply = yield
      return reply unless reply.zero?

      left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
      raise BusyError.new(key, wait_ms, holders) if left <= 0

      pttl = redis.pttl(key) # -2: the lock is free, try at once; -1: no lease, the back-off alone
      lease = pttl == -1 ? left : [pttl + 1, 0].max / 1000.0
      sleep([[0.01 * 2**[attempt, 20].min, retry_ms / 1000.0].min * (0.5 + rand / 2), lease, left].min)
      attempt += 1
    end
  end

  def new_token
    "#{Socket.gethostname}:#{Process.pid}:#{SecureRandom.hex(8)}"
  end

  # Runs a script by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart, failover)
  # sends the source once with EVAL, which caches it again.
  def run(redis, lua, keys, argv)
    redis.evalsha(SHA1S[lua], keys: keys, argv: argv)
  rescue Redis::CommandError => e
    raise unless e.message.start_with?('NOSCRIPT')

    redis.eval(lua, keys: keys, argv: argv)
  end

  def check_ms(name, value, positive:)
    return if value.is_a?(Integer) && value >= (positive ? 1 : 0)

    raise ArgumentError, "#{name} must be a #{positive ? 'positive' : 'non-negative'} integer of milliseconds, got #{value.inspect}"
  end
«kinds:code»
end

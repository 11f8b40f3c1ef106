«section:classes»

  # Why replicas did not acknowledge an acquire: ReplicaShortfallError#shortfall, on_shortfall's argument.
  # reason: :timeout, :connection_lost, :no_waitaof (fsync on a server without WAITAOF) or :aof_off;
  # acknowledged: what WAIT answered (WAITAOF: its second element), nil when the wait gave no count;
  # fsynced_locally: with fsync, whether the master's AOF has the acquire.
  ReplicaShortfall = Struct.new(:lock, :reason, :required, :timeout_ms, :acknowledged, :fsynced_locally,
                                keyword_init: true) do
    # A setting the server cannot honour: released whatever on_shortfall says.
    def misconfigured?
      %i[no_waitaof aof_off].include?(reason)
    end

    def describe
      of = "#{required} replica#{required == 1 ? '' : 's'}"
      case reason
      when :timeout
        if fsynced_locally.nil?
          "#{lock} was acknowledged by #{acknowledged || 0} of #{of} within #{timeout_ms} ms (WAIT)"
        else
          "#{lock} was fsynced by #{acknowledged || 0} of #{of}#{fsynced_locally ? '' : ' and not by the master'} " \
            "within #{timeout_ms} ms (WAITAOF)"
        end
      when :connection_lost
        "#{lock}: the connection closed before the replicas acknowledged the acquire (it may not have reached any)"
      when :no_waitaof
        "#{lock}: wait_for_replicas fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)"
      else "#{lock}: wait_for_replicas fsync needs appendonly yes on the master, which has it off"
      end
    end
  end

  # Replicas did not acknowledge the acquire in time: not held. released: false when the
  # compare-and-delete could not run (the lock then ends with its lease).
  class ReplicaShortfallError < StandardError
    FIXES = {
      timeout: 'Check the replicas (INFO replication: connected_slaves, their lag), or pass on_shortfall to keep such locks',
      connection_lost: 'The master may be failing over: try again once the client has reconnected'
    }.freeze
    attr_reader :shortfall, :released

    def initialize(shortfall, released)
      fix = FIXES.fetch(shortfall.reason, 'Turn fsync off (WAIT alone covers a failover) or enable the AOF')
      outcome = released ? 'released' : 'could not be released (it ends with its lease)'
      super("#{shortfall.describe}: #{outcome}, not held. #{fix}")
      @shortfall = shortfall
      @released = released
    end
  end

  # wait_for_replicas with its defaults filled in, its values checked before anything is sent.
  class ReplicaWait
    DEFAULTS = { replicas: 1, timeout_ms: 100, fsync: false, on_shortfall: :release }.freeze
    attr_reader :replicas, :timeout_ms, :fsync, :on_shortfall

    # option: { replicas: 1, timeout_ms: 100, fsync: false, on_shortfall: :release or a proc }.
    def initialize(option, ttl_ms)
      Locksmith.check_ms(:ttl_ms, ttl_ms, positive: true)
      raise ArgumentError, "wait_for_replicas must be a Hash, got #{option.inspect}" unless option.is_a?(Hash)

      unknown = option.keys - DEFAULTS.keys
      raise ArgumentError, "wait_for_replicas has no #{unknown.join(', ')}; it takes #{DEFAULTS.keys.join(', ')}" if unknown.any?

      @replicas, @timeout_ms, @fsync, @on_shortfall = DEFAULTS.merge(option).values_at(*DEFAULTS.keys)
      problem = check(ttl_ms)
      raise ArgumentError, "wait_for_replicas #{problem}" if problem
    end

    # The command that follows the acquire in its pipeline.
    def command
      @fsync ? [:waitaof, 1, @replicas, @timeout_ms] : [:wait, @replicas, @timeout_ms]
    end

    # The shortfall the wait's reply means, nil when the replicas acknowledged. error: :connection_lost,
    # or the server's error reply, raised unless it is WAITAOF's missing command or disabled AOF.
    def shortfall(lock, reply, error)
      of = ->(reason, acknowledged = nil, local = nil) do
        ReplicaShortfall.new(lock: lock, reason: reason, required: @replicas, timeout_ms: @timeout_ms,
                             acknowledged: acknowledged, fsynced_locally: local)
      end
      return of.call(:connection_lost) if error == :connection_lost
      return of.call(:no_waitaof) if error&.message&.match?(/\AERR unknown command/i)
      return of.call(:aof_off) if error&.message&.match?(/appendonly is disabled/i)
      raise error if error

      if @fsync
        local, acknowledged = reply
        raise TypeError, "WAITAOF replied #{reply.inspect}, not [numlocal, numreplicas]" unless [local, acknowledged].all?(Integer)

        return local >= 1 && acknowledged >= @replicas ? nil : of.call(:timeout, acknowledged, local >= 1)
      end
      raise TypeError, "WAIT replied #{reply.inspect}, not a count of replicas" unless reply.is_a?(Integer)

      reply >= @replicas ? nil : of.call(:timeout, reply)
    end

    private

    def check(ttl_ms)
      if !@replicas.is_a?(Integer) || @replicas < 1 then "replicas must be a positive integer, got #{@replicas.inspect}"
      elsif !@timeout_ms.is_a?(Integer) || @timeout_ms < 1
        "timeout_ms must be a positive integer of milliseconds, got #{@timeout_ms.inspect}"
      elsif @timeout_ms >= ttl_ms then "timeout_ms (#{@timeout_ms}) must be shorter than the lease (#{ttl_ms} ms): the wait spends it"
      elsif ![true, false].include?(@fsync) then "fsync must be true or false, got #{@fsync.inspect}"
      elsif @on_shortfall != :release && !@on_shortfall.respond_to?(:call)
        "on_shortfall must be :release or a proc, got #{@on_shortfall.inspect}"
      end
    end
  end
«section:acquire»
    wait = (option = kind.delete(:wait_for_replicas)).nil? ? nil : ReplicaWait.new(option, ttl_ms)
«section:attempt»
    attempt = -> { acquire_and_wait(redis, wait, key, token, keys, [token, ttl_ms]) } if wait
«section:code»

  # One attempt under wait_for_replicas: the acquire script and WAIT (or WAITAOF) in one pipeline on one
  # connection, as WAIT counts the replicas that have this connection's writes. Busy: 0. A shortfall
  # gives the lock back and raises ReplicaShortfallError, or calls on_shortfall and keeps it.
  def acquire_and_wait(redis, wait, key, token, keys, argv) # rubocop:disable Metrics/ParameterLists
    reply, waited, error = pipeline_with_wait(redis, ACQUIRE, keys, argv, wait.command)
    return 0 if reply&.zero?

    begin
      shortfall = wait.shortfall(key, waited, error)
    rescue StandardError
      give_back(redis, key, token)
      raise
    end
    return reply if shortfall.nil?

    if wait.on_shortfall != :release && !shortfall.misconfigured? && reply
      wait.on_shortfall.call(shortfall)
      return reply
    end
    raise ReplicaShortfallError.new(shortfall, give_back(redis, key, token))
  end

  # The acquire script and the wait in one pipelined call: [the script's reply (nil when unknown), the
  # wait's reply, its error]. On NOSCRIPT the pair goes again with EVAL.
  def pipeline_with_wait(redis, lua, keys, argv, wait)
    send_pair = lambda do |*script|
      redis.pipelined do |pipe|
        pipe.call(*script, keys.size, *keys, *argv)
        pipe.call(*wait)
      end
    end
    begin
      send_pair.call(:evalsha, SHA1S[lua]) + [nil]
    rescue Redis::CommandError => e
      raise unless e.message.start_with?('NOSCRIPT')

      send_pair.call(:eval, lua) + [nil]
    end
  rescue Redis::CommandError => e
    [nil, nil, e] # the acquire's or the wait's: redis-rb raises the first error reply
  rescue Redis::BaseConnectionError
    [nil, nil, :connection_lost]
  end

  # Compare-and-delete after a shortfall: false when it could not run (the lock then ends with its lease).
  def give_back(redis, key, token)
    release_lock(redis, key, token)
    true
  rescue Redis::BaseError
    false
  end

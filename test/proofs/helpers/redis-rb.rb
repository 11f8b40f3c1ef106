# Proof program for the generated redis-rb helper (locksmith.rb next to it). Usage:
#   ruby proof.rb <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and
#   for the lock kinds (as test/proofs/helpers/kinds.js): reentrant, rw-reader, rw-writer, semaphore,
#   hold, take; for the parts (test/helpers-parts-php-rb-proof.test.ts): fenced-writes, replica-shortfall,
#   replica-acked <replica-url>, replica-bad, replica-lost, replica-fsync, fenced-paused, multi <n>, multi-try <n>,
#   multi-bad.
require 'json'
require 'redis'
require_relative 'locksmith'

url, mode, arg = ARGV[0], ARGV[1], ARGV[2] || '1'
rounds = arg.to_i
redis = Redis.new(url: url)
now_ms = -> { (Time.now.to_f * 1000).floor }
# Counts this process in and waits until the test's 3 transfer processes and its tryer all are, so that
# the tries meet the transfers however late a process starts.
def multi_all_started(redis)
  redis.incr('proof:multi:started')
  deadline = Time.now + 30
  while redis.get('proof:multi:started').to_i < 4
    raise 'the other transfer processes did not start within 30 s' if Time.now > deadline

    sleep 0.001
  end
end

# The locks of 2 or 3 random accounts of 4, and a move of 1 from the first to the second that flags a second holder.
def multi_transfer(redis)
  picked = %w[proof:acct:a proof:acct:b proof:acct:c proof:acct:d].shuffle.take(2 + rand(2))
  locks = picked.map { |account| "lock:#{account}" }
  move = lambda do
    locks.each { |lock| raise "two holders of #{lock}" unless redis.incr("#{lock}:holders") == 1 }
    from, to = picked
    a, b = redis.get(from).to_i, redis.get(to).to_i
    sleep 0.001
    redis.set(from, (a - 1).to_s)
    redis.set(to, (b + 1).to_s)
    locks.each { |lock| redis.decr("#{lock}:holders") }
  end
  [locks, move]
end

# Takes a kind on proof:lock.
acquire_kind = lambda do |kind, ttl_ms, wait_ms|
  case kind
  when 'lock' then Locksmith.acquire(redis, 'proof:lock', ttl_ms: ttl_ms, wait_ms: wait_ms)
  when 'reentrant' then Locksmith.acquire(redis, 'proof:lock', ttl_ms: ttl_ms, wait_ms: wait_ms, reentrant: true)
  when 'read' then Locksmith.acquire_read(redis, 'proof:lock', ttl_ms: ttl_ms, wait_ms: wait_ms)
  when 'write' then Locksmith.acquire_write(redis, 'proof:lock', ttl_ms: ttl_ms, wait_ms: wait_ms)
  when 'semaphore' then Locksmith.acquire_semaphore(redis, 'proof:lock', permits: 1, ttl_ms: ttl_ms, wait_ms: wait_ms)
  else raise ArgumentError, "no kind #{kind}"
  end
end

case mode
when 'counter'
  rounds.times do
    Locksmith.with_lock(redis, 'proof:lock', ttl_ms: 30_000, wait_ms: 60_000) do
      raise 'two holders at once' unless redis.incr('proof:occupancy') == 1

      redis.set('proof:counter', redis.get('proof:counter').to_i + 1)
      redis.script(:flush) # the next script call of either process takes the NOSCRIPT path
      redis.decr('proof:occupancy')
    end
  end
when 'renew'
  lease = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 1500, renew: true)
  50.times do
    sleep 0.1
    raise 'lease lost while renewing' unless redis.get('proof:lock') == lease.token
  end
  raise "renewal reported a loss: #{lease.lost_reason}" if lease.lost?
  raise 'release found the lease gone' unless lease.release

  redis.set('proof:lock', lease.token) # no TTL: a renewal after release would add one
  sleep 1.5
  raise 'still renewing after release' unless redis.pttl('proof:lock') == -1

  redis.del('proof:lock')
  puts 'renewed'
when 'steal'
  lease = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 900, renew: true)
  puts 'held'
  $stdout.flush
  raise 'no loss reported within 5 s' unless lease.wait_lost(5)

  at = now_ms.call
  raise "lost for #{lease.lost_reason.inspect}" unless lease.lost_reason.is_a?(Locksmith::LeaseLostError)
  raise 'released a stolen lock' if lease.release

  puts "lost #{at}"
when 'fence'
  rounds.times do
    Locksmith.with_lock(redis, 'proof:lock', ttl_ms: 5000, wait_ms: 60_000, fence_key: 'proof:fence') do |lease|
      sleep 0.005
      redis.rpush('proof:tokens', lease.fence)
    end
  end
when 'busy'
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  begin
    Locksmith.acquire(redis, 'proof:lock', ttl_ms: 5000, wait_ms: 500)
    raise 'acquired a lock another owner holds'
  rescue Locksmith::BusyError => e
    puts "busy #{((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000).floor} #{e.message}"
  end
when 'reentrant'
  rounds.times do
    Locksmith.with_lock(redis, 'proof:lock', ttl_ms: 5000, wait_ms: 60_000, reentrant: true) do |outer|
      raise 'two holders at once' unless redis.incr('proof:occupancy') == 1

      Locksmith.with_lock(redis, 'proof:lock', ttl_ms: 5000, reentrant: true) do |inner|
        raise 'the nested take did not re-enter' unless inner.token == outer.token && redis.hget('proof:lock', outer.token) == '2'

        redis.set('proof:counter', redis.get('proof:counter').to_i + 1)
      end
      raise 'hold count is not back to 1' unless redis.hget('proof:lock', outer.token) == '1'

      redis.decr('proof:occupancy')
    end
  end
when 'rw-reader'
  rounds.times do
    Locksmith.with_read_lock(redis, 'proof:rw', ttl_ms: 5000, wait_ms: 60_000) do
      redis.set('proof:overlap', '1') if redis.incr('proof:readers') > 1
      raise 'read while a writer held the lock' unless redis.get('proof:writers').to_i.zero?

      sleep 0.01
      redis.decr('proof:readers')
    end
  end
when 'rw-writer'
  rounds.times do
    Locksmith.with_write_lock(redis, 'proof:rw', ttl_ms: 5000, wait_ms: 60_000) do
      raise 'two writers at once' unless redis.incr('proof:writers') == 1
      raise 'wrote while a reader held the lock' unless redis.get('proof:readers').to_i.zero?

      redis.set('proof:counter', redis.get('proof:counter').to_i + 1)
      redis.decr('proof:writers')
    end
  end
when 'semaphore'
  rounds.times do
    Locksmith.with_semaphore(redis, 'proof:sem', permits: 2, ttl_ms: 5000, wait_ms: 60_000) do
      holders = redis.incr('proof:holders')
      raise "#{holders} holders of 2 permits" if holders > 2

      redis.set('proof:full', '1') if holders == 2
      sleep 0.005
      redis.decr('proof:holders')
    end
  end
when 'hold'
  acquire_kind.call(arg, Integer(ENV.fetch('PROOF_HOLD_MS', '1000')), 0)
  puts 'held'
  $stdout.flush
  sleep 60
when 'take'
  lease = acquire_kind.call(arg, 5000, 10_000)
  puts "took #{now_ms.call}"
  lease.release
when 'fenced-writes'
  # A holder whose lease expired, then one whose lock another owner took, writes nothing; the data is the live holder's.
  # 1 s: the two writes while it holds come within it on a loaded machine too.
  first = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 1000, fence_key: 'proof:fence')
  results = { 'held-write' => first.set_if_held('proof:data', 'first'),
              'held-fenced' => first.set_fenced('proof:fdata', 'first') }
  sleep 1.3
  results['expired-write'] = first.set_if_held('proof:data', 'first-late')
  second = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 5000, fence_key: 'proof:fence')
  results['taken-write'] = first.set_if_held('proof:data', 'first-late')
  results['holder-write'] = second.set_if_held('proof:data', 'second')
  results['newer-fenced'] = second.set_fenced('proof:fdata', 'second')
  results['older-fenced'] = first.set_fenced('proof:fdata', 'first-late')
  results.each { |name, written| puts "#{name} #{written}" }
  second.release
  begin
    Locksmith.acquire(redis, 'proof:lock', ttl_ms: 5000).set_fenced('proof:fdata', 'unfenced')
  rescue ArgumentError => e
    puts "unfenced #{e.message}"
  end
when 'replica-shortfall'
  # On a master with no replica: released and refused; kept with on_shortfall; busy as without the option.
  begin
    Locksmith.acquire(redis, 'proof:lock', ttl_ms: 5000, wait_ms: 0, wait_for_replicas: { replicas: 1, timeout_ms: 50 })
    raise 'held without the replica'
  rescue Locksmith::ReplicaShortfallError => e
    shortfall = e.shortfall
    puts "shortfall #{shortfall.reason} #{shortfall.acknowledged}/#{shortfall.required} #{e.released ? 'released' : 'kept'}"
    puts "message #{e.message}"
  end
  seen = []
  wait = { timeout_ms: 50, on_shortfall: ->(shortfall) { seen << shortfall.reason } }
  lease = Locksmith.acquire(redis, 'proof:kept', ttl_ms: 5000, fence_key: 'proof:fence', wait_for_replicas: wait)
  puts "kept #{seen.join(',')} #{lease.fence} #{lease.token}"
  begin
    Locksmith.acquire(redis, 'proof:busy', ttl_ms: 5000, wait_ms: 0, wait_for_replicas: wait)
  rescue Locksmith::BusyError
    puts "busy #{seen.join(',')}"
  end
when 'replica-acked'
  # arg: the replica's URL, read as soon as each acquire returns (the test slows its link).
  replica = Redis.new(url: arg)
  wait = { replicas: 1, timeout_ms: 5000 }
  lease = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 60_000, fence_key: 'proof:fence', wait_for_replicas: wait)
  puts "acked #{JSON.generate([lease.token, lease.fence, replica.get('proof:lock'), replica.get('proof:fence')])}"
  Locksmith.acquire(redis, 'proof:plain', ttl_ms: 60_000)
  puts "control #{JSON.generate(replica.get('proof:plain'))}"
  result = Locksmith.with_lock(redis, 'proof:with', ttl_ms: 60_000, wait_for_replicas: wait, &:token)
  puts "with-lock #{result}"
when 'fenced-paused'
  # Stopped (SIGSTOP) in its sleep, past its 300 ms lease, while the test takes the lock and writes.
  lease = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 300, fence_key: 'proof:fence')
  puts "held #{lease.fence}"
  $stdout.flush
  sleep 3
  puts "paused-write #{lease.set_if_held('proof:data', 'paused')}"
  puts "paused-fenced #{lease.set_fenced('proof:fdata', 'paused')}"
when 'replica-lost'
  # The test kills this connection while its WAIT waits for a replica it has cut off.
  begin
    Locksmith.acquire(redis, 'proof:lock', ttl_ms: 60_000, wait_ms: 0, wait_for_replicas: { timeout_ms: 5000 })
    puts 'acquired'
  rescue Locksmith::ReplicaShortfallError => e
    puts "shortfall #{e.shortfall.reason} #{e.released ? 'released' : 'not-released'}"
  end
when 'replica-fsync'
  # fsync on a server without WAITAOF (Redis 7.0) or with appendonly no: released whatever on_shortfall says.
  called = 'not-called'
  begin
    wait = { fsync: true, on_shortfall: ->(_) { called = 'called' } }
    Locksmith.acquire(redis, 'proof:lock', ttl_ms: 60_000, wait_ms: 0, wait_for_replicas: wait)
    puts 'acquired'
  rescue Locksmith::ReplicaShortfallError => e
    puts "shortfall #{e.shortfall.reason} #{e.released ? 'released' : 'not-released'} #{called}"
    puts "message #{e.message}"
  end
when 'replica-bad'
  # Each refused before anything is sent (the test counts the server's commands).
  [
    [5000, { replicas: 0 }], [5000, { replicas: '1' }], [5000, { timeout_ms: 0 }], [300, { timeout_ms: 500 }],
    [5000, { fsync: 'yes' }], [5000, { on_shortfall: :keep }], [5000, { timeout: 100 }]
  ].each do |ttl_ms, wait|
    Locksmith.acquire(redis, 'proof:lock', ttl_ms: ttl_ms, wait_for_replicas: wait)
    raise "accepted #{wait.inspect}"
  rescue ArgumentError => e
    puts "refused #{e.message}"
  end
when 'multi'
  # n transfers between 2 or 3 of 4 accounts, each waiting for its locks under with_multi_lock;
  # counted in proof:multi:done for the tryer.
  multi_all_started(redis)
  rounds.times do
    locks, move = multi_transfer(redis)
    Locksmith.with_multi_lock(redis, locks, ttl_ms: 5000, wait_ms: 60_000) { move.call }
  end
  redis.incr('proof:multi:done')
when 'multi-try'
  # Such transfers that never wait, 2 ms apart, from when all 4 processes have started, at least n of
  # them and until the 3 'multi' ones are done; a busy one must leave none of its keys held by this process.
  busy = 0
  mine = "#{Socket.gethostname}:#{Process.pid}:"
  multi_all_started(redis)
  round = 0
  while round < rounds || redis.get('proof:multi:done').to_i < 3
    round += 1
    sleep 0.002
    locks, move = multi_transfer(redis)
    begin
      lease = Locksmith.acquire_multi(redis, locks, ttl_ms: 5000, wait_ms: 0)
    rescue Locksmith::BusyError
      busy += 1
      locks.each { |lock| raise "partial hold of #{lock}" if redis.get(lock).to_s.start_with?(mine) }
      next
    end
    move.call
    raise 'the multi-key lease was lost' unless lease.release
  end
  puts JSON.generate(busy: busy, tries: round)
when 'multi-bad'
  # Each refused before anything is sent (the test counts the server's commands).
  [[[], 5000], [%w[lock:a lock:b lock:a], 5000], [['lock:a', ''], 5000], ['lock:a', 5000], [['lock:a'], 0]].each do |keys, ttl_ms|
    Locksmith.acquire_multi(redis, keys, ttl_ms: ttl_ms)
    raise "accepted #{keys.inspect}"
  rescue ArgumentError => e
    puts "refused #{e.message}"
  end
else
  raise ArgumentError, "unknown mode #{mode}"
end

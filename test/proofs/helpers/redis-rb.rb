# Proof program for the generated redis-rb helper (locksmith.rb next to it). Usage:
#   ruby proof.rb <redis-url> <mode> [rounds]; modes: counter, renew, steal, fence, busy.
require 'redis'
require_relative 'locksmith'

url, mode, rounds = ARGV[0], ARGV[1], Integer(ARGV[2] || 1)
redis = Redis.new(url: url)
now_ms = -> { (Time.now.to_f * 1000).floor }

case mode
when 'counter'
  rounds.times do
    Locksmith.with_lock(redis, 'proof:lock', ttl_ms: 5000, wait_ms: 60_000) do
      raise 'two holders at once' unless redis.incr('proof:occupancy') == 1

      redis.set('proof:counter', redis.get('proof:counter').to_i + 1)
      redis.script(:flush) # the next script call of either process takes the NOSCRIPT path
      redis.decr('proof:occupancy')
    end
  end
when 'renew'
  lease = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 300, renew: true)
  10.times do
    sleep 0.1
    raise 'lease lost while renewing' unless redis.get('proof:lock') == lease.token
  end
  raise "renewal reported a loss: #{lease.lost_reason}" if lease.lost?
  raise 'release found the lease gone' unless lease.release

  redis.set('proof:lock', lease.token) # no TTL: a renewal after release would add one
  sleep 0.9
  raise 'still renewing after release' unless redis.pttl('proof:lock') == -1

  redis.del('proof:lock')
  puts 'renewed'
when 'steal'
  lease = Locksmith.acquire(redis, 'proof:lock', ttl_ms: 300, renew: true)
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
else
  raise ArgumentError, "unknown mode #{mode}"
end

# Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
# retry, compare-and-delete release in ensure. redis-rb has no script object: evalsha runs a
# script by its SHA1 and, on NOSCRIPT, eval sends the source once, which caches it again.
# Assumes a redis-rb client `redis` (4.x or 5.x).
require 'digest/sha1'
require 'securerandom'
require 'socket'
locksmith_script = lambda do |lua|
  sha = Digest::SHA1.hexdigest(lua)
  lambda do |keys, argv|
    redis.evalsha(sha, keys: keys, argv: argv)
  rescue Redis::CommandError => e
    raise unless e.message.start_with?('NOSCRIPT')

    redis.eval(lua, keys: keys, argv: argv)
  end
end
locksmith_acquire = locksmith_script.call(<<~'LUA')
«lua:acquire»LUA
locksmith_release = locksmith_script.call(<<~'LUA')
«lua:release»LUA
lock_key = «key»
lock_ttl_ms = «ttl»
lock_token = "#{Socket.gethostname}:#{Process.pid}:#{SecureRandom.hex(8)}"
lock_wait_until = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10 # give up after waiting 10 s
attempt = 0
while locksmith_acquire.call([lock_key], [lock_token, lock_ttl_ms]) == 0
  raise "#{lock_key} is still held by another owner" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > lock_wait_until

  sleep([0.01 * 2**attempt, 0.5].min * (0.5 + rand))
  attempt += 1
end
begin
  «body»
ensure
  locksmith_release.call([lock_key], [lock_token])
end

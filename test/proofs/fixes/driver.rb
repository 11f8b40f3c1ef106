# Runs one scenario against a lock class of test/fixtures/fix/ruby (fixed or not) on a real Redis
# and prints what each call answered, as JSON: driver.rb <url> <scenario> <ttl s> <file> <class>
require 'json'
require 'redis'

url, scenario, ttl, file, name = ARGV
require file
lock_class = Object.const_get(name)
redis = Redis.new(url: url)
ttl = Integer(ttl)
out = []
case scenario
when 'calls'
  a = lock_class.new(redis, 'calls', ttl)
  b = lock_class.new(redis, 'calls', ttl)
  out += [a.lock, redis.pttl('lock:calls').positive?, b.lock, a.unlock, b.lock, b.unlock]
  out << redis.exists('lock:calls')
when 'stale'
  a = lock_class.new(redis, 'stale', ttl)
  out << a.lock
  sleep(ttl + 0.2)
  b = lock_class.new(redis, 'stale', 30)
  out += [b.lock, a.unlock, redis.exists('lock:stale')]
when 'acquire'
  out << lock_class.new(redis, 'crash', ttl).lock
end
puts JSON.generate(out)

import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'redis-rb',
  file: 'proof.rb',
  // Debian's ruby-redis belongs to the system interpreter, not to an rbenv or rvm one.
  command: ['/usr/bin/ruby'],
  program: (snippet, after) => `require 'redis'

url, rounds = ARGV[0], Integer(ARGV[1])
redis = Redis.new(url: url)
rounds.times do
${indent(snippet, '  ')}
${indent(after, '  ')}
end
`,
  bodies: {
    // SCRIPT FLUSH makes the release (and the other process's next acquire) take the NOSCRIPT fallback.
    guard: `raise 'two holders at once' unless redis.incr('proof:occupancy') == 1
value = redis.get('proof:counter').to_i
redis.set('proof:counter', value + 1)
redis.script(:flush)
redis.decr('proof:occupancy')`,
    renew: `10.times do
  sleep 0.5
  raise 'lease lost while renewing' unless redis.get(lock_key) == lock_token
end
raise 'renewal reported a loss' if lock_lost
redis.incr('proof:renewed')`,
    // The pause keeps both processes contending for the lock while their rounds overlap.
    fenced: `sleep 0.01
redis.rpush('proof:tokens', fencing_token)`,
  },
  afterRenew: `redis.set(lock_key, lock_token)
sleep(3 * lock_ttl_ms / 1000.0)
raise 'still renewing after release' unless redis.pttl(lock_key) == -1
redis.del(lock_key)`,
};

// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally. Assumes a Predis\Client `$client`; PHP 8+.
// Predis sends a ScriptCommand as EVALSHA and resends it as EVAL when Redis answers NOSCRIPT.
$locksmith = function (string $lua, array $keys, array $args) use ($client) {
    $script = new class ($lua, count($keys)) extends \Predis\Command\ScriptCommand {
        public function __construct(private string $lua, private int $keyCount) {}
        public function getScript(): string { return $this->lua; }
        protected function getKeysCount(): int { return $this->keyCount; }
    };
    $script->setArguments([...$keys, ...$args]);
    return $client->executeCommand($script);
};
$locksmithAcquire = <<<'LUA'
-- @script acquire
-- @summary Take the lock when it is free; refresh the lease when this owner already holds it.
-- @key lock required The lock key: a string holding the owner token while the lock is held.
-- @key fence optional Fencing counter, INCRed once per new holder; must share the lock key's hash slot.
-- @arg token token Owner token, unique per holder (host, pid and a random part); binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds: a positive integer in decimal digits, no leading zero, at most 15 digits.
-- @reply 0 Held by another owner: nothing changed.
-- @reply 1 Acquired (or refreshed, when this token already held it) without a fence key.
-- @reply N With a fence key: the fencing token, a new INCR for a new holder, the current value for a refresh.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS < 1 or #KEYS > 2 then
  return redis.error_reply('ERR acquire takes 1 or 2 keys (lock, optional fence), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local lock, fence = KEYS[1], KEYS[2]
local holder = redis.call('GET', lock)
-- The fence is checked before the first write, as INCR checks it ('007' is no integer to INCR):
-- an error leaves nothing written, whoever holds the lock.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not (fenced == '0' or string.match(fenced, '^[1-9]%d*$')) or #fenced > 15) then
    return redis.error_reply('ERR acquire: fence key must hold a non-negative integer below 10^15'
      .. " (decimal digits, no leading zero), got '" .. string.sub(fenced, 1, 32) .. "'")
  end
end
if holder and holder ~= token then
  return 0
end

if holder then
  -- Same owner again (a retry after a lost reply): refresh the lease and keep the fencing token.
  redis.call('PEXPIRE', lock, ttl)
  if fenced and tonumber(fenced) > 0 then
    return tonumber(fenced)
  end
else
  redis.call('SET', lock, token, 'PX', ttl)
end
if fence then
  return redis.call('INCR', fence)
end
return 1

LUA;
$locksmithRelease = <<<'LUA'
-- @script release
-- @summary Compare-and-delete: delete the lock only while it still holds this owner's token, and wake a waiter.
-- @key lock required The lock key.
-- @key waiters optional The lock's waiter queue (see acquire_queued); must share the lock key's hash slot.
-- @arg token token The owner token the lock was acquired with.
-- @reply 0 Not held by this token (expired, released, or taken by another owner): nothing changed.
-- @reply 1 Held by this token and now deleted; the first queued waiter, if any, was taken off the queue and woken.
-- @signal lock On delete: the first queued waiter's token (taken off the queue), or empty with no queue or none queued.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string, or the waiters key not a sorted set; nothing was written.

if #KEYS < 1 or #KEYS > 2 then
  return redis.error_reply('ERR release takes 1 or 2 keys (lock, optional waiters), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR release: ARGV[1] token must be a non-empty string')
end

local lock, waiters = KEYS[1], KEYS[2]
if redis.call('GET', lock) ~= token then
  return 0
end
if waiters then
  -- A waiters key of another type fails here, before the delete.
  redis.call('ZCARD', waiters)
end
redis.call('DEL', lock)
local wake = ''
if waiters then
  wake = redis.call('ZPOPMIN', waiters)[1] or ''
end
-- pcall: the wake-up is an optimisation. A server without SPUBLISH (before 7.0) or an ACL user
-- without channel rights still releases; waiters then find the lock by their retry timer.
redis.pcall('SPUBLISH', lock, wake)
return 1

LUA;
$lockKey = 'lock:{order:42}';
$lockTtlMs = 10000;
$lockToken = gethostname() . ':' . getmypid() . ':' . bin2hex(random_bytes(8));
$lockWaitUntil = hrtime(true) + 10_000_000_000; // give up after waiting 10 s
for ($attempt = 0; $locksmith($locksmithAcquire, [$lockKey], [$lockToken, $lockTtlMs]) === 0; $attempt++) {
    if (hrtime(true) > $lockWaitUntil) {
        throw new \RuntimeException("$lockKey is still held by another owner");
    }
    usleep(min(10 * 2 ** $attempt, 500) * random_int(500, 1500)); // in µs: 10 ms doubling to 500 ms, ±50 % jitter
}
try {
    // critical section: only one holder runs this at a time
} finally {
    $locksmith($locksmithRelease, [$lockKey], [$lockToken]);
}

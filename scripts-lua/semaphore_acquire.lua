-- @script semaphore_acquire
-- @summary Take one of N permits, each holder with its own lease: a dead holder's permit returns when its lease ends.
-- @key semaphore required A sorted set: hold:<token> members scored by lease end (server ms), limit:<N> scored +inf.
-- @arg token token Owner token of this holder, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms This holder's own lease in milliseconds: a positive integer, no leading zero, at most 15 digits.
-- @arg permits count N, the number of permits: the same for every caller while any permit is held.
-- @reply 0 All N permits are held by others: nothing changed but dropping ended leases.
-- @reply 1 This token holds a permit whose lease ends ttl_ms from now (new, or renewed when it held one).
-- @error ERR A missing or malformed argument, or permits other than the limit held, named in the message; no write.
-- @error WRONGTYPE The semaphore key is not a sorted set; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR semaphore_acquire takes exactly 1 key (semaphore), got ' .. #KEYS)
end
local token, ttl, permits = ARGV[1], ARGV[2], ARGV[3]
if token == nil or token == '' then
  return redis.error_reply('ERR semaphore_acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR semaphore_acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end
if permits == nil or not string.match(permits, '^[1-9]%d*$') or #permits > 9 then
  return redis.error_reply('ERR semaphore_acquire: ARGV[3] permits must be a positive integer'
    .. " (decimal digits, no leading zero, at most 9), got '" .. string.sub(tostring(permits), 1, 32) .. "'")
end

local semaphore = KEYS[1]
local limit = redis.call('ZRANGEBYSCORE', semaphore, '+inf', '+inf')[1]
if limit and limit ~= 'limit:' .. permits then
  return redis.error_reply('ERR semaphore_acquire: ARGV[3] permits is ' .. permits .. ' but the semaphore holds '
    .. limit .. ' while any permit is held: every caller must pass the same permits')
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', semaphore, '-inf', string.format('%d', now))
local mine = 'hold:' .. token
if not redis.call('ZSCORE', semaphore, mine) then
  local held = redis.call('ZCARD', semaphore) - (limit and 1 or 0)
  if held >= tonumber(permits) then
    return 0
  end
end
if not limit then
  redis.call('ZADD', semaphore, '+inf', 'limit:' .. permits)
end
redis.call('ZADD', semaphore, string.format('%d', now + tonumber(ttl)), mine)
-- The key lives as long as its longest lease (limit:<N> is scored +inf, so it is left out).
redis.call('PEXPIREAT', semaphore,
  redis.call('ZREVRANGEBYSCORE', semaphore, '(+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)[2])
return 1

-- @script semaphore_extend
-- @summary Compare-and-extend for a semaphore: renew this token's live permit lease to ttl_ms.
-- @key semaphore required A sorted set: hold:<token> members scored by lease end (server ms), limit:<N> scored +inf.
-- @arg token token The owner token the permit was taken with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer, no leading zero, at most 15 digits.
-- @reply 0 This token holds no live permit: nothing changed but dropping ended leases; never creates one.
-- @reply 1 Its permit's lease now ends ttl_ms from now.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The semaphore key is not a sorted set; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR semaphore_extend takes exactly 1 key (semaphore), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR semaphore_extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR semaphore_extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local semaphore = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', semaphore, '-inf', string.format('%d', now))
local mine = 'hold:' .. token
if not redis.call('ZSCORE', semaphore, mine) then
  return 0
end
redis.call('ZADD', semaphore, 'XX', string.format('%d', now + tonumber(ttl)), mine)
redis.call('PEXPIREAT', semaphore,
  redis.call('ZREVRANGEBYSCORE', semaphore, '(+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)[2])
return 1

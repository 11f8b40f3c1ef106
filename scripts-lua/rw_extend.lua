-- @script rw_extend
-- @summary Compare-and-extend for a read-write lock: renew this token's live read or write lease to ttl_ms.
-- @key lock required Read-write lock: a sorted set of read:, write: and wait: members + token, scored by lease end.
-- @arg token token The owner token the lease was taken with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer, no leading zero, at most 15 digits.
-- @reply 0 This token holds no live read or write lease: nothing changed but dropping ended leases; never creates one.
-- @reply 1 Its lease now ends ttl_ms from now.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a sorted set; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR rw_extend takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR rw_extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR rw_extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local lock = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', lock, '-inf', string.format('%d', now))
for _, member in ipairs({ 'write:' .. token, 'read:' .. token }) do
  if redis.call('ZSCORE', lock, member) then
    redis.call('ZADD', lock, 'XX', string.format('%d', now + tonumber(ttl)), member)
    redis.call('PEXPIREAT', lock, redis.call('ZREVRANGEBYSCORE', lock, '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)[2])
    return 1
  end
end
return 0

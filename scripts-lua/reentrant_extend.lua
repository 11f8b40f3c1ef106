-- @script reentrant_extend
-- @summary Compare-and-extend for a counting lock: set the lease to ttl_ms while this owner holds it.
-- @key lock required The lock key: a hash {owner token: hold count}.
-- @arg token token The owner token the lock was taken with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer, no leading zero, at most 15 digits.
-- @reply 0 Not held by this token: nothing changed, and the key is never created.
-- @reply 1 Held by this token; the lock's TTL is now ttl_ms (hold counts unchanged).
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a hash; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR reentrant_extend takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR reentrant_extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR reentrant_extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

if redis.call('HEXISTS', KEYS[1], token) == 1 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0

-- @script extend
-- @summary Compare-and-extend: set the lease to ttl_ms only while the lock holds this owner's token.
-- @key lock required The lock key.
-- @arg token token The owner token the lock was acquired with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer in decimal digits, no leading zero, at most 15 digits.
-- @reply 0 Not held by this token: nothing changed, and the key is never created.
-- @reply 1 Held by this token; its TTL is now ttl_ms.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR extend takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

if redis.call('GET', KEYS[1]) == token then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0

-- @script multi_extend
-- @summary Compare-and-extend several plain locks: set the lease of each key that still holds this token.
-- @key locks... required The lock keys, one or more, all in one hash slot.
-- @arg token token The owner token the locks were taken with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer, no leading zero, at most 15 digits.
-- @reply 0 No key holds this token: nothing changed, and no key is created.
-- @reply N N keys hold this token and have the new lease; fewer than the keys given: the others were lost.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE A lock key is not a string; nothing was written.

if #KEYS < 1 then
  return redis.error_reply('ERR multi_extend takes 1 or more keys (the locks), got 0')
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR multi_extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR multi_extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local held = {}
for _, lock in ipairs(KEYS) do
  if redis.call('GET', lock) == token then
    held[#held + 1] = lock
  end
end
for _, lock in ipairs(held) do
  redis.call('PEXPIRE', lock, ttl)
end
return #held

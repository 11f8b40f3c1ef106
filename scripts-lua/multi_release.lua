-- @script multi_release
-- @summary Release several plain locks: delete each key that still holds this token, and wake its waiters.
-- @key locks... required The lock keys, one or more, all in one hash slot.
-- @arg token token The owner token the locks were taken with.
-- @reply 0 No key held this token (expired, released, or taken by another owner): nothing changed.
-- @reply N N keys held this token and are deleted now; the others are left as they were.
-- @signal locks... On each key deleted: empty payload (wake one waiter per subscribed client).
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE A lock key is not a string; nothing was written.

if #KEYS < 1 then
  return redis.error_reply('ERR multi_release takes 1 or more keys (the locks), got 0')
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR multi_release: ARGV[1] token must be a non-empty string')
end

local held = {}
for _, lock in ipairs(KEYS) do
  if redis.call('GET', lock) == token then
    held[#held + 1] = lock
  end
end
for _, lock in ipairs(held) do
  redis.call('DEL', lock)
  -- pcall: the wake-up is an optimisation (see release.lua).
  redis.pcall('SPUBLISH', lock, '')
end
return #held

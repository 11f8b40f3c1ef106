-- @script reentrant_release
-- @summary Give back one hold of a counting lock; the last one deletes it and wakes a waiter.
-- @key lock required The lock key: a hash {owner token: hold count}.
-- @arg token token The owner token the lock was taken with.
-- @reply 0 Not held by this token (expired, released, or held by another owner): nothing changed.
-- @reply 1 This was the owner's last hold: the lock is deleted and free.
-- @reply N The owner held it N (2 or more) times before this call, and holds it N - 1 times now; lease unchanged.
-- @signal lock When the lock is deleted: empty payload (wake one waiter per subscribed client).
-- @error ERR A missing or malformed argument, or a count that is not an integer, named in the message; nothing written.
-- @error WRONGTYPE The lock key is not a hash; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR reentrant_release takes exactly 1 key (lock), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR reentrant_release: ARGV[1] token must be a non-empty string')
end

local lock = KEYS[1]
local count = redis.call('HGET', lock, token)
if not count then
  return 0
end
if not string.match(count, '^[1-9]%d*$') or #count > 15 then
  return redis.error_reply('ERR reentrant_release: the hold count of this token is not a positive integer')
end
local holds = tonumber(count)
if holds > 1 then
  redis.call('HINCRBY', lock, token, -1)
  return holds
end
redis.call('DEL', lock)
-- pcall: the wake-up is an optimisation (see release.lua).
redis.pcall('SPUBLISH', lock, '')
return 1

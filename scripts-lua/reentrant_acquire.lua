-- @script reentrant_acquire
-- @summary Take a counting lock: the same owner may take it again, once per release, and every take renews the lease.
-- @key lock required The lock key: a hash {owner token: hold count} while held.
-- @arg token token Owner token, unique per holder (e.g. host:pid:thread); binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds for the whole lock: a positive integer, no leading zero, at most 15 digits.
-- @reply 0 Held by another owner: nothing changed.
-- @reply N The hold count of this owner after this take (1 for a first take); the lease is now ttl_ms.
-- @error ERR A missing or malformed argument, or a count that is not an integer, named in the message; nothing written.
-- @error WRONGTYPE The lock key is not a hash; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR reentrant_acquire takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR reentrant_acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR reentrant_acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local lock = KEYS[1]
local count = redis.call('HGET', lock, token)
if not count then
  if redis.call('EXISTS', lock) == 1 then
    return 0
  end
elseif not string.match(count, '^[1-9]%d*$') or #count > 15 then
  return redis.error_reply('ERR reentrant_acquire: the hold count of this token is not a positive integer')
end
local holds = redis.call('HINCRBY', lock, token, 1)
redis.call('PEXPIRE', lock, ttl)
return holds

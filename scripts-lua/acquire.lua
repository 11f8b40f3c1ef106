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

-- @script acquire_queued
-- @summary Acquire like acquire.lua, or join the lock's waiter queue and reply how long the holder's lease has left.
-- @key lock required The lock key: a string holding the owner token while the lock is held.
-- @key waiters required Waiter queue: a sorted set of waiting tokens scored by arrival (server ms); same slot as lock.
-- @key fence optional Fencing counter, INCRed once per new holder; must share the lock key's hash slot.
-- @arg token token Owner token, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds, as for acquire.lua.
-- @arg queue_ms ms How long the waiters key lives after this call at least, so a queue of dead waiters expires.
-- @reply {0,P,W} Held by another owner: this token is queued (its place kept), P is the lock's PTTL, W waiters queued.
-- @reply {1,0,W} Acquired (or refreshed) without a fence key and taken off the queue; W other waiters queued.
-- @reply {N,0,W} With a fence key: the fencing token as for acquire.lua; W other waiters queued.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string or the waiters key not a sorted set; nothing was written.

if #KEYS < 2 or #KEYS > 3 then
  return redis.error_reply('ERR acquire_queued takes 2 or 3 keys (lock, waiters, optional fence), got ' .. #KEYS)
end
local token, ttl, queue_ms = ARGV[1], ARGV[2], ARGV[3]
if token == nil or token == '' then
  return redis.error_reply('ERR acquire_queued: ARGV[1] token must be a non-empty string')
end
local function bad_ms(i, name)
  local value = ARGV[i]
  if value == nil or not string.match(value, '^[1-9]%d*$') or #value > 15 then
    return 'ERR acquire_queued: ARGV[' .. i .. '] ' .. name .. ' must be a positive integer of milliseconds'
      .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(value), 1, 32) .. "'"
  end
end
local bad = bad_ms(2, 'ttl_ms') or bad_ms(3, 'queue_ms')
if bad then
  return redis.error_reply(bad)
end

local lock, waiters, fence = KEYS[1], KEYS[2], KEYS[3]
local holder = redis.call('GET', lock)
redis.call('ZCARD', waiters)
-- The fence is checked before the first write, as INCR checks it ('007' is no integer to INCR):
-- an error leaves nothing written, the queue included.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not (fenced == '0' or string.match(fenced, '^[1-9]%d*$')) or #fenced > 15) then
    return redis.error_reply('ERR acquire_queued: fence key must hold a non-negative integer below 10^15'
      .. " (decimal digits, no leading zero), got '" .. string.sub(fenced, 1, 32) .. "'")
  end
end
if holder and holder ~= token then
  local now = redis.call('TIME')
  redis.call('ZADD', waiters, 'NX', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), token)
  if redis.call('PTTL', waiters) < tonumber(queue_ms) then
    redis.call('PEXPIRE', waiters, queue_ms)
  end
  return { 0, redis.call('PTTL', lock), redis.call('ZCARD', waiters) }
end

if holder then
  -- Same owner again (a retry after a lost reply): refresh the lease and keep the fencing token.
  redis.call('PEXPIRE', lock, ttl)
else
  redis.call('SET', lock, token, 'PX', ttl)
end
local result = 1
if fence then
  result = (holder and fenced and tonumber(fenced) > 0) and tonumber(fenced) or redis.call('INCR', fence)
end
redis.call('ZREM', waiters, token)
return { result, 0, redis.call('ZCARD', waiters) }

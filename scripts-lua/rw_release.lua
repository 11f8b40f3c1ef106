-- @script rw_release
-- @summary Give back this token's read or write lease; wake waiters when the lock has no reader or writer left.
-- @key lock required Read-write lock: a sorted set of read:, write: and wait: members + token, scored by lease end.
-- @arg token token The owner token the lease was taken with.
-- @reply 0 This token holds no live read or write lease: nothing changed but dropping ended leases.
-- @reply 1 Its write lease, or its read lease, is gone.
-- @signal lock When no read or write lease is left: payload * (wake every waiter).
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a sorted set; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR rw_release takes exactly 1 key (lock), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR rw_release: ARGV[1] token must be a non-empty string')
end

local lock = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', lock, '-inf', string.format('%d', now))
if redis.call('ZREM', lock, 'write:' .. token, 'read:' .. token) == 0 then
  return 0
end
local last = redis.call('ZREVRANGEBYSCORE', lock, '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]
if last then
  redis.call('PEXPIREAT', lock, last)
end
for _, member in ipairs(redis.call('ZRANGE', lock, 0, -1)) do
  local role = string.match(member, '^(%a+):')
  if role == 'read' or role == 'write' then
    return 1
  end
end
-- pcall: the wake-up is an optimisation (see release.lua).
redis.pcall('SPUBLISH', lock, '*')
return 1

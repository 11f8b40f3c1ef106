-- @script read_acquire
-- @summary Take a shared read lease: many readers at once, none while a writer holds the lock or waits for it.
-- @key lock required Read-write lock: a sorted set of read:, write: and wait: members + token, scored by lease end.
-- @arg token token Owner token of this reader, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms This reader's own lease in milliseconds: a positive integer, no leading zero, at most 15 digits.
-- @reply 0 A writer holds the lock or waits for it (wait: member): nothing changed but dropping ended leases.
-- @reply 1 This token holds a read lease ending ttl_ms from now (new, or renewed when it already read).
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a sorted set; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR read_acquire takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR read_acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR read_acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local lock = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', lock, '-inf', string.format('%d', now))
local mine = 'read:' .. token
if not redis.call('ZSCORE', lock, mine) then
  for _, member in ipairs(redis.call('ZRANGE', lock, 0, -1)) do
    local role = string.match(member, '^(%a+):')
    if role == 'write' or role == 'wait' then
      return 0
    end
  end
end
redis.call('ZADD', lock, string.format('%d', now + tonumber(ttl)), mine)
-- The key lives as long as its longest lease.
redis.call('PEXPIREAT', lock, redis.call('ZREVRANGEBYSCORE', lock, '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)[2])
return 1

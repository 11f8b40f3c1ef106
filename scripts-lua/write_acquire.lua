-- @script write_acquire
-- @summary Take the exclusive write lease; while readers drain, a wait: intent keeps new readers out.
-- @key lock required Read-write lock: a sorted set of read:, write: and wait: members + token, scored by lease end.
-- @arg token token Owner token of this writer, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms The write lease in milliseconds: a positive integer, no leading zero, at most 15 digits.
-- @arg wait_ms ms How long the wait: intent keeps new readers out unless this writer calls again (renews it).
-- @reply 0 Readers or another writer hold it: the intent wait:token now ends wait_ms from now; nothing else changed.
-- @reply 1 This token holds the write lease ending ttl_ms from now (new, or renewed); its wait: intent is gone.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a sorted set; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR write_acquire takes exactly 1 key (lock), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR write_acquire: ARGV[1] token must be a non-empty string')
end
for i, name in ipairs({ 'ttl_ms', 'wait_ms' }) do
  local value = ARGV[i + 1]
  if value == nil or not string.match(value, '^[1-9]%d*$') or #value > 15 then
    return redis.error_reply('ERR write_acquire: ARGV[' .. (i + 1) .. '] ' .. name
      .. " must be a positive integer of milliseconds (decimal digits, no leading zero), got '"
      .. string.sub(tostring(value), 1, 32) .. "'")
  end
end

local lock = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', lock, '-inf', string.format('%d', now))
local mine, intent = 'write:' .. token, 'wait:' .. token
local lease, wait = mine, nil
if not redis.call('ZSCORE', lock, mine) then
  for _, member in ipairs(redis.call('ZRANGE', lock, 0, -1)) do
    local role = string.match(member, '^(%a+):')
    if role == 'read' or role == 'write' then
      lease, wait = intent, ARGV[3]
      break
    end
  end
end
if lease == mine then
  redis.call('ZREM', lock, intent)
end
redis.call('ZADD', lock, string.format('%d', now + tonumber(wait or ARGV[2])), lease)
-- The key lives as long as its longest lease.
redis.call('PEXPIREAT', lock, redis.call('ZREVRANGEBYSCORE', lock, '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)[2])
return lease == mine and 1 or 0

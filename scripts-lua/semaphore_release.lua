-- @script semaphore_release
-- @summary Give back this token's permit and wake a waiter; the last permit deletes the semaphore.
-- @key semaphore required A sorted set: hold:<token> members scored by lease end (server ms), limit:<N> scored +inf.
-- @arg token token The owner token the permit was taken with.
-- @reply 0 This token holds no live permit: nothing changed but dropping ended leases.
-- @reply 1 Its permit is back.
-- @signal semaphore On every permit given back: empty payload (wake one waiter per subscribed client).
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The semaphore key is not a sorted set; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR semaphore_release takes exactly 1 key (semaphore), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR semaphore_release: ARGV[1] token must be a non-empty string')
end

local semaphore = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', semaphore, '-inf', string.format('%d', now))
if redis.call('ZREM', semaphore, 'hold:' .. token) == 0 then
  return 0
end
local last = redis.call('ZREVRANGEBYSCORE', semaphore, '(+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]
if last then
  redis.call('PEXPIREAT', semaphore, last)
else
  redis.call('DEL', semaphore)
end
-- pcall: the wake-up is an optimisation (see release.lua).
redis.pcall('SPUBLISH', semaphore, '')
return 1

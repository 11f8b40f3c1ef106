-- @script queue_release
-- @summary Release the lock and, in the same call, hand it to the first live waiter; or just leave its queue.
-- @key lock required The lock key.
-- @key waiters required Waiter queue: a sorted set of tokens scored by arrival (server ms), as for acquire_queued.
-- @key tickets required Queued waiters' tickets (see queue_acquire); same slot as lock.
-- @arg token token The owner token the lock was acquired with (or a waiter's token, to leave the queue).
-- @reply 0 Not held by this token: nothing changed but this token leaving the queue.
-- @reply 1 Held by this token: now handed to the first live waiter for its claim_ms, or deleted.
-- @signal lock 'hand <ticket>' (+ ' next <ticket>': the waiter after it), an acquire_queued waiter's token, or empty.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock, waiters or tickets key is of another type; nothing was written.

if #KEYS ~= 3 then
  return redis.error_reply('ERR queue_release takes exactly 3 keys (lock, waiters, tickets), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR queue_release: ARGV[1] token must be a non-empty string')
end

local lock, waiters, tickets = KEYS[1], KEYS[2], KEYS[3]
local holder = redis.call('GET', lock)
redis.call('ZCARD', waiters)
redis.call('HLEN', tickets)
redis.call('ZREM', waiters, token)
redis.call('HDEL', tickets, token)
if holder ~= token then
  return 0
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local handed, after
-- In arrival order: drop waiters whose time is up; hand the lock to the first live one and name
-- the next live one, which then makes sure of the hand-over (it takes the lock if the claim lapses).
-- Bounded: a longer run of lapsed waiters is dropped over several calls.
for _, waiter in ipairs(redis.call('ZRANGE', waiters, 0, 99)) do
  local entry = redis.call('HGET', tickets, waiter)
  if not entry then
    if not handed then
      -- An acquire_queued waiter keeps no ticket: free the lock and wake it by name, as release.lua does.
      redis.call('DEL', lock)
      redis.call('ZREM', waiters, waiter)
      redis.pcall('SPUBLISH', lock, waiter)
      return 1
    end
  else
    local deadline, claim, ticket = string.match(entry, '^wait (%d+) (%d+) (%S+)$')
    if deadline and tonumber(deadline) > now then
      if handed then
        after = ticket
        break
      end
      handed = ticket
      redis.call('SET', lock, waiter, 'PX', claim)
      redis.call('ZREM', waiters, waiter)
      redis.call('HSET', tickets, waiter, 'hand ' .. string.format('%d', now + tonumber(claim)) .. ' ' .. ticket)
      if redis.call('PTTL', tickets) < tonumber(claim) then
        redis.call('PEXPIRE', tickets, claim)
      end
    else
      redis.call('ZREM', waiters, waiter)
      redis.call('HDEL', tickets, waiter)
    end
  end
end
-- pcall: the wake-up is an optimisation (see release.lua); a handed lock is the waiter's either
-- way, and it finds out by its next call.
if handed then
  redis.pcall('SPUBLISH', lock, 'hand ' .. handed .. (after and ' next ' .. after or ''))
else
  redis.call('DEL', lock)
  redis.pcall('SPUBLISH', lock, '')
end
return 1

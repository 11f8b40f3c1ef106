-- @script queue_release
-- @summary Release the lock and, in the same call, hand it to the first live waiter; or just leave its queue.
-- @key lock required The lock key.
-- @key waiters required Waiter queue: a sorted set of tokens scored by arrival (server ms), as for acquire_queued.
-- @key tickets required Queued waiters' tickets (see queue_acquire); same slot as lock.
-- @arg token token The owner token the lock was acquired with (or a waiter's token, to leave the queue).
-- @reply 0 Not held by this token: nothing changed but this token leaving the queue.
-- @reply 1 Held by this token: now handed to the first live waiter for its claim_ms, or deleted.
-- @signal lock No live waiter to hand to: an acquire_queued waiter's token (the lock freed), or '' (deleted).
-- @signal tickets A hand-over: 'hand <ticket> <server ms>' (+ ' next <ticket>') on <tickets>:<client> of both tickets.
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
redis.call('HDEL', tickets, token)
redis.call('ZREM', waiters, token)
if holder ~= token then
  return 0
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local handed, after
-- In arrival order, a few at a time: drop waiters whose time is up; hand the lock to the first
-- live one and name the next live one, which makes sure of the hand-over (it asks again when the
-- claim would lapse). Bounded: a longer run of lapsed waiters is dropped over several calls.
local from = 0
while from < 100 and not after do
  local batch = redis.call('ZRANGE', waiters, from, from + 3)
  if #batch == 0 then
    break
  end
  from = from + #batch
  for _, waiter in ipairs(batch) do
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
        redis.call('HSET', tickets, waiter, 'hand ' .. string.format('%d', now + tonumber(claim)) .. ' ' .. ticket)
        if redis.call('PEXPIRE', tickets, claim, 'GT') == 0 and redis.call('PTTL', tickets) == -1 then
          redis.call('PEXPIRE', tickets, claim)
        end
      else
        redis.call('HDEL', tickets, waiter)
      end
      -- Off the queue: handed, or its time is up. The batch's next ZRANGE starts where the queue now does.
      redis.call('ZREM', waiters, waiter)
      from = from - 1
    end
  end
end
-- pcall: the wake-up is an optimisation (see release.lua); a handed lock is the waiter's either
-- way, and it finds out by its next call. The server's time lets it tell how much claim is left.
-- Sent on the channels of the two waiters' clients alone: the lock's own channel would wake
-- every client waiting on it for each hand-over. The next one's first: Redis and Valkey write the
-- clients given output in one event-loop turn last first, so the new holder's wake-up goes out
-- ahead of the next one's notice (a client waiting for both reads it first).
if handed then
  local function channel(ticket)
    return tickets .. ':' .. string.match(ticket, '^[^.]*')
  end
  local wake = 'hand ' .. handed .. ' ' .. string.format('%d', now)
  if after and channel(after) ~= channel(handed) then
    redis.pcall('SPUBLISH', channel(after), wake .. ' next ' .. after)
  end
  redis.pcall('SPUBLISH', channel(handed), after and wake .. ' next ' .. after or wake)
else
  redis.call('DEL', lock)
  redis.pcall('SPUBLISH', lock, '')
end
return 1

-- @script queue_acquire
-- @summary Take the lock, confirm it when queue_release handed it over, or wait in its queue, kept live by each call.
-- @key lock required The lock key: a string holding the owner token while the lock is held.
-- @key waiters required Waiter queue: a sorted set of tokens scored by arrival (server ms), as for acquire_queued.
-- @key tickets required Queued waiters' tickets: a hash {token: 'wait <deadline> <claim_ms> <ticket>'}; same slot.
-- @key fence optional Fencing counter, INCRed once per new holder; must share the lock key's hash slot.
-- @arg token token Owner token, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds once held, as for acquire.lua.
-- @arg wait_ms ms This waiter counts as live for wait_ms after this call; a release skips waiters whose time is up.
-- @arg claim_ms ms A lock handed to this waiter is its own for claim_ms, unconfirmed; its next call confirms it.
-- @arg ticket ticket This call's ticket, '<client>.<...>': a hand-over's wake-up names it, on <tickets>:<client>.
-- @arg fair flag 1: a free lock goes only to the first live waiter in the queue; 0: to whoever asks first.
-- @reply {0,P,W,T} Not taken: queued (place, ticket renewed); P ms until worth asking again; W queued; T server ms.
-- @reply {1,0,W} Held, without a fence key: taken, confirmed after a hand-over, or refreshed; off the queue.
-- @reply {N,0,W} With a fence key: the fencing token, INCRed for a new holder (a hand-over too), kept for a refresh.
-- @error ERR A missing or malformed argument or fence value, named in the message; nothing was written.
-- @error WRONGTYPE The lock, waiters or tickets key is of another type; nothing was written.

if #KEYS < 3 or #KEYS > 4 then
  return redis.error_reply('ERR queue_acquire takes 3 or 4 keys (lock, waiters, tickets, optional fence), got '
    .. #KEYS)
end
local token, ticket, fair = ARGV[1], ARGV[5], ARGV[6]
if token == nil or token == '' then
  return redis.error_reply('ERR queue_acquire: ARGV[1] token must be a non-empty string')
end
for i, name in ipairs({ 'ttl_ms', 'wait_ms', 'claim_ms' }) do
  local value = ARGV[i + 1]
  if value == nil or not string.match(value, '^[1-9]%d*$') or #value > 15 then
    return redis.error_reply('ERR queue_acquire: ARGV[' .. (i + 1) .. '] ' .. name
      .. " must be a positive integer of milliseconds (decimal digits, no leading zero), got '"
      .. string.sub(tostring(value), 1, 32) .. "'")
  end
end
if ticket == nil or not string.match(ticket, '^[%w%._%-]+$') or #ticket > 64 then
  return redis.error_reply("ERR queue_acquire: ARGV[5] ticket must be 1 to 64 of A-Z a-z 0-9 . _ -, got '"
    .. string.sub(tostring(ticket), 1, 32) .. "'")
end
if fair ~= '0' and fair ~= '1' then
  return redis.error_reply("ERR queue_acquire: ARGV[6] fair must be 0 or 1, got '" .. string.sub(tostring(fair), 1, 32)
    .. "'")
end

local lock, waiters, tickets, fence = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local holder = redis.call('GET', lock)
local queued = redis.call('ZCARD', waiters)
local mine = redis.call('HGET', tickets, token)
-- The fence is checked before the first write, as INCR checks it: an error leaves nothing written.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not (fenced == '0' or string.match(fenced, '^[1-9]%d*$')) or #fenced > 15) then
    return redis.error_reply('ERR queue_acquire: fence key must hold a non-negative integer below 10^15'
      .. " (decimal digits, no leading zero), got '" .. string.sub(fenced, 1, 32) .. "'")
  end
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function hold(result)
  redis.call('ZREM', waiters, token)
  redis.call('HDEL', tickets, token)
  return { result, 0, redis.call('ZCARD', waiters) }
end

if holder == token then
  -- Handed over by queue_release ('hand ...' ticket): a new holder. Else a retry by the holder.
  local handed = mine and string.sub(mine, 1, 5) == 'hand '
  redis.call('PEXPIRE', lock, ARGV[2])
  if not fence then
    return hold(1)
  end
  if not handed and fenced and tonumber(fenced) > 0 then
    return hold(tonumber(fenced))
  end
  return hold(redis.call('INCR', fence))
end

-- The first live waiter in line, dropping those whose time is up; acquire_queued's waiters (no
-- ticket) do not count: they keep no deadline. Bounded: a longer run of lapsed waiters is dropped
-- over several calls.
local function first_live()
  for _, waiter in ipairs(redis.call('ZRANGE', waiters, 0, 99)) do
    local entry = redis.call('HGET', tickets, waiter)
    if entry then
      local deadline = tonumber(string.match(entry, '^wait (%d+) '))
      if deadline and deadline > now then
        return waiter, deadline
      end
      redis.call('ZREM', waiters, waiter)
      redis.call('HDEL', tickets, waiter)
    end
  end
end

local ahead, until_lapsed
if not holder and fair == '1' then
  ahead, until_lapsed = first_live()
end
if not holder and (not ahead or ahead == token) then
  redis.call('SET', lock, token, 'PX', ARGV[2])
  return hold(fence and redis.call('INCR', fence) or 1)
end

-- Arrival to the microsecond (in ms, like acquire_queued's), so that calls in one ms keep their order.
local arrival = string.format('%.3f', tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000)
queued = queued + redis.call('ZADD', waiters, 'NX', arrival, token)
redis.call('HSET', tickets, token,
  'wait ' .. string.format('%d', now + tonumber(ARGV[3])) .. ' ' .. ARGV[4] .. ' ' .. ticket)
-- The queue lives at least as long as its newest waiter, so a queue of dead waiters expires (GT
-- never shortens a longer lease; a key without one, just created, gets one).
for _, key in ipairs({ waiters, tickets }) do
  if redis.call('PEXPIRE', key, ARGV[3], 'GT') == 0 and redis.call('PTTL', key) == -1 then
    redis.call('PEXPIRE', key, ARGV[3])
  end
end
local retry = holder and redis.call('PTTL', lock) or until_lapsed - now
-- The server's time: the waiter's clock for how much of a later hand-over's claim is left.
return { 0, retry, queued, now }

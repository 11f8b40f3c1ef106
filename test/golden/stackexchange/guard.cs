// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally.
// Assumes an IDatabase `db`, in an async method; C# 11 (raw string literals), .NET 6+. Usings
// besides the implicit ones: System.Security.Cryptography, StackExchange.Redis.
// ScriptEvaluateAsync loads each script once (SCRIPT LOAD) and runs it by SHA1 (EVALSHA). After
// a SCRIPT FLUSH, restart or failover it fails once with NOSCRIPT and forgets the SHA1, so one
// retry loads it again. Not LuaScript.Prepare: it would take the @tags in the scripts' header
// comments for parameters.
async Task<long> RunLocksmithScript(string lua, RedisKey[] keys, params RedisValue[] args)
{
    try
    {
        return (long)await db.ScriptEvaluateAsync(lua, keys, args);
    }
    catch (RedisServerException error) when (error.Message.StartsWith("NOSCRIPT", StringComparison.Ordinal))
    {
        return (long)await db.ScriptEvaluateAsync(lua, keys, args);
    }
}
const string locksmithAcquire = """
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

""";
const string locksmithRelease = """
-- @script release
-- @summary Compare-and-delete: delete the lock only while it still holds this owner's token, and wake a waiter.
-- @key lock required The lock key.
-- @key waiters optional The lock's waiter queue (see acquire_queued); must share the lock key's hash slot.
-- @arg token token The owner token the lock was acquired with.
-- @reply 0 Not held by this token (expired, released, or taken by another owner): nothing changed.
-- @reply 1 Held by this token and now deleted; the first queued waiter, if any, was taken off the queue and woken.
-- @signal lock On delete: the first queued waiter's token (taken off the queue), or empty with no queue or none queued.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string, or the waiters key not a sorted set; nothing was written.

if #KEYS < 1 or #KEYS > 2 then
  return redis.error_reply('ERR release takes 1 or 2 keys (lock, optional waiters), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR release: ARGV[1] token must be a non-empty string')
end

local lock, waiters = KEYS[1], KEYS[2]
if redis.call('GET', lock) ~= token then
  return 0
end
if waiters then
  -- A waiters key of another type fails here, before the delete.
  redis.call('ZCARD', waiters)
end
redis.call('DEL', lock)
local wake = ''
if waiters then
  wake = redis.call('ZPOPMIN', waiters)[1] or ''
end
-- pcall: the wake-up is an optimisation. A server without SPUBLISH (before 7.0) or an ACL user
-- without channel rights still releases; waiters then find the lock by their retry timer.
redis.pcall('SPUBLISH', lock, wake)
return 1

""";
var lockKey = "lock:{order:42}";
var lockTtlMs = 10000;
var lockToken = $"{Environment.MachineName}:{Environment.ProcessId}:{Convert.ToHexString(RandomNumberGenerator.GetBytes(8))}";
var lockWaitUntil = Environment.TickCount64 + 10_000; // give up after waiting 10 s
for (var attempt = 0; await RunLocksmithScript(locksmithAcquire, new RedisKey[] { lockKey }, lockToken, lockTtlMs) == 0; attempt++)
{
    if (Environment.TickCount64 > lockWaitUntil) throw new TimeoutException($"{lockKey} is still held by another owner");
    await Task.Delay(TimeSpan.FromMilliseconds(Math.Min(10 * Math.Pow(2, attempt), 500) * (0.5 + Random.Shared.NextDouble())));
}
try
{
    // critical section: only one holder runs this at a time
}
finally
{
    await RunLocksmithScript(locksmithRelease, new RedisKey[] { lockKey }, lockToken);
}

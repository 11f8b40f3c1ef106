// Redis Locksmith lock helper for StackExchange.Redis, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper stackexchange namespace=Locksmith
// @locksmith-pack 1d1d72660cc1
// @locksmith-script acquire 0f9ac11eba85da787c3fd573b49a8e669502c9c8
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release 0029cd4092e4cd2a95223433ad105e03894a3a87
// @locksmith-digest d61442d7932fbeecd9d18b444a95cb1dfefcf94a

#nullable enable
using System;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using StackExchange.Redis;

namespace Locksmith;

// Redis locks for StackExchange.Redis (C# 11, .NET 7+):
//   await using var lease = await RedisLock.AcquireAsync(db, key, TimeSpan.FromSeconds(10));
// takes the lock (waiting with jittered back-off) and releases it at the end of the scope.

/// <summary>The lock stayed held by another owner for the whole wait.</summary>
public sealed class LockBusyException : Exception
{
    public LockBusyException(string key, TimeSpan waited)
        : base($"{key} is held by another owner; gave up after waiting {(long)waited.TotalMilliseconds} ms")
    {
        Key = key;
        Waited = waited;
    }

    public string Key { get; }
    public TimeSpan Waited { get; }
}

/// <summary>The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable.</summary>
public sealed class LeaseLostException : Exception
{
    public LeaseLostException(string key, string why, Exception? inner = null)
        : base($"lease on {key} lost: {why}", inner)
    {
        Key = key;
    }

    public string Key { get; }
}

public static class RedisLock
{
    internal const string AcquireScript = """
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
if holder and holder ~= token then
  return 0
end

-- Validate the fence before the first write so that a bad fence key leaves nothing half-done.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not string.match(fenced, '^%d+$') or #fenced > 15) then
    return redis.error_reply('ERR acquire: fence key must hold a non-negative integer below 10^15')
  end
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
    internal const string ExtendScript = """
-- @script extend
-- @summary Compare-and-extend: set the lease to ttl_ms only while the lock holds this owner's token.
-- @key lock required The lock key.
-- @arg token token The owner token the lock was acquired with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer in decimal digits, no leading zero, at most 15 digits.
-- @reply 0 Not held by this token: nothing changed, and the key is never created.
-- @reply 1 Held by this token; its TTL is now ttl_ms.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR extend takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

if redis.call('GET', KEYS[1]) == token then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
""";
    internal const string ReleaseScript = """
-- @script release
-- @summary Compare-and-delete: delete the lock only while it still holds this owner's token.
-- @key lock required The lock key.
-- @arg token token The owner token the lock was acquired with.
-- @reply 0 Not held by this token (expired, released, or taken by another owner): nothing changed.
-- @reply 1 Held by this token and now deleted.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR release takes exactly 1 key (lock), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR release: ARGV[1] token must be a non-empty string')
end

if redis.call('GET', KEYS[1]) == token then
  return redis.call('DEL', KEYS[1])
end
return 0
""";

    /// <summary>
    /// Takes the lock with a lease of <paramref name="ttl"/> (whole milliseconds), waiting up to
    /// <paramref name="wait"/> (default 10 s) with jittered back-off (10 ms doubling to 500 ms,
    /// ±50 %), then <see cref="LockBusyException"/>. <paramref name="fenceKey"/>: a fencing counter
    /// key (in Cluster, with the lock key's {hash tag}). <paramref name="renew"/>: extend the lease
    /// every ttl/3 until release; <see cref="RedisLease.Lost"/> is cancelled when that fails.
    /// Redis errors are thrown as StackExchange.Redis throws them.
    /// </summary>
    public static async Task<RedisLease> AcquireAsync(
        IDatabaseAsync db,
        RedisKey key,
        TimeSpan ttl,
        TimeSpan? wait = null,
        RedisKey? fenceKey = null,
        bool renew = false,
        CancellationToken cancellationToken = default)
    {
        var ttlMs = (long)ttl.TotalMilliseconds;
        if (ttlMs < 1) throw new ArgumentOutOfRangeException(nameof(ttl), ttl, "the lease must be at least 1 ms");
        var waitFor = wait ?? TimeSpan.FromSeconds(10);
        if (waitFor < TimeSpan.Zero) throw new ArgumentOutOfRangeException(nameof(wait), wait, "must not be negative");
        var token = $"{Environment.MachineName}:{Environment.ProcessId}:{Convert.ToHexString(RandomNumberGenerator.GetBytes(8))}";
        var keys = fenceKey is { } fence ? new[] { key, fence } : new[] { key };
        var deadline = Environment.TickCount64 + (long)waitFor.TotalMilliseconds;
        for (var attempt = 0; ; attempt++)
        {
            var reply = await RunAsync(db, AcquireScript, keys, token, ttlMs);
            if (reply != 0) return new RedisLease(db, key, token, fenceKey is null ? null : reply, ttlMs, renew);
            var leftMs = deadline - Environment.TickCount64;
            if (leftMs <= 0) throw new LockBusyException(key.ToString(), waitFor);
            var backoffMs = Math.Min(10 * Math.Pow(2, Math.Min(attempt, 6)), 500) * (0.5 + Random.Shared.NextDouble());
            await Task.Delay(TimeSpan.FromMilliseconds(Math.Min(backoffMs, leftMs)), cancellationToken);
        }
    }

    // ScriptEvaluateAsync(string, ...) loads each script once (SCRIPT LOAD) and runs it by SHA1
    // (EVALSHA). After a SCRIPT FLUSH, restart or failover it fails once with NOSCRIPT and forgets
    // the SHA1, so one retry loads it again. Not LuaScript.Prepare: it would take the @tags in the
    // scripts' header comments for parameters.
    internal static async Task<long> RunAsync(IDatabaseAsync db, string lua, RedisKey[] keys, params RedisValue[] args)
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
}

/// <summary>
/// A held lock; disposing it releases it. Dispose does not throw: to learn whether the lease
/// held to the end, await <see cref="ReleaseAsync"/> (false: it was gone) before the scope ends.
/// </summary>
public sealed class RedisLease : IAsyncDisposable
{
    private readonly IDatabaseAsync db;
    private readonly long ttlMs;
    private readonly CancellationTokenSource lost = new();
    private readonly CancellationTokenSource stop = new();
    private readonly Task renewer;
    private int released;

    internal RedisLease(IDatabaseAsync db, RedisKey key, string token, long? fence, long ttlMs, bool renew)
    {
        this.db = db;
        this.ttlMs = ttlMs;
        Key = key;
        Token = token;
        Fence = fence;
        renewer = renew ? Task.Run(RenewAsync) : Task.CompletedTask;
    }

    public RedisKey Key { get; }

    /// <summary>This holder's owner token: the lock key's value while it is held.</summary>
    public string Token { get; }

    /// <summary>The fencing token with a fence key (else null): the guarded resource refuses older ones.</summary>
    public long? Fence { get; }

    /// <summary>Cancelled when a renewal finds the lease gone or fails: pass it to the calls that write.</summary>
    public CancellationToken Lost => lost.Token;

    /// <summary>Why the lease was lost, or null.</summary>
    public LeaseLostException? LostReason { get; private set; }

    /// <summary>Sets the lease to <paramref name="ttl"/> from now (default: the acquire's); false when it is no longer held.</summary>
    public async Task<bool> ExtendAsync(TimeSpan? ttl = null)
    {
        var ms = ttl is { } given ? (long)given.TotalMilliseconds : ttlMs;
        if (ms < 1) throw new ArgumentOutOfRangeException(nameof(ttl), ttl, "the lease must be at least 1 ms");
        return await RedisLock.RunAsync(db, RedisLock.ExtendScript, new[] { Key }, Token, ms) == 1;
    }

    /// <summary>Stops renewing and deletes the lock if this lease still holds it; false when it no longer did.</summary>
    public async Task<bool> ReleaseAsync()
    {
        if (Interlocked.Exchange(ref released, 1) == 1) return false;
        stop.Cancel();
        await renewer; // a renewal in flight ends before the release
        return await RedisLock.RunAsync(db, RedisLock.ReleaseScript, new[] { Key }, Token) == 1;
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            await ReleaseAsync();
        }
        catch (RedisException)
        {
            // Not thrown from Dispose: the lock expires after its TTL.
        }
        stop.Dispose();
        lost.Dispose();
    }

    private async Task RenewAsync()
    {
        var every = TimeSpan.FromMilliseconds(Math.Max(1, ttlMs / 3));
        while (true)
        {
            try
            {
                await Task.Delay(every, stop.Token);
            }
            catch (OperationCanceledException)
            {
                return;
            }
            try
            {
                if (await ExtendAsync()) continue;
                LostReason = new LeaseLostException(Key.ToString(), "taken by another owner or expired");
            }
            catch (RedisException error)
            {
                LostReason = new LeaseLostException(Key.ToString(), "renewal failed, it may expire unseen", error);
            }
            lost.Cancel();
            return;
        }
    }
}

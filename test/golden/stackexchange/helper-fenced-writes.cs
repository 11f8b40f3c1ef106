// Redis Locksmith lock helper for StackExchange.Redis, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper stackexchange kinds=fenced-writes namespace=Locksmith
// @locksmith-pack 0d8270976b00
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-script guarded_set 9123752b5f766ec8e73186dfe98daa6f4228d411
// @locksmith-script fenced_set 6bb1501cf1efdefb7ceeb735927fd60225f8fbdb
// @locksmith-digest 90d01fda13744e8d1af70255cccaa0b7fc80febd

#nullable enable
using System;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using StackExchange.Redis;

namespace Locksmith;

// Redis locks for StackExchange.Redis 2.8.41+ (C# 11, .NET 7+):
//   await using var lease = await RedisLock.AcquireAsync(db, key, TimeSpan.FromSeconds(10));
// takes the lock and releases it at the end of the scope; TryAcquireAsync tries once and never
// waits (null when busy); ReleaseLockAsync and ExtendLockAsync take a key and a token. A waiter
// sleeps up to the retry bound (jittered down to half) between tries, never past the holder's lease.

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
    internal const string GuardedSetScript = """
-- @script guarded_set
-- @summary Write a value only while the lock holds the writer's token, in one call: a lapsed holder writes nothing.
-- @key lock required The plain lock key: a string holding the owner token while held.
-- @key data required The string key to write, in the lock's hash slot; its TTL is kept.
-- @arg token token The owner token the lock was acquired with.
-- @arg value token The value to write (binary-safe, non-empty).
-- @reply 0 The lock does not hold this token (expired, released, or taken by another owner): nothing written.
-- @reply 1 The lock holds this token: data holds value now.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock or the data key is not a string; nothing was written.

if #KEYS ~= 2 then
  return redis.error_reply('ERR guarded_set takes exactly 2 keys (lock, data), got ' .. #KEYS)
end
local token, value = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR guarded_set: ARGV[1] token must be a non-empty string')
end
if value == nil or value == '' then
  return redis.error_reply('ERR guarded_set: ARGV[2] value must be a non-empty string')
end

local lock, data = KEYS[1], KEYS[2]
local holder = redis.call('GET', lock)
redis.call('GET', data)
if holder ~= token then
  return 0
end
redis.call('SET', data, value, 'KEEPTTL')
return 1

""";
    internal const string FencedSetScript = """
-- @script fenced_set
-- @summary Write a value with the writer's fencing token, refused when a newer token has written the key already.
-- @key data required The data key: a hash {value: the value, fence: the highest fencing token that wrote it}.
-- @arg fence integer The writer's fencing token (acquire with a fence key replies it).
-- @arg value token The value to write (binary-safe, non-empty).
-- @reply 0 A newer fencing token has written data: refused, nothing written.
-- @reply 1 Written: data's value is value and its fence this token (equal tokens may write again).
-- @error ERR A missing or malformed argument, or a fence field that is no integer, named in the message; no write.
-- @error WRONGTYPE The data key is not a hash; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR fenced_set takes exactly 1 key (data), got ' .. #KEYS)
end
local fence, value = ARGV[1], ARGV[2]
if fence == nil or not string.match(fence, '^[1-9]%d*$') or #fence > 15 then
  return redis.error_reply('ERR fenced_set: ARGV[1] fence must be a positive integer'
    .. " (decimal digits, no leading zero, at most 15), got '" .. string.sub(tostring(fence), 1, 32) .. "'")
end
if value == nil or value == '' then
  return redis.error_reply('ERR fenced_set: ARGV[2] value must be a non-empty string')
end

local data = KEYS[1]
local newest = redis.call('HGET', data, 'fence')
if newest and (not string.match(newest, '^[1-9]%d*$') or #newest > 15) then
  return redis.error_reply("ERR fenced_set: the data key's fence field is not a positive integer, got '"
    .. string.sub(newest, 1, 32) .. "'")
end
if newest and tonumber(newest) > tonumber(fence) then
  return 0
end
redis.call('HSET', data, 'value', value, 'fence', fence)
return 1

""";

    /// <summary>
    /// Takes the lock with a lease of <paramref name="ttl"/> (whole milliseconds), waiting up to
    /// <paramref name="wait"/> (default 10 s), then <see cref="LockBusyException"/>. <paramref name="retry"/>:
    /// the longest sleep between tries (default 500 ms, jittered down to half; never past the holder's
    /// lease, whose PTTL a waiter reads after a busy try). <paramref name="fenceKey"/>:
    /// a fencing counter key (in Cluster, with the lock key's {hash tag}). <paramref name="renew"/>:
    /// extend the lease every ttl/3 until release (<see cref="RedisLease.Lost"/> is cancelled when
    /// that fails). Redis errors are thrown as StackExchange.Redis throws them.
    /// </summary>
    public static async Task<RedisLease> AcquireAsync(
        IDatabaseAsync db,
        RedisKey key,
        TimeSpan ttl,
        TimeSpan? wait = null,
        RedisKey? fenceKey = null,
        bool renew = false,
        CancellationToken cancellationToken = default,
        TimeSpan? retry = null)
    {
        var ttlMs = (long)ttl.TotalMilliseconds;
        if (ttlMs < 1) throw new ArgumentOutOfRangeException(nameof(ttl), ttl, "the lease must be at least 1 ms");
        var waitFor = wait ?? TimeSpan.FromSeconds(10);
        if (waitFor < TimeSpan.Zero) throw new ArgumentOutOfRangeException(nameof(wait), wait, "must not be negative");
        var retryMs = (long)(retry ?? TimeSpan.FromMilliseconds(500)).TotalMilliseconds;
        if (retryMs < 1) throw new ArgumentOutOfRangeException(nameof(retry), retry, "must be at least 1 ms");
        var token = $"{Environment.MachineName}:{Environment.ProcessId}:{Convert.ToHexString(RandomNumberGenerator.GetBytes(8))}";
        var keys = fenceKey is { } fence ? new[] { key, fence } : new[] { key };
        // One try of an acquire script: EVALSHA (with the replica-wait part, WAIT goes with it).
        Func<string, RedisKey[], RedisValue[], Task<RedisResult>> attempt =
            (lua, scriptKeys, args) => EvalAsync(db, lua, scriptKeys, args);
        // One try at the lock: its reply (0: busy), and the holder's PTTL when the script tells it.
        Func<Task<(long Reply, long? Pttl)>> tryOnce = async () =>
            ((long)await attempt(AcquireScript, keys, new RedisValue[] { token, ttlMs }), null);
        Func<long, Task> sleep = ms => Task.Delay(TimeSpan.FromMilliseconds(ms), cancellationToken);
        var deadline = Environment.TickCount64 + (long)waitFor.TotalMilliseconds;
        var (reply, pttl) = await tryOnce();
        while (reply == 0)
        {
            var leftMs = deadline - Environment.TickCount64;
            if (leftMs <= 0) throw new LockBusyException(key.ToString(), waitFor);
            pttl ??= (long)await db.ExecuteAsync("PTTL", key); // only a waiter pays it, after a busy try
            if (pttl != -2) // -2: gone, try again at once; -1: no lease, the retry bound alone
            {
                var sleepMs = Math.Min(leftMs, (long)(retryMs * (0.5 + Random.Shared.NextDouble() / 2)));
                await sleep(pttl >= 0 ? Math.Min(sleepMs, pttl.Value + 1) : sleepMs);
            }
            (reply, pttl) = await tryOnce();
        }
        return new RedisLease(db, key, token, fenceKey is null ? null : reply, ttlMs, renew);
    }

    /// <summary>One try, never waits: the lease, or null while another holder has the lock.</summary>
    public static async Task<RedisLease?> TryAcquireAsync(
        IDatabaseAsync db,
        RedisKey key,
        TimeSpan ttl,
        RedisKey? fenceKey = null,
        bool renew = false)
    {
        try
        {
            return await AcquireAsync(db, key, ttl, TimeSpan.Zero, fenceKey, renew);
        }
        catch (LockBusyException)
        {
            return null;
        }
    }

    /// <summary>Compare-and-delete: deletes key while it holds token (true, and wakes a waiter); false when it held another token or none.</summary>
    public static async Task<bool> ReleaseLockAsync(IDatabaseAsync db, RedisKey key, string token) =>
        await RunAsync(db, ReleaseScript, new[] { key }, token) == 1;

    /// <summary>Compare-and-extend: sets key's lease to ttl while it holds token (true); false when it held another token or none.</summary>
    public static async Task<bool> ExtendLockAsync(IDatabaseAsync db, RedisKey key, string token, TimeSpan ttl)
    {
        var ms = (long)ttl.TotalMilliseconds;
        if (ms < 1) throw new ArgumentOutOfRangeException(nameof(ttl), ttl, "the lease must be at least 1 ms");
        return await RunAsync(db, ExtendScript, new[] { key }, token, ms) == 1;
    }

    // ScriptEvaluateAsync(string, ...) loads each script once (SCRIPT LOAD) and runs it by SHA1
    // (EVALSHA). After a SCRIPT FLUSH, restart or failover it fails once with NOSCRIPT and forgets
    // the SHA1, so one retry loads it again. Not LuaScript.Prepare: it would take the @tags in the
    // scripts' header comments for parameters.
    internal static async Task<RedisResult> EvalAsync(IDatabaseAsync db, string lua, RedisKey[] keys, params RedisValue[] args)
    {
        try
        {
            return await db.ScriptEvaluateAsync(lua, keys, args);
        }
        catch (RedisServerException error) when (error.Message.StartsWith("NOSCRIPT", StringComparison.Ordinal))
        {
            return await db.ScriptEvaluateAsync(lua, keys, args);
        }
    }

    internal static async Task<long> RunAsync(IDatabaseAsync db, string lua, RedisKey[] keys, params RedisValue[] args) =>
        (long)await EvalAsync(db, lua, keys, args);
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
    public Task<bool> ExtendAsync(TimeSpan? ttl = null) =>
        RedisLock.ExtendLockAsync(db, Key, Token, ttl ?? TimeSpan.FromMilliseconds(ttlMs));

    /// <summary>Stops renewing and deletes the lock if this lease still holds it, waking a waiter; false when it no longer did.</summary>
    public async Task<bool> ReleaseAsync()
    {
        if (Interlocked.Exchange(ref released, 1) == 1) return false;
        stop.Cancel();
        await renewer; // a renewal in flight ends before the release
        var keys = new[] { Key };
        return await RedisLock.RunAsync(db, RedisLock.ReleaseScript, keys, Token) == 1;
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

    /// <summary>
    /// Sets the string <paramref name="dataKey"/> to <paramref name="value"/> (its TTL kept) only while this
    /// lease still holds the lock, in one call: false when it lapsed or another owner took it, and nothing was
    /// written. The key must be in the lock's hash slot (in Cluster, with the lock key's {hash tag}).
    /// </summary>
    public async Task<bool> SetIfHeldAsync(RedisKey dataKey, RedisValue value) =>
        await RedisLock.RunAsync(db, RedisLock.GuardedSetScript, new[] { Key, dataKey }, Token, value) == 1;

    /// <summary>
    /// Writes <paramref name="value"/> into the hash <paramref name="dataKey"/> ({value, fence}) with this
    /// lease's fencing token, in any slot: false when a newer token has written it already, and nothing was.
    /// </summary>
    public async Task<bool> SetFencedAsync(RedisKey dataKey, RedisValue value)
    {
        if (Fence is not { } fence) throw new InvalidOperationException($"SetFencedAsync needs a fencing token: acquire {Key} with a fenceKey");
        return await RedisLock.RunAsync(db, RedisLock.FencedSetScript, new[] { dataKey }, fence, value) == 1;
    }
}

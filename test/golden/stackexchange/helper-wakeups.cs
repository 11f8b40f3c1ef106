// Redis Locksmith lock helper for StackExchange.Redis, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper stackexchange kinds=wakeups namespace=Locksmith
// @locksmith-pack 0d8270976b00
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-script acquire_queued 273778d7c55f306da68b8c8bd9d6e1ec373e5070
// @locksmith-digest 14b9a1abec16eaa727c730952f48a994757ebad3

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
// With the wake-ups part a waiter waits in line (first come, first served) and sleeps until the
// release wakes it (a sharded subscription to the lock key, RedisChannel.Sharded, on the
// multiplexer's subscriber connection), the holder's lease ends, or the retry bound passes.

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
    internal const string AcquireQueuedScript = """
-- @script acquire_queued
-- @summary Acquire like acquire.lua, or join the lock's waiter queue and reply how long the holder's lease has left.
-- @key lock required The lock key: a string holding the owner token while the lock is held.
-- @key waiters required Waiter queue: a sorted set of waiting tokens scored by arrival (server ms); same slot as lock.
-- @key fence optional Fencing counter, INCRed once per new holder; must share the lock key's hash slot.
-- @arg token token Owner token, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds, as for acquire.lua.
-- @arg queue_ms ms How long the waiters key lives after this call at least, so a queue of dead waiters expires.
-- @reply {0,P,W} Held by another owner: this token is queued (its place kept), P is the lock's PTTL, W waiters queued.
-- @reply {1,0,W} Acquired (or refreshed) without a fence key and taken off the queue; W other waiters queued.
-- @reply {N,0,W} With a fence key: the fencing token as for acquire.lua; W other waiters queued.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string or the waiters key not a sorted set; nothing was written.

if #KEYS < 2 or #KEYS > 3 then
  return redis.error_reply('ERR acquire_queued takes 2 or 3 keys (lock, waiters, optional fence), got ' .. #KEYS)
end
local token, ttl, queue_ms = ARGV[1], ARGV[2], ARGV[3]
if token == nil or token == '' then
  return redis.error_reply('ERR acquire_queued: ARGV[1] token must be a non-empty string')
end
local function bad_ms(i, name)
  local value = ARGV[i]
  if value == nil or not string.match(value, '^[1-9]%d*$') or #value > 15 then
    return 'ERR acquire_queued: ARGV[' .. i .. '] ' .. name .. ' must be a positive integer of milliseconds'
      .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(value), 1, 32) .. "'"
  end
end
local bad = bad_ms(2, 'ttl_ms') or bad_ms(3, 'queue_ms')
if bad then
  return redis.error_reply(bad)
end

local lock, waiters, fence = KEYS[1], KEYS[2], KEYS[3]
local holder = redis.call('GET', lock)
redis.call('ZCARD', waiters)
-- The fence is checked before the first write, as INCR checks it ('007' is no integer to INCR):
-- an error leaves nothing written, the queue included.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not (fenced == '0' or string.match(fenced, '^[1-9]%d*$')) or #fenced > 15) then
    return redis.error_reply('ERR acquire_queued: fence key must hold a non-negative integer below 10^15'
      .. " (decimal digits, no leading zero), got '" .. string.sub(fenced, 1, 32) .. "'")
  end
end
if holder and holder ~= token then
  local now = redis.call('TIME')
  redis.call('ZADD', waiters, 'NX', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), token)
  if redis.call('PTTL', waiters) < tonumber(queue_ms) then
    redis.call('PEXPIRE', waiters, queue_ms)
  end
  return { 0, redis.call('PTTL', lock), redis.call('ZCARD', waiters) }
end

if holder then
  -- Same owner again (a retry after a lost reply): refresh the lease and keep the fencing token.
  redis.call('PEXPIRE', lock, ttl)
else
  redis.call('SET', lock, token, 'PX', ttl)
end
local result = 1
if fence then
  result = (holder and fenced and tonumber(fenced) > 0) and tonumber(fenced) or redis.call('INCR', fence)
end
redis.call('ZREM', waiters, token)
return { result, 0, redis.call('ZCARD', waiters) }

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
        // In line (first come, first served), woken by the release: see RedisLockWakeups.
        await using var wakeups = reply == 0 && waitFor > TimeSpan.Zero
            ? await RedisLockWakeups.SubscribeAsync(db, key, token, retryMs, cancellationToken)
            : null;
        if (wakeups is not null)
        {
            sleep = wakeups.SleepAsync;
            if (RedisLockWakeups.WaitersKey(key) is { } queue)
            {
                var queuedKeys = fenceKey is { } queuedFence ? new[] { key, queue, queuedFence } : new[] { key, queue };
                var queueMs = (long)waitFor.TotalMilliseconds + 2 * retryMs; // a queue of dead waiters ends by itself
                tryOnce = async () =>
                {
                    // acquire_queued's reply: {reply, the holder's PTTL, waiters}.
                    var queued = await attempt(AcquireQueuedScript, queuedKeys, new RedisValue[] { token, ttlMs, queueMs });
                    wakeups.InLine = (long)queued[0] == 0 ? queue : null;
                    return ((long)queued[0], (long)queued[1]);
                };
            }
            // The release may have gone out before the subscription: try again at once.
            (reply, pttl) = await tryOnce();
        }
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
        // Its first waiter in line is woken by its token.
        if (RedisLockWakeups.WaitersKey(Key) is { } line) keys = new[] { Key, line };
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
}

/// <summary>
/// A waiter's wake-ups: a sharded subscription to the lock key on the multiplexer's subscriber
/// connection. The scripts that free a lock SPUBLISH on its name: an empty payload (one waiter per
/// client), "*" (all) or the token of the waiter to wake (the first in line). Until the subscription
/// is confirmed (or when it fails: a server before 7.0, no channel rights) the timer covers.
/// </summary>
internal sealed class RedisLockWakeups : IAsyncDisposable
{
    private readonly IDatabaseAsync db;
    private readonly ISubscriber subscriber;
    private readonly RedisChannel channel;
    private readonly string token;
    private readonly CancellationToken cancellationToken;
    private readonly SemaphoreSlim woken = new(0, 1);
    private readonly Action<RedisChannel, RedisValue> onWake;

    private RedisLockWakeups(IDatabaseAsync db, RedisKey key, string token, CancellationToken cancellationToken)
    {
        this.db = db;
        subscriber = db.Multiplexer.GetSubscriber();
        channel = RedisChannel.Sharded(key.ToString());
        this.token = token;
        this.cancellationToken = cancellationToken;
        onWake = OnWake;
    }

    /// <summary>The waiter queue this waiter is in until it takes the lock: it leaves it on the way out.</summary>
    internal RedisKey? InLine { get; set; }

    internal static async Task<RedisLockWakeups> SubscribeAsync(
        IDatabaseAsync db,
        RedisKey key,
        string token,
        long retryMs,
        CancellationToken cancellationToken)
    {
        var wakeups = new RedisLockWakeups(db, key, token, cancellationToken);
        try
        {
            await wakeups.subscriber.SubscribeAsync(wakeups.channel, wakeups.onWake).WaitAsync(TimeSpan.FromMilliseconds(retryMs), cancellationToken);
        }
        catch (Exception error) when (error is RedisException or TimeoutException)
        {
            // no wake-ups: the retry bound covers
        }
        catch
        {
            await wakeups.DisposeAsync();
            throw;
        }
        return wakeups;
    }

    /// <summary>
    /// The waiter queue of a plain lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
    /// lock:order:42 -> {lock:order:42}:waiters; null for a key with '}' and no hash tag.
    /// </summary>
    internal static RedisKey? WaitersKey(RedisKey key)
    {
        var name = key.ToString();
        var open = name.IndexOf('{');
        if (open >= 0 && name.IndexOf('}', open + 1) > open + 1) return name + ":waiters";
        if (name.Contains('}')) return null;
        return "{" + name + "}:waiters";
    }

    /// <summary>Sleeps <paramref name="ms"/> milliseconds, or less when the release wakes this waiter.</summary>
    internal Task SleepAsync(long ms) => woken.WaitAsync(TimeSpan.FromMilliseconds(ms), cancellationToken);

    public async ValueTask DisposeAsync()
    {
        // Leave the line; failing that, the queue ends by itself.
        if (InLine is { } queue) await db.SortedSetRemoveAsync(queue, token).ContinueWith(_ => { }, TaskScheduler.Default);
        await subscriber.UnsubscribeAsync(channel, onWake).ContinueWith(_ => { }, TaskScheduler.Default);
        woken.Dispose();
    }

    private void OnWake(RedisChannel _, RedisValue payload)
    {
        if (!(payload.IsNullOrEmpty || payload == "*" || payload == token)) return;
        try
        {
            woken.Release();
        }
        catch (Exception error) when (error is SemaphoreFullException or ObjectDisposedException)
        {
            // already woken, or the wait is over
        }
    }
}

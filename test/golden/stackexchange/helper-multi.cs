// Redis Locksmith lock helper for StackExchange.Redis, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper stackexchange kinds=multi namespace=Locksmith
// @locksmith-pack 0d8270976b00
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-script multi_acquire cf0843373124df2cf563082ac4b06f37917f70af
// @locksmith-script multi_extend 83e9a1637b2631bd471e6d6e1317e415218f3af3
// @locksmith-script multi_release cd2be6d6157211d1207d65e968760cb4ca6b7e2b
// @locksmith-digest f753245fff2467fca9646455fdb78e7bea841125

#nullable enable
using System;
using System.Collections.Generic;
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
    internal const string MultiAcquireScript = """
-- @script multi_acquire
-- @summary Take several plain locks all or nothing: each key free or held by this token gets it, else none changes.
-- @key locks... required The lock keys, one or more, all in one hash slot: strings holding the owner token while held.
-- @arg token token Owner token, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds for every key: a positive integer, no leading zero, at most 15 digits.
-- @reply {1,0,0} Every key holds this token now, with the lease (new, or renewed where it already held it).
-- @reply {0,N,P} KEYS[N] is held by another owner for P more ms (-1: no TTL): nothing changed.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE A lock key is not a string; nothing was written.

if #KEYS < 1 then
  return redis.error_reply('ERR multi_acquire takes 1 or more keys (the locks), got 0')
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR multi_acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR multi_acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

-- Every key is read before any is written: a busy key, or one of another type, leaves all as they were.
for i, lock in ipairs(KEYS) do
  local holder = redis.call('GET', lock)
  if holder and holder ~= token then
    return { 0, i, redis.call('PTTL', lock) }
  end
end
for _, lock in ipairs(KEYS) do
  redis.call('SET', lock, token, 'PX', ttl)
end
return { 1, 0, 0 }

""";
    internal const string MultiExtendScript = """
-- @script multi_extend
-- @summary Compare-and-extend several plain locks: set the lease of each key that still holds this token.
-- @key locks... required The lock keys, one or more, all in one hash slot.
-- @arg token token The owner token the locks were taken with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer, no leading zero, at most 15 digits.
-- @reply 0 No key holds this token: nothing changed, and no key is created.
-- @reply N N keys hold this token and have the new lease; fewer than the keys given: the others were lost.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE A lock key is not a string; nothing was written.

if #KEYS < 1 then
  return redis.error_reply('ERR multi_extend takes 1 or more keys (the locks), got 0')
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR multi_extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR multi_extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local held = {}
for _, lock in ipairs(KEYS) do
  if redis.call('GET', lock) == token then
    held[#held + 1] = lock
  end
end
for _, lock in ipairs(held) do
  redis.call('PEXPIRE', lock, ttl)
end
return #held

""";
    internal const string MultiReleaseScript = """
-- @script multi_release
-- @summary Release several plain locks: delete each key that still holds this token, and wake its waiters.
-- @key locks... required The lock keys, one or more, all in one hash slot.
-- @arg token token The owner token the locks were taken with.
-- @reply 0 No key held this token (expired, released, or taken by another owner): nothing changed.
-- @reply N N keys held this token and are deleted now; the others are left as they were.
-- @signal locks... On each key deleted: empty payload (wake one waiter per subscribed client).
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE A lock key is not a string; nothing was written.

if #KEYS < 1 then
  return redis.error_reply('ERR multi_release takes 1 or more keys (the locks), got 0')
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR multi_release: ARGV[1] token must be a non-empty string')
end

local held = {}
for _, lock in ipairs(KEYS) do
  if redis.call('GET', lock) == token then
    held[#held + 1] = lock
  end
end
for _, lock in ipairs(held) do
  redis.call('DEL', lock)
  -- pcall: the wake-up is an optimisation (see release.lua).
  redis.pcall('SPUBLISH', lock, '')
end
return #held

""";

    /// <summary>
    /// Takes every lock in <paramref name="keys"/> (each key once), all or none, under one token (the "move
    /// money between two accounts" lock), waiting up to <paramref name="wait"/> (default 10 s; zero: one try),
    /// then <see cref="LockBusyException"/> naming a busy key. Keys of one hash slot (on one server: all of
    /// them) are taken in one call; a Cluster's slot by slot in one order (slot, then key bytes), and a busy
    /// key gives back the slots taken before the waiter sleeps until that key's release wakes it, its lease
    /// ends or the jittered retry bound passes: no caller waits holding part of its keys, so overlapping key
    /// sets cannot deadlock. <paramref name="ttl"/>, <paramref name="renew"/> and <paramref name="retry"/> as
    /// <see cref="AcquireAsync"/>'s. Bad keys or values throw before anything is sent.
    /// </summary>
    public static async Task<RedisMultiLease> AcquireMultiAsync(
        IDatabaseAsync db,
        IEnumerable<RedisKey> keys,
        TimeSpan ttl,
        TimeSpan? wait = null,
        bool renew = false,
        CancellationToken cancellationToken = default,
        TimeSpan? retry = null)
    {
        var groups = MultiGroups(db, keys);
        var ttlMs = (long)ttl.TotalMilliseconds;
        if (ttlMs < 1) throw new ArgumentOutOfRangeException(nameof(ttl), ttl, "the lease must be at least 1 ms");
        var waitFor = wait ?? TimeSpan.FromSeconds(10);
        if (waitFor < TimeSpan.Zero) throw new ArgumentOutOfRangeException(nameof(wait), wait, "must not be negative");
        var retryMs = (long)(retry ?? TimeSpan.FromMilliseconds(500)).TotalMilliseconds;
        if (retryMs < 1) throw new ArgumentOutOfRangeException(nameof(retry), retry, "must be at least 1 ms");
        var token = $"{Environment.MachineName}:{Environment.ProcessId}:{Convert.ToHexString(RandomNumberGenerator.GetBytes(8))}";
        var deadline = Environment.TickCount64 + (long)waitFor.TotalMilliseconds;
        var subscriber = db.Multiplexer.GetSubscriber();
        string? listening = null; // the busy key whose release wakes this waiter
        using var woken = new SemaphoreSlim(0, 1);
        Action<RedisChannel, RedisValue> onWake = (_, payload) =>
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
        };
        try
        {
            while (true)
            {
                var (busy, leaseLeftMs) = await TakeAllAsync(db, groups, token, ttlMs);
                if (busy is not { } busyKey) return new RedisMultiLease(db, groups, token, ttlMs, renew);
                var leftMs = deadline - Environment.TickCount64;
                if (leftMs <= 0) throw new LockBusyException(busyKey.ToString(), waitFor);
                if (listening != busyKey.ToString())
                {
                    if (listening is not null) await subscriber.UnsubscribeAsync(RedisChannel.Sharded(listening), onWake).ContinueWith(_ => { }, TaskScheduler.Default);
                    listening = busyKey.ToString();
                    try
                    {
                        await subscriber.SubscribeAsync(RedisChannel.Sharded(listening), onWake).WaitAsync(TimeSpan.FromMilliseconds(retryMs), cancellationToken);
                    }
                    catch (Exception error) when (error is RedisException or TimeoutException)
                    {
                        // no wake-ups: the retry bound covers
                    }
                    continue; // its release may have gone out before the subscription: try again at once
                }
                var sleepMs = Math.Min(leftMs, (long)(retryMs * (0.5 + Random.Shared.NextDouble() / 2)));
                if (leaseLeftMs >= 0) sleepMs = Math.Min(sleepMs, leaseLeftMs);
                await woken.WaitAsync(TimeSpan.FromMilliseconds(sleepMs), cancellationToken);
            }
        }
        finally
        {
            if (listening is not null) await subscriber.UnsubscribeAsync(RedisChannel.Sharded(listening), onWake).ContinueWith(_ => { }, TaskScheduler.Default);
        }
    }

    /// <summary>
    /// The keys in the one order every caller takes them in: by hash slot on a Cluster, then by bytes; one
    /// group per slot, each taken in one call (one group on a server that is no Cluster).
    /// </summary>
    private static RedisKey[][] MultiGroups(IDatabaseAsync db, IEnumerable<RedisKey> keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var ordered = new List<RedisKey>();
        var seen = new HashSet<RedisKey>();
        foreach (var key in keys)
        {
            if ((byte[]?)key is not { Length: > 0 }) throw new ArgumentException("keys holds a null or empty key", nameof(keys));
            if (!seen.Add(key)) throw new ArgumentException($"keys names {key} more than once: give each lock key once", nameof(keys));
            ordered.Add(key);
        }
        if (ordered.Count == 0) throw new ArgumentException("keys is empty: a multi-key lock takes one or more lock keys", nameof(keys));
        ordered.Sort((a, b) => ((byte[]?)a).AsSpan().SequenceCompareTo((byte[]?)b));
        var cluster = Array.Exists(db.Multiplexer.GetServers(), server => server.ServerType == ServerType.Cluster);
        var bySlot = new SortedDictionary<int, List<RedisKey>>();
        foreach (var key in ordered)
        {
            var slot = cluster ? db.Multiplexer.HashSlot(key) : 0;
            if (!bySlot.TryGetValue(slot, out var group)) bySlot[slot] = group = new List<RedisKey>();
            group.Add(key);
        }
        var groups = new List<RedisKey[]>();
        foreach (var group in bySlot.Values) groups.Add(group.ToArray());
        return groups.ToArray();
    }

    /// <summary>One pass in the fixed order: no busy key when every key is held; else the busy key and its PTTL (-1: none), the slots taken before it given back.</summary>
    private static async Task<(RedisKey? Busy, long LeaseLeftMs)> TakeAllAsync(IDatabaseAsync db, RedisKey[][] groups, string token, long ttlMs)
    {
        for (var taken = 0; taken < groups.Length; taken++)
        {
            var reply = (RedisResult[]?)await EvalAsync(db, MultiAcquireScript, groups[taken], token, ttlMs)
                ?? throw new RedisException("multi_acquire replied no array");
            if ((long)reply[0] == 1) continue;
            for (var back = 0; back < taken; back++) await RunAsync(db, MultiReleaseScript, groups[back], token);
            return (groups[taken][(int)(long)reply[1] - 1], (long)reply[2]);
        }
        return (null, 0);
    }

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
}

/// <summary>
/// Several plain locks held under one token; disposing it releases them. <see cref="ExtendAsync"/> and
/// <see cref="ReleaseAsync"/> act on every key the token still holds and answer true only when it held all
/// of them. Dispose does not throw: await ReleaseAsync before the scope ends to learn whether all held.
/// </summary>
public sealed class RedisMultiLease : IAsyncDisposable
{
    private readonly IDatabaseAsync db;
    private readonly RedisKey[][] groups;
    private readonly long ttlMs;
    private readonly CancellationTokenSource lost = new();
    private readonly CancellationTokenSource stop = new();
    private readonly Task renewer;
    private int released;

    internal RedisMultiLease(IDatabaseAsync db, RedisKey[][] groups, string token, long ttlMs, bool renew)
    {
        this.db = db;
        this.groups = groups;
        this.ttlMs = ttlMs;
        var keys = new List<RedisKey>();
        foreach (var group in groups) keys.AddRange(group);
        Keys = keys.AsReadOnly();
        Token = token;
        renewer = renew ? Task.Run(RenewAsync) : Task.CompletedTask;
    }

    /// <summary>The lock keys, each once, in the order they were taken.</summary>
    public IReadOnlyList<RedisKey> Keys { get; }

    /// <summary>This holder's owner token: every lock key's value while it is held.</summary>
    public string Token { get; }

    /// <summary>Cancelled when a renewal finds a lock gone or fails: pass it to the calls that write.</summary>
    public CancellationToken Lost => lost.Token;

    /// <summary>Why the lease was lost, or null.</summary>
    public LeaseLostException? LostReason { get; private set; }

    /// <summary>Sets every lock's lease to <paramref name="ttl"/> from now (default: the acquire's); false when the token no longer held all of them (those it held are extended).</summary>
    public async Task<bool> ExtendAsync(TimeSpan? ttl = null)
    {
        var ms = (long)(ttl ?? TimeSpan.FromMilliseconds(ttlMs)).TotalMilliseconds;
        if (ms < 1) throw new ArgumentOutOfRangeException(nameof(ttl), ttl, "the lease must be at least 1 ms");
        return await EachAsync(RedisLock.MultiExtendScript, Token, ms);
    }

    /// <summary>Stops renewing and deletes every lock the token still holds, waking their waiters; false when it no longer held all of them.</summary>
    public async Task<bool> ReleaseAsync()
    {
        if (Interlocked.Exchange(ref released, 1) == 1) return false;
        stop.Cancel();
        await renewer; // a renewal in flight ends before the release
        return await EachAsync(RedisLock.MultiReleaseScript, Token);
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            await ReleaseAsync();
        }
        catch (RedisException)
        {
            // Not thrown from Dispose: the locks expire after their TTL.
        }
        stop.Dispose();
        lost.Dispose();
    }

    /// <summary>Runs lua on every slot's keys: whether it found the token on all of them.</summary>
    private async Task<bool> EachAsync(string lua, params RedisValue[] args)
    {
        long done = 0;
        foreach (var group in groups) done += await RedisLock.RunAsync(db, lua, group, args);
        return done == Keys.Count;
    }

    private async Task RenewAsync()
    {
        var every = TimeSpan.FromMilliseconds(Math.Max(1, ttlMs / 3));
        var held = string.Join(", ", Keys);
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
                LostReason = new LeaseLostException(held, "taken by another owner or expired");
            }
            catch (RedisException error)
            {
                LostReason = new LeaseLostException(held, "renewal failed, it may expire unseen", error);
            }
            lost.Cancel();
            return;
        }
    }
}

// Redis Locksmith lock helper for StackExchange.Redis, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper stackexchange kinds=replica-wait namespace=Locksmith
// @locksmith-pack 0d8270976b00
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-digest ed3613b536534b93f1134ac2b73f852ac18465bc

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

/// <summary>
/// An acquire held only once replicas have it: WAIT (or WAITAOF with <see cref="Fsync"/>) sent with the
/// acquire script. Pass it as AcquireAsync's waitForReplicas.
/// </summary>
public sealed record WaitForReplicas
{
    /// <summary>Replicas that must acknowledge the acquire (WAIT numreplicas); at least 1. Default 1.</summary>
    public int Replicas { get; init; } = 1;

    /// <summary>How long the server waits for them (whole ms), shorter than the lease, which it spends. Default 100 ms.</summary>
    public TimeSpan Timeout { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>Wait for the disk instead: WAITAOF 1 replicas timeout. Needs appendonly yes and Redis or Valkey 7.2+.</summary>
    public bool Fsync { get; init; }

    /// <summary>Null (default): a shortfall gives the lock back and throws. A callback keeps the lock and gets the shortfall.</summary>
    public Action<ReplicaShortfall>? OnShortfall { get; init; }

    /// <summary>The timeout in ms, once the values are checked against the lease (before anything is sent).</summary>
    internal long Check(long ttlMs)
    {
        if (Replicas < 1) throw new ArgumentException($"waitForReplicas.Replicas must be at least 1, got {Replicas}", "waitForReplicas");
        var timeoutMs = (long)Timeout.TotalMilliseconds;
        if (timeoutMs < 1 || timeoutMs != Timeout.TotalMilliseconds)
            throw new ArgumentException($"waitForReplicas.Timeout must be a whole number of milliseconds, at least 1, got {Timeout}", "waitForReplicas");
        if (timeoutMs >= ttlMs)
            throw new ArgumentException($"waitForReplicas.Timeout ({timeoutMs} ms) must be shorter than the lease ({ttlMs} ms): the wait spends it", "waitForReplicas");
        return timeoutMs;
    }

    /// <summary>The shortfall WAIT's (or WAITAOF's) reply means; null when the replicas acknowledged.</summary>
    internal ReplicaShortfall? ShortfallOf(RedisKey key, RedisResult reply)
    {
        if (!Fsync)
        {
            var acknowledged = (long)reply;
            return acknowledged >= Replicas ? null : new ReplicaShortfall(key, ReplicaShortfallReason.Timeout, Replicas, Timeout, acknowledged);
        }
        var counts = (long[]?)reply;
        if (counts is not { Length: 2 }) throw new InvalidCastException($"WAITAOF replied {reply}, not [numlocal, numreplicas]");
        if (counts[0] >= 1 && counts[1] >= Replicas) return null;
        return new ReplicaShortfall(key, ReplicaShortfallReason.Timeout, Replicas, Timeout, counts[1], counts[0] >= 1);
    }
}

public enum ReplicaShortfallReason
{
    /// <summary>Fewer than Replicas acknowledged within the timeout.</summary>
    Timeout,

    /// <summary>The connection closed after the acquire, before the wait answered: it may or may not have reached a replica.</summary>
    ConnectionLost,

    /// <summary>Fsync on a server without WAITAOF.</summary>
    NoWaitAof,

    /// <summary>Fsync on a master with appendonly no.</summary>
    AofOff,
}

/// <summary>
/// Why replicas did not acknowledge an acquire: <see cref="ReplicaShortfallException.Shortfall"/>, and what
/// OnShortfall gets. <paramref name="Acknowledged"/>: what WAIT answered (WAITAOF: its second element), null
/// when the wait gave no count; <paramref name="FsyncedLocally"/>: with Fsync, whether the master's AOF has it.
/// </summary>
public sealed record ReplicaShortfall(
    RedisKey Lock,
    ReplicaShortfallReason Reason,
    int Required,
    TimeSpan Timeout,
    long? Acknowledged = null,
    bool? FsyncedLocally = null)
{
    /// <summary>A setting the server cannot honour: released whatever OnShortfall says.</summary>
    internal bool Misconfigured => Reason is ReplicaShortfallReason.NoWaitAof or ReplicaShortfallReason.AofOff;

    public override string ToString()
    {
        var of = $"{Required} replica{(Required == 1 ? "" : "s")}";
        var ms = (long)Timeout.TotalMilliseconds;
        return Reason switch
        {
            ReplicaShortfallReason.Timeout when FsyncedLocally is { } local =>
                $"{Lock} was fsynced by {Acknowledged ?? 0} of {of}{(local ? "" : " and not by the master")} within {ms} ms (WAITAOF)",
            ReplicaShortfallReason.Timeout => $"{Lock} was acknowledged by {Acknowledged ?? 0} of {of} within {ms} ms (WAIT)",
            ReplicaShortfallReason.ConnectionLost =>
                $"{Lock}: the connection closed before the replicas acknowledged the acquire (it may not have reached any)",
            ReplicaShortfallReason.NoWaitAof =>
                $"{Lock}: waitForReplicas.Fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)",
            _ => $"{Lock}: waitForReplicas.Fsync needs appendonly yes on the master, which has it off",
        };
    }
}

/// <summary>Replicas did not acknowledge the acquire in time: not held.</summary>
public sealed class ReplicaShortfallException : Exception
{
    public ReplicaShortfallException(ReplicaShortfall shortfall, bool released)
        : base($"{shortfall}: {(released ? "released" : "could not be released (it ends with its lease)")}, not held. {Fix(shortfall.Reason)}")
    {
        Shortfall = shortfall;
        Released = released;
    }

    public ReplicaShortfall Shortfall { get; }

    /// <summary>False when the compare-and-delete could not run: the lock then ends with its lease.</summary>
    public bool Released { get; }

    private static string Fix(ReplicaShortfallReason reason) => reason switch
    {
        ReplicaShortfallReason.Timeout =>
            "Check the replicas (INFO replication: connected_slaves, their lag), or pass OnShortfall to keep such locks",
        ReplicaShortfallReason.ConnectionLost => "The master may be failing over: try again once the client has reconnected",
        _ => "Turn Fsync off (WAIT alone covers a failover) or enable the AOF",
    };
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
        WaitForReplicas? waitForReplicas = null,
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
        if (waitForReplicas is { } replicas)
        {
            var timeoutMs = replicas.Check(ttlMs);
            attempt = (lua, scriptKeys, args) => AcquireAndWaitAsync(db, replicas, timeoutMs, key, token, lua, scriptKeys, args);
        }
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
    /// One try of an acquire script under waitForReplicas: the script and WAIT (or WAITAOF) sent together on the
    /// multiplexer's connection to the master that owns the key, as WAIT counts the replicas that have that
    /// connection's writes. Busy: the script's reply. A shortfall gives the lock back (waking a waiter)
    /// and throws <see cref="ReplicaShortfallException"/>, or calls OnShortfall and keeps it.
    /// </summary>
    private static async Task<RedisResult> AcquireAndWaitAsync(
        IDatabaseAsync db,
        WaitForReplicas wait,
        long timeoutMs,
        RedisKey key,
        string token,
        string lua,
        RedisKey[] keys,
        RedisValue[] args)
    {
        var server = db.Multiplexer.GetServer(key);
        var command = wait.Fsync ? new object[] { 1, wait.Replicas, timeoutMs } : new object[] { wait.Replicas, timeoutMs };
        async Task<(RedisResult Reply, Task<RedisResult> Waited)> SendPairAsync()
        {
            var script = db.ScriptEvaluateAsync(lua, keys, args);
            var waited = server.ExecuteAsync(wait.Fsync ? "WAITAOF" : "WAIT", command);
            try
            {
                return (await script, waited);
            }
            catch
            {
                await waited.ContinueWith(_ => { }, TaskScheduler.Default);
                throw;
            }
        }
        (RedisResult Reply, Task<RedisResult> Waited) sent;
        try
        {
            sent = await SendPairAsync();
        }
        catch (RedisServerException error) when (error.Message.StartsWith("NOSCRIPT", StringComparison.Ordinal))
        {
            sent = await SendPairAsync(); // ScriptEvaluateAsync forgot the SHA1: this time it sends the script
        }
        // In line (the wake-ups part): acquire_queued's {reply, the holder's PTTL, waiters}.
        var held = sent.Reply.Length > 0 ? (long)sent.Reply[0] : (long)sent.Reply;
        if (held == 0)
        {
            await sent.Waited.ContinueWith(_ => { }, TaskScheduler.Default); // busy: the wait's reply does not count
            return sent.Reply;
        }
        ReplicaShortfall? shortfall;
        try
        {
            shortfall = wait.ShortfallOf(key, await sent.Waited);
        }
        catch (RedisConnectionException)
        {
            shortfall = new ReplicaShortfall(key, ReplicaShortfallReason.ConnectionLost, wait.Replicas, wait.Timeout);
        }
        catch (RedisServerException error) when (error.Message.StartsWith("ERR unknown command", StringComparison.OrdinalIgnoreCase))
        {
            shortfall = new ReplicaShortfall(key, ReplicaShortfallReason.NoWaitAof, wait.Replicas, wait.Timeout);
        }
        catch (RedisServerException error) when (error.Message.Contains("appendonly is disabled", StringComparison.OrdinalIgnoreCase))
        {
            shortfall = new ReplicaShortfall(key, ReplicaShortfallReason.AofOff, wait.Replicas, wait.Timeout);
        }
        catch
        {
            await GiveBackAsync(db, key, token);
            throw;
        }
        if (shortfall is null) return sent.Reply;
        if (wait.OnShortfall is { } keep && !shortfall.Misconfigured)
        {
            keep(shortfall);
            return sent.Reply;
        }
        throw new ReplicaShortfallException(shortfall, await GiveBackAsync(db, key, token));
    }

    /// <summary>Compare-and-delete after a shortfall, waking a waiter: false when it could not run.</summary>
    private static async Task<bool> GiveBackAsync(IDatabaseAsync db, RedisKey key, string token)
    {
        try
        {
            await RunAsync(db, ReleaseScript, new[] { key }, token);
            return true;
        }
        catch (Exception error) when (error is RedisException or TimeoutException)
        {
            return false;
        }
    }

«header»

#nullable enable
using System;
«kinds:usings»
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using StackExchange.Redis;

«opt:namespace»
// Redis locks for StackExchange.Redis 2.8.41+ (C# 11, .NET 7+):
//   await using var lease = await RedisLock.AcquireAsync(db, key, TimeSpan.FromSeconds(10));
// takes the lock and releases it at the end of the scope; TryAcquireAsync tries once and never
// waits (null when busy); ReleaseLockAsync and ExtendLockAsync take a key and a token. A waiter
// sleeps up to the retry bound (jittered down to half) between tries, never past the holder's lease.
«kinds:about»

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
«kinds:classes»

public static class RedisLock
{
    internal const string AcquireScript = """
«lua:acquire»
""";
    internal const string ExtendScript = """
«lua:extend»
""";
    internal const string ReleaseScript = """
«lua:release»
""";
«kinds:scripts»

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
«kinds:acquire-params»
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
«kinds:attempt»
        // One try at the lock: its reply (0: busy), and the holder's PTTL when the script tells it.
        Func<Task<(long Reply, long? Pttl)>> tryOnce = async () =>
            ((long)await attempt(AcquireScript, keys, new RedisValue[] { token, ttlMs }), null);
        Func<long, Task> sleep = ms => Task.Delay(TimeSpan.FromMilliseconds(ms), cancellationToken);
        var deadline = Environment.TickCount64 + (long)waitFor.TotalMilliseconds;
        var (reply, pttl) = await tryOnce();
«kinds:wait»
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
«kinds:release»
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
«kinds:lease»
}
«kinds:code»

«section:usings»
using System.Collections.Generic;
«section:scripts»
    internal const string MultiAcquireScript = """
«lua:multi_acquire»
""";
    internal const string MultiExtendScript = """
«lua:multi_extend»
""";
    internal const string MultiReleaseScript = """
«lua:multi_release»
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
«section:code»

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

«section:classes»

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
«section:acquire-params»
        WaitForReplicas? waitForReplicas = null,
«section:attempt»
        if (waitForReplicas is { } replicas)
        {
            var timeoutMs = replicas.Check(ttlMs);
            attempt = (lua, scriptKeys, args) => AcquireAndWaitAsync(db, replicas, timeoutMs, key, token, lua, scriptKeys, args);
        }
«section:code»

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

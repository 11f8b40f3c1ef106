«section:scripts»
    internal const string GuardedSetScript = """
«lua:guarded_set»
""";
    internal const string FencedSetScript = """
«lua:fenced_set»
""";
«section:lease»

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

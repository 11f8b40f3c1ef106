// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
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
«lua:acquire»
""";
const string locksmithRelease = """
«lua:release»
""";
var lockKey = «key»;
var fenceKey = «fence»;
var lockTtlMs = «ttl»;
var lockToken = $"{Environment.MachineName}:{Environment.ProcessId}:{Convert.ToHexString(RandomNumberGenerator.GetBytes(8))}";
var lockWaitUntil = Environment.TickCount64 + 10_000; // give up after waiting 10 s
long fencingToken;
for (var attempt = 0;
    (fencingToken = await RunLocksmithScript(locksmithAcquire, new RedisKey[] { lockKey, fenceKey }, lockToken, lockTtlMs)) == 0;
    attempt++)
{
    if (Environment.TickCount64 > lockWaitUntil) throw new TimeoutException($"{lockKey} is still held by another owner");
    await Task.Delay(TimeSpan.FromMilliseconds(Math.Min(10 * Math.Pow(2, attempt), 500) * (0.5 + Random.Shared.NextDouble())));
}
try
{
    «body»
}
finally
{
    await RunLocksmithScript(locksmithRelease, new RedisKey[] { lockKey }, lockToken);
}

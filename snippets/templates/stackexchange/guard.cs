// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally.
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
var lockTtlMs = «ttl»;
var lockToken = $"{Environment.MachineName}:{Environment.ProcessId}:{Convert.ToHexString(RandomNumberGenerator.GetBytes(8))}";
var lockWaitUntil = Environment.TickCount64 + 10_000; // give up after waiting 10 s
for (var attempt = 0; await RunLocksmithScript(locksmithAcquire, new RedisKey[] { lockKey }, lockToken, lockTtlMs) == 0; attempt++)
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

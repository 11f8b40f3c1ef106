// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 on a
// PeriodicTimer while the body runs, stop renewing on release. lockLost is a CancellationToken
// cancelled when a renewal fails: the lease may have passed to another owner, so pass it to the
// body's calls and stop writing.
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
const string locksmithExtend = """
«lua:extend»
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
using var lockLostSource = new CancellationTokenSource();
var lockLost = lockLostSource.Token;
var lockRenewTimer = new PeriodicTimer(TimeSpan.FromMilliseconds(Math.Max(1, lockTtlMs / 3)));
var lockRenewer = Task.Run(async () =>
{
    // WaitForNextTickAsync returns false once release disposes the timer.
    while (await lockRenewTimer.WaitForNextTickAsync())
    {
        bool held;
        try
        {
            held = await RunLocksmithScript(locksmithExtend, new RedisKey[] { lockKey }, lockToken, lockTtlMs) == 1;
        }
        catch (Exception)
        {
            held = false; // Redis unreachable or failing: the lease may run out unseen
        }
        if (!held)
        {
            lockLostSource.Cancel();
            return;
        }
    }
});
try
{
    «body»
}
finally
{
    lockRenewTimer.Dispose();
    await lockRenewer; // a renewal in flight ends before release
    await RunLocksmithScript(locksmithRelease, new RedisKey[] { lockKey }, lockToken);
}

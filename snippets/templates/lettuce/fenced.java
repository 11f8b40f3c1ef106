// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// Assumes a RedisCommands<String, String> `redis` (connection.sync()); Java 15+ (text blocks);
// the enclosing method throws InterruptedException. Imports: java.util.List, java.util.UUID,
// java.util.concurrent.ThreadLocalRandom, io.lettuce.core.RedisNoScriptException,
// io.lettuce.core.ScriptOutputType.
// Runs a pack script by SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart, failover)
// it sends the source once with EVAL, which caches it again.
class LocksmithScript {
    private final String lua;
    private final String sha;

    LocksmithScript(String lua) {
        this.lua = lua;
        this.sha = redis.digest(lua);
    }

    long run(List<String> keys, String... args) {
        String[] keyArray = keys.toArray(String[]::new);
        try {
            return redis.evalsha(sha, ScriptOutputType.INTEGER, keyArray, args);
        } catch (RedisNoScriptException flushed) {
            return redis.eval(lua, ScriptOutputType.INTEGER, keyArray, args);
        }
    }
}
LocksmithScript locksmithAcquire = new LocksmithScript("""
«lua:acquire»""");
LocksmithScript locksmithRelease = new LocksmithScript("""
«lua:release»""");
String lockKey = «key»;
String fenceKey = «fence»;
long lockTtlMs = «ttl»;
String lockToken = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid()
        + ":" + UUID.randomUUID();
long lockWaitUntil = System.nanoTime() + 10_000_000_000L; // give up after waiting 10 s
long fencingToken;
for (int attempt = 0;
        (fencingToken = locksmithAcquire.run(List.of(lockKey, fenceKey), lockToken, String.valueOf(lockTtlMs))) == 0;
        attempt++) {
    if (System.nanoTime() > lockWaitUntil) throw new IllegalStateException(lockKey + " is still held by another owner");
    Thread.sleep((long) (Math.min(10 * Math.pow(2, attempt), 500) * (0.5 + ThreadLocalRandom.current().nextDouble())));
}
try {
    «body»
} finally {
    locksmithRelease.run(List.of(lockKey), lockToken);
}

// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally. Assumes a JedisPool `pool`; Java 15+ (text
// blocks); the enclosing method throws InterruptedException. Imports: java.util.List,
// java.util.UUID, java.util.concurrent.ThreadLocalRandom, redis.clients.jedis.Jedis,
// redis.clients.jedis.exceptions.JedisNoScriptException.
// Runs a pack script by SHA1 (EVALSHA) on a pooled connection; on NOSCRIPT (script cache
// flushed, restart, failover) it sends the source once with EVAL, which caches it again.
class LocksmithScript {
    private final String lua;
    private String sha;

    LocksmithScript(String lua) {
        this.lua = lua;
    }

    long run(List<String> keys, String... args) {
        try (Jedis jedis = pool.getResource()) {
            if (sha == null) sha = jedis.scriptLoad(lua);
            try {
                return (Long) jedis.evalsha(sha, keys, List.of(args));
            } catch (JedisNoScriptException flushed) {
                return (Long) jedis.eval(lua, keys, List.of(args));
            }
        }
    }
}
LocksmithScript locksmithAcquire = new LocksmithScript("""
«lua:acquire»""");
LocksmithScript locksmithRelease = new LocksmithScript("""
«lua:release»""");
String lockKey = «key»;
long lockTtlMs = «ttl»;
String lockToken = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid()
        + ":" + UUID.randomUUID();
long lockWaitUntil = System.nanoTime() + 10_000_000_000L; // give up after waiting 10 s
for (int attempt = 0; locksmithAcquire.run(List.of(lockKey), lockToken, String.valueOf(lockTtlMs)) == 0; attempt++) {
    if (System.nanoTime() > lockWaitUntil) throw new IllegalStateException(lockKey + " is still held by another owner");
    Thread.sleep((long) (Math.min(10 * Math.pow(2, attempt), 500) * (0.5 + ThreadLocalRandom.current().nextDouble())));
}
try {
    «body»
} finally {
    locksmithRelease.run(List.of(lockKey), lockToken);
}

// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 from a
// scheduled thread (each renewal borrows its own pooled connection) while the body runs, stop
// renewing on release. lockLost turns true when a renewal fails: the lease may have passed to
// another owner, so stop writing. Assumes a JedisPool `pool`; Java 15+ (text blocks); the
// enclosing method throws InterruptedException. Imports: java.util.List, java.util.UUID,
// java.util.concurrent.*, java.util.concurrent.atomic.AtomicBoolean, redis.clients.jedis.Jedis,
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
LocksmithScript locksmithExtend = new LocksmithScript("""
«lua:extend»""");
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
AtomicBoolean lockLost = new AtomicBoolean();
ScheduledExecutorService lockRenewer = Executors.newSingleThreadScheduledExecutor();
long lockRenewEveryMs = Math.max(1, lockTtlMs / 3);
lockRenewer.scheduleAtFixedRate(() -> {
    boolean held;
    try {
        held = locksmithExtend.run(List.of(lockKey), lockToken, String.valueOf(lockTtlMs)) == 1;
    } catch (RuntimeException error) {
        held = false; // Redis unreachable or failing: the lease may run out unseen
    }
    if (!held) {
        lockLost.set(true);
        lockRenewer.shutdown();
    }
}, lockRenewEveryMs, lockRenewEveryMs, TimeUnit.MILLISECONDS);
try {
    «body»
} finally {
    lockRenewer.shutdown();
    lockRenewer.awaitTermination(1, TimeUnit.MINUTES); // a renewal in flight ends before release
    locksmithRelease.run(List.of(lockKey), lockToken);
}

// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 from a
// scheduled thread while the body runs (a RedisTemplate is thread-safe, so it shares
// `redisTemplate`), stop renewing on release. lockLost turns true when a renewal fails: the
// lease may have passed to another owner, so stop writing. Assumes a StringRedisTemplate
// `redisTemplate`; Java 15+ (text blocks); the enclosing method throws InterruptedException.
// Imports: java.util.List, java.util.UUID, java.util.concurrent.*,
// java.util.concurrent.atomic.AtomicBoolean, org.springframework.data.redis.core.script.RedisScript.
// redisTemplate.execute runs a script by SHA1 (EVALSHA); on NOSCRIPT (script cache flushed,
// restart, failover) it sends the source with EVAL, which caches it again.
RedisScript<Long> locksmithAcquire = RedisScript.of("""
«lua:acquire»""", Long.class);
RedisScript<Long> locksmithExtend = RedisScript.of("""
«lua:extend»""", Long.class);
RedisScript<Long> locksmithRelease = RedisScript.of("""
«lua:release»""", Long.class);
String lockKey = «key»;
long lockTtlMs = «ttl»;
String lockToken = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid()
        + ":" + UUID.randomUUID();
long lockWaitUntil = System.nanoTime() + 10_000_000_000L; // give up after waiting 10 s
for (int attempt = 0;
        redisTemplate.execute(locksmithAcquire, List.of(lockKey), lockToken, String.valueOf(lockTtlMs)) == 0;
        attempt++) {
    if (System.nanoTime() > lockWaitUntil) throw new IllegalStateException(lockKey + " is still held by another owner");
    Thread.sleep((long) (Math.min(10 * Math.pow(2, attempt), 500) * (0.5 + ThreadLocalRandom.current().nextDouble())));
}
AtomicBoolean lockLost = new AtomicBoolean();
ScheduledExecutorService lockRenewer = Executors.newSingleThreadScheduledExecutor();
long lockRenewEveryMs = Math.max(1, lockTtlMs / 3);
lockRenewer.scheduleAtFixedRate(() -> {
    boolean held;
    try {
        held = redisTemplate.execute(locksmithExtend, List.of(lockKey), lockToken, String.valueOf(lockTtlMs)) == 1;
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
    redisTemplate.execute(locksmithRelease, List.of(lockKey), lockToken);
}

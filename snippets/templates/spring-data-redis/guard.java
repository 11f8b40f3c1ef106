// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally. Assumes a StringRedisTemplate `redisTemplate`;
// Java 15+ (text blocks); the enclosing method throws InterruptedException. Imports:
// java.util.List, java.util.UUID, java.util.concurrent.ThreadLocalRandom,
// org.springframework.data.redis.core.script.RedisScript.
// redisTemplate.execute runs a script by SHA1 (EVALSHA); on NOSCRIPT (script cache flushed,
// restart, failover) it sends the source with EVAL, which caches it again.
RedisScript<Long> locksmithAcquire = RedisScript.of("""
«lua:acquire»""", Long.class);
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
try {
    «body»
} finally {
    redisTemplate.execute(locksmithRelease, List.of(lockKey), lockToken);
}

// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// Assumes a StringRedisTemplate `redisTemplate`; Java 15+ (text blocks); the enclosing method
// throws InterruptedException. Imports: java.util.List, java.util.UUID,
// java.util.concurrent.ThreadLocalRandom, org.springframework.data.redis.core.script.RedisScript.
// redisTemplate.execute runs a script by SHA1 (EVALSHA); on NOSCRIPT (script cache flushed,
// restart, failover) it sends the source with EVAL, which caches it again.
RedisScript<Long> locksmithAcquire = RedisScript.of("""
«lua:acquire»""", Long.class);
RedisScript<Long> locksmithRelease = RedisScript.of("""
«lua:release»""", Long.class);
String lockKey = «key»;
String fenceKey = «fence»;
long lockTtlMs = «ttl»;
String lockToken = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid()
        + ":" + UUID.randomUUID();
long lockWaitUntil = System.nanoTime() + 10_000_000_000L; // give up after waiting 10 s
long fencingToken;
for (int attempt = 0;
        (fencingToken = redisTemplate.execute(
                locksmithAcquire, List.of(lockKey, fenceKey), lockToken, String.valueOf(lockTtlMs))) == 0;
        attempt++) {
    if (System.nanoTime() > lockWaitUntil) throw new IllegalStateException(lockKey + " is still held by another owner");
    Thread.sleep((long) (Math.min(10 * Math.pow(2, attempt), 500) * (0.5 + ThreadLocalRandom.current().nextDouble())));
}
try {
    «body»
} finally {
    redisTemplate.execute(locksmithRelease, List.of(lockKey), lockToken);
}

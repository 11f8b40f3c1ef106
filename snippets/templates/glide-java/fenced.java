// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// Valkey GLIDE runs a Script with EVALSHA and loads it again on NOSCRIPT. Assumes a GlideClient
// or GlideClusterClient `client`; Java 15+ (text blocks); the enclosing method throws
// InterruptedException and ExecutionException. Imports: glide.api.models.Script,
// glide.api.models.commands.ScriptOptions, java.util.UUID, java.util.concurrent.ThreadLocalRandom.
// Make the scripts once, then take the lock where you need it.
Script locksmithAcquire = new Script("""
«lua:acquire»""", false);
Script locksmithRelease = new Script("""
«lua:release»""", false);

String lockKey = «key»;
String fenceKey = «fence»;
long lockTtlMs = «ttl»;
String lockToken = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid()
        + ":" + UUID.randomUUID();
ScriptOptions lockAcquire =
        ScriptOptions.builder().key(lockKey).key(fenceKey).arg(lockToken).arg(String.valueOf(lockTtlMs)).build();
long lockWaitUntil = System.nanoTime() + 10_000_000_000L; // give up after waiting 10 s
long fencingToken;
for (int attempt = 0; (fencingToken = (Long) client.invokeScript(locksmithAcquire, lockAcquire).get()) == 0; attempt++) {
    if (System.nanoTime() > lockWaitUntil) throw new IllegalStateException(lockKey + " is still held by another owner");
    Thread.sleep((long) (Math.min(10 * Math.pow(2, attempt), 500) * (0.5 + ThreadLocalRandom.current().nextDouble())));
}
try {
    «body»
} finally {
    client.invokeScript(locksmithRelease, ScriptOptions.builder().key(lockKey).arg(lockToken).build()).get();
}

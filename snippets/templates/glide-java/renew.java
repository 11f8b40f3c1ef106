// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 from a
// scheduled thread while the body runs, stop renewing on release. lockLost turns true when a
// renewal fails: the lease may have passed to another owner, so stop writing. Valkey GLIDE runs a
// Script with EVALSHA and loads it again on NOSCRIPT. Assumes a GlideClient or GlideClusterClient
// `client`; Java 15+ (text blocks); the enclosing method throws InterruptedException and
// ExecutionException. Imports: glide.api.models.Script, glide.api.models.commands.ScriptOptions,
// java.util.UUID, java.util.concurrent.*, java.util.concurrent.atomic.AtomicBoolean.
// Make the scripts once, then take the lock where you need it.
Script locksmithAcquire = new Script("""
«lua:acquire»""", false);
Script locksmithExtend = new Script("""
«lua:extend»""", false);
Script locksmithRelease = new Script("""
«lua:release»""", false);

String lockKey = «key»;
long lockTtlMs = «ttl»;
String lockToken = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid()
        + ":" + UUID.randomUUID();
ScriptOptions lockAcquire = ScriptOptions.builder().key(lockKey).arg(lockToken).arg(String.valueOf(lockTtlMs)).build();
long lockWaitUntil = System.nanoTime() + 10_000_000_000L; // give up after waiting 10 s
for (int attempt = 0; (Long) client.invokeScript(locksmithAcquire, lockAcquire).get() == 0; attempt++) {
    if (System.nanoTime() > lockWaitUntil) throw new IllegalStateException(lockKey + " is still held by another owner");
    Thread.sleep((long) (Math.min(10 * Math.pow(2, attempt), 500) * (0.5 + ThreadLocalRandom.current().nextDouble())));
}
AtomicBoolean lockLost = new AtomicBoolean();
ScheduledExecutorService lockRenewer = Executors.newSingleThreadScheduledExecutor();
long lockRenewEveryMs = Math.max(1, lockTtlMs / 3);
lockRenewer.scheduleAtFixedRate(() -> {
    boolean held;
    try {
        held = (Long) client.invokeScript(locksmithExtend, lockAcquire).get() == 1; // same key, token and lease
    } catch (ExecutionException | RuntimeException error) {
        held = false; // Redis unreachable or failing: the lease may run out unseen
    } catch (InterruptedException stopped) {
        return; // stopped: the release follows
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
    client.invokeScript(locksmithRelease, ScriptOptions.builder().key(lockKey).arg(lockToken).build()).get();
}

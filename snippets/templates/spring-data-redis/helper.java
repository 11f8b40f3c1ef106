«header»

«opt:package»
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import java.util.function.Consumer;
«kinds:imports»

/**
 * Redis locks for Spring Data Redis (Java 17+): one Locksmith per StringRedisTemplate, so a bean
 * ({@code @Bean Locksmith locksmith(StringRedisTemplate redis) { return new Locksmith(redis); }})
 * or {@code new Locksmith(redis)} where it is needed. A lease is AutoCloseable:
 * {@code try (Locksmith.Lease lease = locksmith.acquire(key, Locksmith.ttlMs(10_000))) {...}}
 * takes the lock, and closing it releases it. The scripts run through the template
 * (RedisTemplate.execute: EVALSHA, and EVAL on NOSCRIPT), so its connection factory (Lettuce or
 * Jedis, standalone, Sentinel or Cluster) is the one used; not in its pipeline or MULTI, which
 * would hold the reply back. A waiter polls, never sleeping past the holder's lease: Spring Data
 * Redis has no sharded pub/sub (SSUBSCRIBE), which the release's wake-up is sent on.
 * tryAcquire tries once and never waits (null when busy); releaseLock and extendLock take a key and
 * a token.
 */
«set:error»DataAccessException
public final class Locksmith {
    static final RedisScript<Long> ACQUIRE = RedisScript.of("""
«lua:acquire»""", Long.class);
    static final RedisScript<Long> EXTEND = RedisScript.of("""
«lua:extend»""", Long.class);
    static final RedisScript<Long> RELEASE = RedisScript.of("""
«lua:release»""", Long.class);
«kinds:scripts»

    private final StringRedisTemplate redis;

    public Locksmith(StringRedisTemplate redis) {
        this.redis = Objects.requireNonNull(redis, "redis: the StringRedisTemplate the scripts run on");
    }

    /** What acquire takes: the lease, and optionally a wait, a fencing key and renewal. Immutable: each setting returns a copy. */
    public static final class Options implements Cloneable {
        long ttlMs;
        long waitMs = 10_000;
        String fenceKey;
        boolean renew;
        long retryMs = 500;
        /** The option of a part that only the plain lock takes (waitForReplicas): a lock kind refuses it. */
        String plainOnly;
«kinds:options»
        private Options() {}

        /** How long to wait for another holder to let go before LockBusyException (default 10 000; 0: try once). */
        public Options waitMs(long waitMs) {
            return with(copy -> copy.waitMs = waitMs);
        }

        /** A fencing counter key (in Cluster, with the lock key's {hash tag}): lease.fence() grows with every new holder. */
        public Options fenceKey(String fenceKey) {
            return with(copy -> copy.fenceKey = fenceKey);
        }

        /** Extend the lease every ttl/3 until release; lease.lost() turns true when that fails. */
        public Options renew() {
            return with(copy -> copy.renew = true);
        }

        /** The longest pause between two tries while waiting, jittered down to half (default 500). */
        public Options retryMs(long retryMs) {
            return with(copy -> copy.retryMs = retryMs);
        }

«include:_jvm/options-with»
    }

    /** A lease of ttlMs: how long the lock outlives a holder that dies without releasing it. */
    public static Options ttlMs(long ttlMs) {
        return new Options().with(options -> options.ttlMs = ttlMs);
    }

    /**
     * Takes the lock, waiting up to options.waitMs, then LockBusyException. Redis errors are thrown as
     * Spring translates them (DataAccessException).
     */
    public Lease acquire(String key, Options options) throws InterruptedException {
        checkMs("ttlMs", options.ttlMs, true);
        checkMs("waitMs", options.waitMs, false);
        checkMs("retryMs", options.retryMs, true);
        String token = newToken();
        long deadline = System.nanoTime() + options.waitMs * 1_000_000;
        for (;;) {
            Lease lease = attempt(key, token, options);
            if (lease != null) return lease;
            long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) throw new LockBusyException(key, options.waitMs);
            long leaseMs = Objects.requireNonNull(redis.getExpire(key, TimeUnit.MILLISECONDS), "PTTL's reply");
            Thread.sleep(pauseMs(leaseMs, leftMs, options.retryMs));
        }
    }

    /** After a busy try: the shortest of the wait left, the retry bound jittered down to half, the holder's lease + 1 ms. */
    static long pauseMs(long leaseMs, long leftMs, long retryMs) {
        long ms = Math.min((long) (retryMs * (0.5 + ThreadLocalRandom.current().nextDouble() / 2)), leftMs);
        return leaseMs == -2 ? 0 : leaseMs == -1 ? ms : Math.min(ms, leaseMs + 1); // PTTL -2: freed since; -1: no lease
    }

    /** One try, never waits: the lease, or null while another holder has the lock (try-with-resources skips a null). */
    public Lease tryAcquire(String key, Options options) {
        checkMs("ttlMs", options.ttlMs, true);
        return attempt(key, newToken(), options);
    }

    /** Compare-and-delete: deletes key while it holds token (true); false when it held another token or none. */
    public boolean releaseLock(String key, String token) {
        return run(RELEASE, List.of(key), token) == 1;
    }

    /** Compare-and-extend: sets key's lease to ttlMs while it holds token (true); false when it held another token or none. */
    public boolean extendLock(String key, String token, long ttlMs) {
        checkMs("ttlMs", ttlMs, true);
        return run(EXTEND, List.of(key), token, String.valueOf(ttlMs)) == 1;
    }

    private Lease attempt(String key, String token, Options options) {
        List<String> keys = options.fenceKey == null ? List.of(key) : List.of(key, options.fenceKey);
«kinds:attempt»
        long reply = run(ACQUIRE, keys, token, String.valueOf(options.ttlMs));
        return reply == 0 ? null : new Lease(this, key, token, options.fenceKey == null ? null : reply, options.ttlMs, options.renew);
    }

    /**
     * Runs a script through the template: its integer reply. Refused, before anything is sent, while
     * the template's connection pipelines or queues (MULTI): the reply would come too late, and a
     * lock taken then would be held by a token nobody has.
     */
    private long run(RedisScript<Long> script, List<String> keys, String... args) {
        RedisCallback<Boolean> deferred = connection -> connection.isPipelined() || connection.isQueueing();
        if (Boolean.TRUE.equals(redis.execute(deferred))) {
            throw new InvalidDataAccessApiUsageException(
                    "Locksmith cannot run in a pipeline or transaction (MULTI) of its template: a lock needs its reply at once");
        }
        return Objects.requireNonNull(redis.execute(script, keys, (Object[]) args), "a lock script's reply");
    }

    private static String newToken() {
        return System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid() + ":" + UUID.randomUUID();
    }

    static void checkMs(String name, long value, boolean positive) {
        if (value < (positive ? 1 : 0)) {
            throw new IllegalArgumentException(
                    name + " must be a " + (positive ? "positive" : "non-negative") + " integer of milliseconds, got " + value);
        }
    }

    /** The lock stayed held by another owner for the whole wait. */
    public static final class LockBusyException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final String key;
        public final long waitedMs;

        LockBusyException(String key, long waitedMs) {
            super(key + " is held by another owner; gave up after waiting " + waitedMs + " ms");
            this.key = key;
            this.waitedMs = waitedMs;
        }
    }

    /** The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable. */
    public static final class LeaseLostException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final String key;

        LeaseLostException(String key, String why, Throwable cause) {
            super("lease on " + key + " lost: " + why, cause);
            this.key = key;
        }
    }

    // One daemon thread renews every lease of the process: a renewal is one short script call.
    private static final ScheduledExecutorService RENEWER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "locksmith-renewer");
        thread.setDaemon(true);
        return thread;
    });

    /** A held lock. Closing it releases it and throws LeaseLostException if the lease was gone by then. */
    public static final class Lease implements AutoCloseable {
        private final Locksmith locksmith;
        private final String key;
        private final String token;
        private final Long fence;
        private final long ttlMs;
        private final ScheduledFuture<?> renewal;
        private volatile LeaseLostException lostReason;
        private boolean released;

        Lease(Locksmith locksmith, String key, String token, Long fence, long ttlMs, boolean renew) {
            this.locksmith = locksmith;
            this.key = key;
            this.token = token;
            this.fence = fence;
            this.ttlMs = ttlMs;
            long every = Math.max(1, ttlMs / 3);
            this.renewal = renew ? RENEWER.scheduleAtFixedRate(this::renewOnce, every, every, TimeUnit.MILLISECONDS) : null;
        }

        public String key() {
            return key;
        }

        /** This holder's owner token: the lock key's value while it is held. */
        public String token() {
            return token;
        }

        /** The fencing token with a fence key (else null): the guarded resource refuses older ones. */
        public Long fence() {
            return fence;
        }

        /** True once a renewal found the lease gone or failed: stop writing. */
        public boolean lost() {
            return lostReason != null;
        }

        /** Why the lease was lost, or null. */
        public LeaseLostException lostReason() {
            return lostReason;
        }

        /** Sets the lease to ttlMs from now; false when it is no longer held. */
        public boolean extend(long ttlMs) {
            return locksmith.extendLock(key, token, ttlMs);
        }
«kinds:lease»

        /** Stops renewing and deletes the lock if this lease still holds it; false when it no longer did. */
        public boolean release() {
            synchronized (this) { // a renewal in flight ends before the release
                if (released) return false;
                released = true;
                if (renewal != null) renewal.cancel(false);
            }
            return locksmith.releaseLock(key, token);
        }

        /** Releases; throws LeaseLostException when the lease was gone before that (another holder may have run too). */
        @Override
        public void close() {
            synchronized (this) {
                if (released) return;
            }
            if (!release()) throw new LeaseLostException(key, "it expired or was taken before release", lostReason);
        }

        private synchronized void renewOnce() {
            if (released || lostReason != null) return;
            try {
                if (extend(ttlMs)) return;
                lostReason = new LeaseLostException(key, "taken by another owner or expired", null);
            } catch (DataAccessException error) {
                lostReason = new LeaseLostException(key, "renewal failed, it may expire unseen", error);
            }
            renewal.cancel(false);
        }
    }
«kinds:code»
}

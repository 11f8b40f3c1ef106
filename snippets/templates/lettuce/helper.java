«header»

«opt:package»
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
«kinds:imports»

/**
 * Redis locks for Lettuce (Java 17+). A lease is AutoCloseable:
 * {@code try (Locksmith.Lease lease = Locksmith.acquire(redis, key, Locksmith.ttlMs(10_000))) {...}}
 * takes the lock, and closing it releases it. Takes the synchronous commands of a connection,
 * standalone or cluster (connection.sync()), which are thread-safe, so renewal shares them.
 * Given a pub/sub connection ({@code options.wakeups(client.connectPubSub())}, Lettuce 6.4+), a
 * waiter sleeps until the release wakes it (SSUBSCRIBE on the lock key, shared by the
 * connection's waiters), the holder's lease ends, or a jittered retry bound passes: a missed
 * wake-up costs at most that bound. Without one, it polls with jittered back-off.
 * tryAcquire tries once and never waits (null when busy); releaseLock and extendLock take a key and
 * a token.
 */
«set:error»RedisException
public final class Locksmith {
    private Locksmith() {}

    static final String ACQUIRE = """
«lua:acquire»""";
    static final String EXTEND = """
«lua:extend»""";
    static final String RELEASE = """
«lua:release»""";
«kinds:scripts»

    /** Runs one script: by its SHA1 (EVALSHA), and on NOSCRIPT (cache flushed, restart, failover) by its source (EVAL). */
    @FunctionalInterface
    public interface Scripts {
        Object run(String lua, List<String> keys, List<String> args);
    }

    static Scripts scripts(RedisScriptingCommands<String, String> client) {
        Scripts scripts = (lua, keys, args) -> {
            String[] keyArray = keys.toArray(String[]::new);
            String[] argArray = args.toArray(String[]::new);
            try {
                return client.evalsha(sha1(lua), ScriptOutputType.INTEGER, keyArray, argArray);
            } catch (RedisNoScriptException flushed) {
                return client.eval(lua, ScriptOutputType.INTEGER, keyArray, argArray);
            }
        };
«kinds:scripts-of»
        return scripts;
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
        StatefulRedisPubSubConnection<String, String> wakeups;
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

        /** The longest sleep between two tries while waiting, jittered down to half (default 500): the cost of a missed wake-up. */
        public Options retryMs(long retryMs) {
            return with(copy -> copy.retryMs = retryMs);
        }

        /** A pub/sub connection (client.connectPubSub(), one per application) on which waiters hear the release. */
        public Options wakeups(StatefulRedisPubSubConnection<String, String> pubsub) {
            return with(copy -> copy.wakeups = pubsub);
        }

«include:_jvm/options-with»
    }

    /** A lease of ttlMs: how long the lock outlives a holder that dies without releasing it. */
    public static Options ttlMs(long ttlMs) {
        return new Options().with(options -> options.ttlMs = ttlMs);
    }

«include:_jvm/lease»

    /** On the sync commands of a connection (standalone or cluster), which run the scripts and PTTL. */
    public static <R extends RedisScriptingCommands<String, String> & RedisKeyCommands<String, String>> Lease acquire(
            R redis, String key, Options options) throws InterruptedException {
        return acquire(scripts(redis), redis::pttl, key, options);
    }

    /**
     * Takes the lock, waiting up to options.waitMs, then LockBusyException: with options.wakeups,
     * woken by the release; without, by jittered back-off (10 ms doubling to options.retryMs, jittered down to half);
     * with leaseLeft (PTTL), never sleeping past the holder's lease. Redis errors are thrown as Lettuce throws them.
     */
    public static Lease acquire(Scripts redis, ToLongFunction<String> leaseLeft, String key, Options options)
            throws InterruptedException {
        checkMs("ttlMs", options.ttlMs, true);
        checkMs("waitMs", options.waitMs, false);
        checkMs("retryMs", options.retryMs, true);
        String token = newToken();
        long deadline = System.nanoTime() + options.waitMs * 1_000_000;
        Wakeups wakeups = null;
        try {
            for (int attempt = 0; ; attempt++) {
                Lease lease = attempt(redis, key, token, options);
                if (lease != null) return lease;
                long leftMs = (deadline - System.nanoTime()) / 1_000_000;
«kinds:busy»
                if (leftMs <= 0) throw new LockBusyException(key, options.waitMs);
                if (wakeups == null && options.wakeups != null) {
                    wakeups = Wakeups.listen(options.wakeups, key, options.retryMs);
                    continue; // a release may have gone out before the subscription: try again
                }
                double random = ThreadLocalRandom.current().nextDouble();
                double sleepMs = wakeups != null
                        ? options.retryMs * (0.5 + random / 2)
                        : Math.min(10 * Math.pow(2, Math.min(attempt, 20)), options.retryMs) * (0.5 + random / 2);
                // Never past the holder's lease: PTTL -2 (freed since) tries again at once, -1 (no lease) backs off.
                long leaseMs = leaseLeft == null ? -1 : leaseLeft.applyAsLong(key);
                if (leaseMs == -2) continue;
                long ms = Math.min((long) sleepMs, leaseMs < 0 ? leftMs : Math.min(leftMs, leaseMs + 1));
                if (wakeups != null) wakeups.await(ms);
                else Thread.sleep(ms);
            }
        } finally {
            if (wakeups != null) wakeups.close();
        }
    }

«include:_jvm/low-level»

    public static Lease tryAcquire(RedisScriptingCommands<String, String> redis, String key, Options options) {
        return tryAcquire(scripts(redis), key, options);
    }

    public static boolean releaseLock(RedisScriptingCommands<String, String> redis, String key, String token) {
        return releaseLock(scripts(redis), key, token);
    }

    public static boolean extendLock(RedisScriptingCommands<String, String> redis, String key, String token, long ttlMs) {
        return extendLock(scripts(redis), key, token, ttlMs);
    }

«include:_jvm/attempt»

    /**
     * A waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, with an empty payload
     * (one waiter per client) or "*" (all). Each waiter is a listener of the shared pub/sub
     * connection; the key stays subscribed while any waiter of the connection waits on it.
     */
    static final class Wakeups extends RedisPubSubAdapter<String, String> implements AutoCloseable {
        private static final Map<StatefulRedisPubSubConnection<String, String>, Map<String, Integer>> WAITING = new HashMap<>();
        private final StatefulRedisPubSubConnection<String, String> pubsub;
        private final String key;
        private final Semaphore woken = new Semaphore(0);

        private Wakeups(StatefulRedisPubSubConnection<String, String> pubsub, String key) {
            this.pubsub = pubsub;
            this.key = key;
        }

        /** Listens; returns once subscribed, or after patienceMs (then the retry bound covers). */
        static Wakeups listen(StatefulRedisPubSubConnection<String, String> pubsub, String key, long patienceMs)
                throws InterruptedException {
            Wakeups wakeups = new Wakeups(pubsub, key);
            pubsub.addListener(wakeups);
            try {
                // Sent under the lock, so a subscription and the unsubscription of the last waiter before go in order.
                RedisFuture<Void> subscribed = null;
                synchronized (WAITING) {
                    if (WAITING.computeIfAbsent(pubsub, connection -> new HashMap<>()).merge(key, 1, Integer::sum) == 1) {
                        subscribed = pubsub.async().ssubscribe(key);
                    }
                }
                if (subscribed != null) subscribed.get(patienceMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException | RedisException failed) {
                // a server before 7.0, no channel rights, a broken connection: the retry bound covers
            }
            return wakeups;
        }

        @Override
        public void smessage(String channel, String message) {
            if (channel.equals(key) && (message.isEmpty() || message.equals("*"))) {
                woken.drainPermits();
                woken.release();
            }
        }

        /** Returns when woken, or after ms. */
        void await(long ms) throws InterruptedException {
            if (woken.tryAcquire(ms, TimeUnit.MILLISECONDS)) woken.drainPermits();
        }

        @Override
        public void close() {
            pubsub.removeListener(this);
            synchronized (WAITING) {
                Map<String, Integer> keys = WAITING.get(pubsub);
                if (keys.merge(key, -1, Integer::sum) > 0) return;
                keys.remove(key);
                if (keys.isEmpty()) WAITING.remove(pubsub);
                pubsub.async().sunsubscribe(key);
            }
        }
    }

«include:_jvm/checks»
«kinds:code»
}

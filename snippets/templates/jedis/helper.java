«header»

«opt:package»
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ScriptingKeyCommands;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.util.Pool;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
«kinds:imports»

/**
 * Redis locks for Jedis (Java 17+). A lease is AutoCloseable:
 * {@code try (Locksmith.Lease lease = Locksmith.acquire(jedis, key, Locksmith.ttlMs(10_000))) {...}}
 * takes the lock, and closing it releases it. Takes a RedisClient / RedisClusterClient (Jedis 8),
 * a JedisPooled / JedisCluster (Jedis 4.4+) or a JedisPool. A waiter sleeps until the release
 * wakes it (SSUBSCRIBE on the lock key, on a connection and a daemon thread of its own for the
 * wait, as a Jedis subscription blocks its thread), the holder's lease ends, or a jittered retry
 * bound passes: a missed wake-up costs at most that bound. Another UnifiedJedis (no pool, no
 * sharded subscription) polls with jittered back-off.
 * tryAcquire tries once and never waits (null when busy); releaseLock and extendLock take a key and
 * a token.
 */
@SuppressWarnings("deprecation") // JedisPool, deprecated in Jedis 8, is still what many projects hold
«set:error»JedisException
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

    static Scripts scripts(JedisPool client) {
        Scripts scripts = (lua, keys, args) -> {
            try (Jedis jedis = client.getResource()) {
                return scripts(jedis).run(lua, keys, args);
            }
        };
«kinds:scripts-of»
        return scripts;
    }

    /** On a UnifiedJedis, or on one connection (a Jedis: not thread-safe, for the low-level calls, not for a renewing lease). */
    static Scripts scripts(ScriptingKeyCommands client) {
        Scripts scripts = (lua, keys, args) -> {
            try {
                return client.evalsha(sha1(lua), keys, args);
            } catch (JedisNoScriptException flushed) {
                return client.eval(lua, keys, args);
            }
        };
«kinds:scripts-of»
        return scripts;
    }

    /** Subscribes a listener to a sharded channel, blocking until it unsubscribes (Jedis's ssubscribe). */
    @FunctionalInterface
    public interface Subscriber {
        void ssubscribe(JedisShardedPubSub listener, String channel);
    }

    static Subscriber subscriber(JedisPool pool) {
        return (listener, channel) -> {
            try (Jedis jedis = pool.getResource()) {
                listener.proceed(jedis.getConnection(), channel);
            }
        };
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

        /** The longest sleep between two tries while waiting, jittered down to half (default 500): the cost of a missed wake-up. */
        public Options retryMs(long retryMs) {
            return with(copy -> copy.retryMs = retryMs);
        }

«include:_jvm/options-with»
    }

    /** A lease of ttlMs: how long the lock outlives a holder that dies without releasing it. */
    public static Options ttlMs(long ttlMs) {
        return new Options().with(options -> options.ttlMs = ttlMs);
    }

«include:_jvm/lease»

    public static Lease acquire(UnifiedJedis jedis, String key, Options options) throws InterruptedException {
        return acquire(scripts(jedis), subscriber(jedis), jedis::pttl, key, options);
    }

    /**
     * How a UnifiedJedis subscribes, found at run time so the helper compiles against Jedis 4.4 to 8:
     * a cluster client's ssubscribe (JedisCluster, RedisClusterClient), else a connection of a
     * standalone client's pool (JedisPooled, RedisClient: getPool()); null for neither.
     */
    static Subscriber subscriber(UnifiedJedis jedis) {
        try {
            Method ssubscribe = jedis.getClass().getMethod("ssubscribe", JedisShardedPubSub.class, String[].class);
            return (listener, channel) -> invoke(ssubscribe, jedis, listener, new String[] {channel});
        } catch (NoSuchMethodException standalone) {
            // below
        }
        try {
            Method getPool = jedis.getClass().getMethod("getPool");
            return (listener, channel) -> {
                try (Connection connection = (Connection) ((Pool<?>) invoke(getPool, jedis)).getResource()) {
                    listener.proceed(connection, channel);
                }
            };
        } catch (NoSuchMethodException neither) {
            return null;
        }
    }

    static Object invoke(Method method, Object target, Object... args) {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException failed) {
            throw failed.getCause() instanceof JedisException cause ? cause : new JedisException(failed.getCause());
        } catch (IllegalAccessException unexpected) {
            throw new JedisException(unexpected);
        }
    }

    public static Lease acquire(JedisPool pool, String key, Options options) throws InterruptedException {
        return acquire(scripts(pool), subscriber(pool), lock -> {
            try (Jedis jedis = pool.getResource()) {
                return jedis.pttl(lock);
            }
        }, key, options);
    }

    /** Takes the lock, polling while it waits (no subscriber). */
    public static Lease acquire(Scripts redis, String key, Options options) throws InterruptedException {
        return acquire(redis, null, null, key, options);
    }

    /**
     * Takes the lock, waiting up to options.waitMs, then LockBusyException: with a subscriber, woken
     * by the release; without one, by jittered back-off (10 ms doubling to options.retryMs, jittered down to half);
     * with leaseLeft (PTTL), never sleeping past the holder's lease. Redis errors are thrown as Jedis throws them.
     */
    public static Lease acquire(Scripts redis, Subscriber subscriber, ToLongFunction<String> leaseLeft, String key,
            Options options) throws InterruptedException {
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
                if (wakeups == null && subscriber != null) {
                    wakeups = Wakeups.listen(subscriber, key, options.retryMs);
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

    public static Lease tryAcquire(UnifiedJedis jedis, String key, Options options) {
        return tryAcquire(scripts(jedis), key, options);
    }

    public static Lease tryAcquire(JedisPool pool, String key, Options options) {
        return tryAcquire(scripts(pool), key, options);
    }

    public static boolean releaseLock(UnifiedJedis jedis, String key, String token) {
        return releaseLock(scripts(jedis), key, token);
    }

    public static boolean releaseLock(JedisPool pool, String key, String token) {
        return releaseLock(scripts(pool), key, token);
    }

    public static boolean releaseLock(Jedis jedis, String key, String token) {
        return releaseLock(scripts(jedis), key, token);
    }

    public static boolean extendLock(UnifiedJedis jedis, String key, String token, long ttlMs) {
        return extendLock(scripts(jedis), key, token, ttlMs);
    }

    public static boolean extendLock(JedisPool pool, String key, String token, long ttlMs) {
        return extendLock(scripts(pool), key, token, ttlMs);
    }

    public static boolean extendLock(Jedis jedis, String key, String token, long ttlMs) {
        return extendLock(scripts(jedis), key, token, ttlMs);
    }

«include:_jvm/attempt»

    /**
     * A waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, with an empty payload
     * (one waiter per client) or "*" (all). A daemon thread holds the subscription (Jedis's
     * ssubscribe blocks) until close() unsubscribes, which returns its connection clean.
     */
    static final class Wakeups extends JedisShardedPubSub implements AutoCloseable {
        private final Semaphore woken = new Semaphore(0);
        private final CountDownLatch subscribed = new CountDownLatch(1);
        private final AtomicBoolean closed = new AtomicBoolean();
        private final AtomicBoolean unsubscribed = new AtomicBoolean();

        /** Subscribes in a thread of its own; returns once subscribed, or after patienceMs (then the retry bound covers). */
        static Wakeups listen(Subscriber subscriber, String key, long patienceMs) throws InterruptedException {
            Wakeups wakeups = new Wakeups();
            Thread thread = new Thread(() -> {
                try {
                    subscriber.ssubscribe(wakeups, key);
                } catch (JedisException failed) {
                    // a server before 7.0, no channel rights, a broken connection: the retry bound covers
                } finally {
                    wakeups.subscribed.countDown();
                }
            }, "locksmith-wakeups " + key);
            thread.setDaemon(true);
            thread.start();
            wakeups.subscribed.await(patienceMs, TimeUnit.MILLISECONDS);
            return wakeups;
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            subscribed.countDown();
            if (closed.get()) unsubscribeOnce();
        }

        @Override
        public void onSMessage(String channel, String message) {
            if (message.isEmpty() || message.equals("*")) {
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
            closed.set(true);
            if (isSubscribed()) unsubscribeOnce();
        }

        private void unsubscribeOnce() {
            if (unsubscribed.compareAndSet(false, true)) sunsubscribe();
        }
    }

«include:_jvm/checks»
«kinds:code»
}

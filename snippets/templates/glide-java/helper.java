«header»

«opt:package»
import glide.api.BaseClient;
import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.ClusterValue;
import glide.api.models.Script;
import glide.api.models.commands.ScriptOptions;
import glide.api.models.configuration.ClusterSubscriptionConfiguration;
import glide.api.models.configuration.ClusterSubscriptionConfiguration.PubSubClusterChannelMode;
import glide.api.models.configuration.GlideClusterClientConfiguration;
import glide.api.models.exceptions.GlideException;
import glide.api.models.exceptions.RequestException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;
«kinds:imports»

/**
 * Redis locks for Valkey GLIDE for Java (Java 17+). A lease is AutoCloseable:
 * {@code try (Locksmith.Lease lease = Locksmith.acquire(client, key, Locksmith.ttlMs(10_000))) {...}}
 * takes the lock, and closing it releases it. Takes a GlideClient or a GlideClusterClient and
 * waits for GLIDE's futures, as a blocking caller does. A waiter polls with jittered back-off
 * (10 ms doubling to the retry bound, jittered down to half), or with Options.wakeups on a
 * GlideClusterClient sleeps until the release wakes it (SSUBSCRIBE on the lock key) or the jittered
 * bound passes. GLIDE 2.1 for Java has sharded pub/sub in cluster mode only and fixes a client's
 * subscriptions when it creates it: a waiter opens a subscriber client of its own for its wait.
 * tryAcquire tries once and never waits (null when busy); releaseLock and extendLock take a key and
 * a token.
 */
«set:error»GlideException
public final class Locksmith {
    private Locksmith() {}

    static final String ACQUIRE = """
«lua:acquire»""";
    static final String EXTEND = """
«lua:extend»""";
    static final String RELEASE = """
«lua:release»""";
«kinds:scripts»

    /** Runs one script: by its SHA1 (EVALSHA), and on NOSCRIPT (cache flushed, restart, failover) by its source. */
    @FunctionalInterface
    public interface Scripts {
        Object run(String lua, List<String> keys, List<String> args);
    }

    // One GLIDE Script per Lua text, made at first use and kept for the process: GLIDE holds its
    // source, runs it with EVALSHA and loads it again on NOSCRIPT.
    private static final Map<String, Script> SCRIPTS = new ConcurrentHashMap<>();

    static Scripts scripts(GlideClient client) {
        Scripts scripts = scripts(client, client::customCommand);
«kinds:scripts-of»
        return scripts;
    }

    static Scripts scripts(GlideClusterClient client) {
        Scripts scripts = scripts(client, command -> client.customCommand(command).thenApply(ClusterValue::getSingleValue));
«kinds:scripts-of»
        return scripts;
    }

    /**
     * invokeScript, and EVAL once when it still gives NOSCRIPT: a flush between GLIDE's reload and
     * its EVALSHA (SCRIPT FLUSH, a failover) beats the reload, and EVAL cannot miss.
     */
    private static Scripts scripts(BaseClient client, Function<String[], CompletableFuture<Object>> command) {
        return (lua, keys, args) -> {
            Script script = script(lua);
            try {
                return await(client.invokeScript(script, ScriptOptions.builder().keys(keys).args(args).build()));
            } catch (RequestException error) {
                if (!String.valueOf(error.getMessage()).toLowerCase(Locale.ROOT).contains("noscript")) throw error;
                List<String> eval = new ArrayList<>(List.of("EVAL", lua, String.valueOf(keys.size())));
                eval.addAll(keys);
                eval.addAll(args);
                return await(command.apply(eval.toArray(String[]::new)));
            }
        };
    }

    static Script script(String lua) {
        return SCRIPTS.computeIfAbsent(lua, source -> new Script(source, false));
    }

    /** The reply of a GLIDE call, waited for; its failure as the GlideException GLIDE gave. */
    static <T> T await(CompletableFuture<T> reply) {
        try {
            return reply.get();
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof GlideException cause ? cause : new GlideException(String.valueOf(failed.getCause()));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new GlideException("interrupted while waiting for the server's reply");
        }
    }

    /** What acquire takes: the lease, and optionally a wait, a fencing key and renewal. Immutable. */
    public static final class Options implements Cloneable {
        long ttlMs;
        long waitMs = 10_000;
        String fenceKey;
        boolean renew;
        long retryMs = 500;
        /** The option of a part that only the plain lock takes (waitForReplicas): a lock kind refuses it. */
        String plainOnly;
        Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> wakeups;
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

        /** The longest sleep between two tries while waiting, jittered down to half (default 500): how late a waiter may notice a release. */
        public Options retryMs(long retryMs) {
            return with(copy -> copy.retryMs = retryMs);
        }

        /**
         * On a GlideClusterClient, wait for the release's wake-up: configuration builds the cluster
         * client's configuration around the subscriptions given (a waiter's subscriber client), e.g.
         * {@code subscriptions -> GlideClusterClientConfiguration.builder().addresses(seeds).subscriptionConfiguration(subscriptions).build()}.
         */
        public Options wakeups(Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> configuration) {
            return with(copy -> copy.wakeups = configuration);
        }

«include:_jvm/options-with»
    }

    /** A lease of ttlMs: how long the lock outlives a holder that dies without releasing it. */
    public static Options ttlMs(long ttlMs) {
        return new Options().with(options -> options.ttlMs = ttlMs);
    }

«include:_jvm/lease»

    public static Lease acquire(GlideClient client, String key, Options options) throws InterruptedException {
        if (options.wakeups != null) {
            throw new IllegalArgumentException("wakeups need a GlideClusterClient: GLIDE has sharded pub/sub in cluster mode only");
        }
        return acquire(scripts(client), lock -> await(client.pttl(lock)), key, options);
    }

    public static Lease acquire(GlideClusterClient client, String key, Options options) throws InterruptedException {
        return acquire(scripts(client), lock -> await(client.pttl(lock)), key, options);
    }

    /**
     * Takes the lock, waiting up to options.waitMs, then LockBusyException: with options.wakeups,
     * woken by the release; without, by jittered back-off (10 ms doubling to options.retryMs,
     * jittered down to half, so waiters spread out); with leaseLeft (PTTL), never sleeping past the holder's
     * lease. Redis errors are thrown as GLIDE gives them (GlideException).
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
                if (leftMs <= 0) throw new LockBusyException(key, options.waitMs);
                if (wakeups == null && options.wakeups != null) {
                    wakeups = Wakeups.listen(options.wakeups, key, Math.min(options.retryMs, leftMs));
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

    public static Lease tryAcquire(GlideClient client, String key, Options options) {
        return tryAcquire(scripts(client), key, options);
    }

    public static Lease tryAcquire(GlideClusterClient client, String key, Options options) {
        return tryAcquire(scripts(client), key, options);
    }

    public static boolean releaseLock(GlideClient client, String key, String token) {
        return releaseLock(scripts(client), key, token);
    }

    public static boolean releaseLock(GlideClusterClient client, String key, String token) {
        return releaseLock(scripts(client), key, token);
    }

    public static boolean extendLock(GlideClient client, String key, String token, long ttlMs) {
        return extendLock(scripts(client), key, token, ttlMs);
    }

    public static boolean extendLock(GlideClusterClient client, String key, String token, long ttlMs) {
        return extendLock(scripts(client), key, token, ttlMs);
    }

«include:_jvm/attempt»

    /**
     * A waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, with an empty payload
     * (one waiter per client) or "*" (all). A subscriber client of its own, subscribed to the lock
     * key's shard channel when GLIDE creates it, closed when the wait ends.
     */
    static final class Wakeups implements AutoCloseable {
        private final Semaphore woken = new Semaphore(0);
        private final CompletableFuture<GlideClusterClient> subscriber;

        private Wakeups(Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> configuration, String key) {
            ClusterSubscriptionConfiguration subscriptions = ClusterSubscriptionConfiguration.builder()
                    .subscription(PubSubClusterChannelMode.SHARDED, key)
                    .callback((message, context) -> {
                        String payload = message.getMessage().toString();
                        if (payload.isEmpty() || payload.equals("*")) {
                            woken.drainPermits();
                            woken.release();
                        }
                    })
                    .build();
            subscriber = GlideClusterClient.createClient(configuration.apply(subscriptions));
        }

        /** Opens the subscriber; returns once subscribed, or after patienceMs (then the retry bound covers). */
        static Wakeups listen(Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> configuration,
                String key, long patienceMs) throws InterruptedException {
            Wakeups wakeups = new Wakeups(configuration, key);
            try {
                wakeups.subscriber.get(patienceMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
                // cannot connect, no channel rights, or slow: the retry bound covers
            }
            return wakeups;
        }

        /** Returns when woken, or after ms. */
        void await(long ms) throws InterruptedException {
            if (woken.tryAcquire(ms, TimeUnit.MILLISECONDS)) woken.drainPermits();
        }

        @Override
        public void close() {
            subscriber.thenAccept(opened -> {
                try {
                    opened.close();
                } catch (ExecutionException closing) {
                    // the subscriber was already gone
                }
            });
        }
    }

    // _jvm/checks's checkMs, without the SHA1 the other Java helpers send with EVALSHA: GLIDE's Script has its own.
    static void checkMs(String name, long value, boolean positive) {
        if (value < (positive ? 1 : 0)) {
            throw new IllegalArgumentException(
                    name + " must be a " + (positive ? "positive" : "non-negative") + " integer of milliseconds, got " + value);
        }
    }
«kinds:code»
}

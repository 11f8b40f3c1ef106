// Proof program for the generated Lettuce helper (Locksmith.java next to it). Usage:
//   java Proof <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for
//   waiting (as test/proofs/helpers/kinds.js, kind "lock"): woken, hold, take; the lock kinds' modes: jvm-kinds.java; the parts' modes: jvm-parts.java.
// <url> is a redis:// URL (a RedisClient), or cluster://host:port,host:port (a RedisClusterClient).
// Waiters are given a pub/sub connection of the same client. The lock and fence keys come from
// PROOF_LOCK and PROOF_FENCE (default proof:lock, proof:fence).
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Arrays;
import java.util.List;

public final class Proof {
    static final String LOCK = System.getenv().getOrDefault("PROOF_LOCK", "proof:lock");
    static final String FENCE = System.getenv().getOrDefault("PROOF_FENCE", "proof:fence");

    static AbstractRedisClient client;
    static RedisClusterCommands<String, String> redis;
    static StatefulRedisPubSubConnection<String, String> pubsub;

    static void connect(String url) {
        if (url.startsWith("cluster://")) {
            List<RedisURI> seeds = Arrays.stream(url.substring("cluster://".length()).split(","))
                    .map(seed -> RedisURI.create("redis://" + seed))
                    .toList();
            RedisClusterClient cluster = RedisClusterClient.create(seeds);
            client = cluster;
            redis = cluster.connect().sync();
            pubsub = cluster.connectPubSub();
        } else {
            RedisClient standalone = RedisClient.create(url);
            client = standalone;
            redis = standalone.connect().sync();
            pubsub = standalone.connectPubSub();
        }
    }

    static Locksmith.Options options(long ttlMs) {
        return woken(Locksmith.ttlMs(ttlMs));
    }

    /** options with the pub/sub connection waiters are woken on, when the helper carries its wakeups part (else as given: it polls). */
    static Locksmith.Options woken(Locksmith.Options options) {
        try {
            return (Locksmith.Options) Locksmith.Options.class.getMethod("wakeups", StatefulRedisPubSubConnection.class).invoke(options, pubsub);
        } catch (NoSuchMethodException coreOnly) {
            return options;
        } catch (ReflectiveOperationException failed) {
            throw new IllegalStateException(failed);
        }
    }

    static void check(boolean condition, String message) {
        if (!condition) throw new IllegalStateException(message);
    }

    static void counter(int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = Locksmith.acquire(redis, LOCK, options(30_000).waitMs(60_000))) {
                check(redis.incr("proof:occupancy") == 1, "two holders at once");
                String value = redis.get("proof:counter");
                redis.set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1));
                redis.scriptFlush(); // the next script call of every process takes the NOSCRIPT path
                redis.decr("proof:occupancy");
            }
        }
    }

    static void renew() throws InterruptedException {
        Locksmith.Lease lease = Locksmith.acquire(redis, LOCK, options(1500).renew());
        for (int step = 0; step < 50; step++) {
            Thread.sleep(100);
            check(lease.token().equals(redis.get(LOCK)), "lease lost while renewing");
        }
        check(!lease.lost(), "renewal reported a loss: " + lease.lostReason());
        check(lease.release(), "release found the lease gone");
        redis.set(LOCK, lease.token()); // no TTL: a renewal after release would add one
        Thread.sleep(1500);
        check(redis.pttl(LOCK) == -1, "still renewing after release");
        redis.del(LOCK);
        System.out.println("renewed");
    }

    static void steal() throws InterruptedException {
        Locksmith.Lease lease = Locksmith.acquire(redis, LOCK, options(900).renew());
        System.out.println("held");
        long deadline = System.currentTimeMillis() + 5000;
        while (!lease.lost()) {
            check(System.currentTimeMillis() < deadline, "no loss reported within 5 s");
            Thread.sleep(1);
        }
        long at = System.currentTimeMillis();
        check(lease.lostReason() != null, "lost without a reason");
        check(!lease.release(), "released a stolen lock");
        System.out.println("lost " + at);
    }

    static void fence(int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = Locksmith.acquire(redis, LOCK, options(5000).waitMs(60_000).fenceKey(FENCE))) {
                Thread.sleep(5);
                redis.rpush("proof:tokens", String.valueOf(lease.fence()));
            }
        }
    }

    static void busy() throws InterruptedException {
        long started = System.currentTimeMillis();
        try {
            Locksmith.acquire(redis, LOCK, options(5000).waitMs(500));
        } catch (Locksmith.LockBusyException busy) {
            System.out.println("busy " + (System.currentTimeMillis() - started) + " " + busy.getMessage());
            return;
        }
        throw new IllegalStateException("acquired a lock another owner holds");
    }

    static void woken() throws InterruptedException {
        Locksmith.Lease lease = Locksmith.acquire(redis, LOCK, options(5000).waitMs(60_000).retryMs(30_000));
        System.out.println("held " + System.currentTimeMillis());
        lease.release();
    }

    static void hold() throws InterruptedException {
        long ttlMs = Long.parseLong(System.getenv().getOrDefault("PROOF_HOLD_MS", "1000"));
        Locksmith.acquire(redis, LOCK, options(ttlMs).waitMs(0));
        System.out.println("held");
        Thread.sleep(60_000);
    }

    static void take() throws InterruptedException {
        Locksmith.Lease lease = Locksmith.acquire(redis, LOCK, options(5000));
        System.out.println("took " + System.currentTimeMillis());
        lease.release();
    }

    // The parts' modes (jvm-parts.java) take and try the lock through these.
    static Locksmith.Lease acquire(Locksmith.Options options) throws InterruptedException {
        return Locksmith.acquire(redis, LOCK, options);
    }

    static Locksmith.Lease tryAcquire(Locksmith.Options options) {
        return Locksmith.tryAcquire(redis, LOCK, options);
    }

    /** The multi part's modes' options: the lease and the pub/sub connection waiters are woken on. */
    static Locksmith.Options multiOptions(long ttlMs) {
        return options(ttlMs);
    }

    /** The client the multi part's modes (jvm-multi.java) call the helper's acquireMulti with. */
    static Object multiClient() {
        return redis;
    }

    // The lock kinds' modes (jvm-kinds.java) take their keys and count through these.
    static Locksmith.Lease acquire(String key, Locksmith.Options options) throws InterruptedException {
        return Locksmith.acquire(redis, key, woken(options));
    }

    static long incr(String key) {
        return redis.incr(key);
    }

    static long decr(String key) {
        return redis.decr(key);
    }

    static String get(String key) {
        return redis.get(key);
    }

    static void set(String key, String value) {
        redis.set(key, value);
    }

    static String hget(String key, String field) {
        return redis.hget(key, field);
    }

    /** The modes of the parts (Parts: jvm-parts.java) or lock kinds (Kinds: jvm-kinds.java), compiled only with a helper that carries them. */
    static void modes(String program, String mode, String arg) {
        try {
            Class.forName(program).getDeclaredMethod("run", String.class, String.class).invoke(null, mode, arg);
        } catch (ClassNotFoundException coreOnly) {
            throw new IllegalArgumentException("unknown mode " + mode + " " + arg + " in this helper");
        } catch (ReflectiveOperationException failed) {
            throw new IllegalStateException(failed.getCause() != null ? failed.getCause() : failed);
        }
    }

    public static void main(String[] argv) throws InterruptedException {
        String mode = argv[1];
        String arg = argv.length > 2 ? argv[2] : "1";
        boolean lock = arg.equals("lock") || arg.matches("\\d+");
        connect(argv[0]);
        switch (lock ? mode : "kind") {
            case "counter" -> counter(Integer.parseInt(arg));
            case "fence" -> fence(Integer.parseInt(arg));
            case "renew" -> renew();
            case "steal" -> steal();
            case "busy" -> busy();
            case "woken" -> woken();
            case "hold" -> hold();
            case "take" -> take();
            case "kind", "reentrant", "rw-reader", "rw-writer", "semaphore" -> modes("Kinds", mode, arg);
            default -> modes("Parts", mode, arg);
        }
        // Lettuce's event loops keep the JVM alive: end now, as the other programs do.
        System.exit(0);
    }
}

// Proof program for the generated Jedis helper (Locksmith.java next to it). Usage:
//   java Proof <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for
//   waiting (as test/proofs/helpers/kinds.js, kind "lock"): woken, hold, take; the lock kinds' modes: jvm-kinds.java; the parts' modes: jvm-parts.java.
// <url> is a redis:// URL (a RedisClient, Jedis 7+'s JedisPooled), or cluster://host:port,host:port
// (a RedisClusterClient). The
// lock and fence keys come from PROOF_LOCK and PROOF_FENCE (default proof:lock, proof:fence).
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

public final class Proof {
    static final String LOCK = System.getenv().getOrDefault("PROOF_LOCK", "proof:lock");
    static final String FENCE = System.getenv().getOrDefault("PROOF_FENCE", "proof:fence");

    static UnifiedJedis connect(String url) {
        if (url.startsWith("cluster://")) {
            Set<HostAndPort> seeds = Arrays.stream(url.substring("cluster://".length()).split(","))
                    .map(HostAndPort::from)
                    .collect(Collectors.toSet());
            return RedisClusterClient.create(seeds);
        }
        return RedisClient.create(url);
    }

    static void check(boolean condition, String message) {
        if (!condition) throw new IllegalStateException(message);
    }

    static void counter(UnifiedJedis jedis, int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(30_000).waitMs(60_000))) {
                check(jedis.incr("proof:occupancy") == 1, "two holders at once");
                String value = jedis.get("proof:counter");
                jedis.set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1));
                jedis.scriptFlush(); // the next script call of every process takes the NOSCRIPT path
                jedis.decr("proof:occupancy");
            }
        }
    }

    static void renew(UnifiedJedis jedis) throws InterruptedException {
        Locksmith.Lease lease = Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(1500).renew());
        for (int step = 0; step < 50; step++) {
            Thread.sleep(100);
            check(lease.token().equals(jedis.get(LOCK)), "lease lost while renewing");
        }
        check(!lease.lost(), "renewal reported a loss: " + lease.lostReason());
        check(lease.release(), "release found the lease gone");
        jedis.set(LOCK, lease.token()); // no TTL: a renewal after release would add one
        Thread.sleep(1500);
        check(jedis.pttl(LOCK) == -1, "still renewing after release");
        jedis.del(LOCK);
        System.out.println("renewed");
    }

    static void steal(UnifiedJedis jedis) throws InterruptedException {
        Locksmith.Lease lease = Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(900).renew());
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

    static void fence(UnifiedJedis jedis, int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(5000).waitMs(60_000).fenceKey(FENCE))) {
                Thread.sleep(5);
                jedis.rpush("proof:tokens", String.valueOf(lease.fence()));
            }
        }
    }

    static void busy(UnifiedJedis jedis) throws InterruptedException {
        long started = System.currentTimeMillis();
        try {
            Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(5000).waitMs(500));
        } catch (Locksmith.LockBusyException busy) {
            System.out.println("busy " + (System.currentTimeMillis() - started) + " " + busy.getMessage());
            return;
        }
        throw new IllegalStateException("acquired a lock another owner holds");
    }

    static void woken(UnifiedJedis jedis) throws InterruptedException {
        try (Locksmith.Lease lease = Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(5000).waitMs(60_000).retryMs(30_000))) {
            System.out.println("held " + System.currentTimeMillis());
        }
    }

    static void hold(UnifiedJedis jedis) throws InterruptedException {
        long ttlMs = Long.parseLong(System.getenv().getOrDefault("PROOF_HOLD_MS", "1000"));
        Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(ttlMs).waitMs(0));
        System.out.println("held");
        Thread.sleep(60_000);
    }

    static void take(UnifiedJedis jedis) throws InterruptedException {
        try (Locksmith.Lease lease = Locksmith.acquire(jedis, LOCK, Locksmith.ttlMs(5000))) {
            System.out.println("took " + System.currentTimeMillis());
        }
    }

    // The parts' modes (jvm-parts.java) take and try the lock through these.
    static UnifiedJedis client;

    static Locksmith.Lease acquire(Locksmith.Options options) throws InterruptedException {
        return Locksmith.acquire(client, LOCK, options);
    }

    static Locksmith.Lease tryAcquire(Locksmith.Options options) {
        return Locksmith.tryAcquire(client, LOCK, options);
    }

    /** The multi part's modes' options: the lease. */
    static Locksmith.Options multiOptions(long ttlMs) {
        return Locksmith.ttlMs(ttlMs);
    }

    /** The client the multi part's modes (jvm-multi.java) call the helper's acquireMulti with. */
    static Object multiClient() {
        return client;
    }

    // The lock kinds' modes (jvm-kinds.java) take their keys and count through these.
    static Locksmith.Lease acquire(String key, Locksmith.Options options) throws InterruptedException {
        return Locksmith.acquire(client, key, options);
    }

    static long incr(String key) {
        return client.incr(key);
    }

    static long decr(String key) {
        return client.decr(key);
    }

    static String get(String key) {
        return client.get(key);
    }

    static void set(String key, String value) {
        client.set(key, value);
    }

    static String hget(String key, String field) {
        return client.hget(key, field);
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
        try (UnifiedJedis jedis = connect(argv[0])) {
            client = jedis;
            switch (lock ? mode : "kind") {
                case "counter" -> counter(jedis, Integer.parseInt(arg));
                case "fence" -> fence(jedis, Integer.parseInt(arg));
                case "renew" -> renew(jedis);
                case "steal" -> steal(jedis);
                case "busy" -> busy(jedis);
                case "woken" -> woken(jedis);
                case "hold" -> hold(jedis);
                case "take" -> take(jedis);
                case "kind", "reentrant", "rw-reader", "rw-writer", "semaphore" -> modes("Kinds", mode, arg);
                default -> modes("Parts", mode, arg);
            }
        }
        // Jedis's and the helper's threads are daemons or pooled: end now, as the other programs do.
        System.exit(0);
    }
}

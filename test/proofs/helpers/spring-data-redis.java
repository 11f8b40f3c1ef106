// Proof program for the generated Spring Data Redis helper (Locksmith.java next to it). Usage:
//   java Proof <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for
//   waiting (as test/proofs/helpers/kinds.js, kind "lock" only): hold, take; and deferred: calls
//   in the template's pipeline and MULTI, which the helper refuses; the parts' modes: jvm-parts.java.
// <url> is a redis:// URL, or cluster://host:port,host:port (a RedisClusterConfiguration): a
// StringRedisTemplate over a LettuceConnectionFactory, as Spring Boot configures one, without the
// Boot context. The lock and fence keys come from PROOF_LOCK and PROOF_FENCE (default proof:lock,
// proof:fence).
import org.springframework.dao.InvalidDataAccessApiUsageException;
import java.util.Arrays;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

public final class Proof {
    static final String LOCK = System.getenv().getOrDefault("PROOF_LOCK", "proof:lock");
    static final String FENCE = System.getenv().getOrDefault("PROOF_FENCE", "proof:fence");

    static StringRedisTemplate redis;
    static Locksmith locksmith;

    static void connect(String url) {
        LettuceConnectionFactory factory = url.startsWith("cluster://")
                ? new LettuceConnectionFactory(
                        new RedisClusterConfiguration(Arrays.asList(url.substring("cluster://".length()).split(","))))
                : new LettuceConnectionFactory(LettuceConnectionFactory.createRedisConfiguration(url));
        factory.afterPropertiesSet();
        factory.start();
        redis = new StringRedisTemplate(factory);
        locksmith = new Locksmith(redis);
    }

    static void check(boolean condition, String message) {
        if (!condition) throw new IllegalStateException(message);
    }

    static void scriptFlush() {
        redis.execute((RedisCallback<Void>) (RedisConnection connection) -> {
            connection.scriptingCommands().scriptFlush();
            return null;
        });
    }

    static void counter(int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = locksmith.acquire(LOCK, Locksmith.ttlMs(30_000).waitMs(60_000))) {
                check(redis.opsForValue().increment("proof:occupancy") == 1, "two holders at once");
                String value = redis.opsForValue().get("proof:counter");
                redis.opsForValue().set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1));
                scriptFlush(); // the next script call of every process takes the NOSCRIPT path
                redis.opsForValue().decrement("proof:occupancy");
            }
        }
    }

    static void renew() throws InterruptedException {
        Locksmith.Lease lease = locksmith.acquire(LOCK, Locksmith.ttlMs(1500).renew());
        for (int step = 0; step < 50; step++) {
            Thread.sleep(100);
            check(lease.token().equals(redis.opsForValue().get(LOCK)), "lease lost while renewing");
        }
        check(!lease.lost(), "renewal reported a loss: " + lease.lostReason());
        check(lease.release(), "release found the lease gone");
        redis.opsForValue().set(LOCK, lease.token()); // no TTL: a renewal after release would add one
        Thread.sleep(1500);
        check(redis.getExpire(LOCK) == -1, "still renewing after release");
        redis.delete(LOCK);
        System.out.println("renewed");
    }

    static void steal() throws InterruptedException {
        Locksmith.Lease lease = locksmith.acquire(LOCK, Locksmith.ttlMs(900).renew());
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
            try (Locksmith.Lease lease = locksmith.acquire(LOCK, Locksmith.ttlMs(5000).waitMs(60_000).fenceKey(FENCE))) {
                Thread.sleep(5);
                redis.opsForList().rightPush("proof:tokens", String.valueOf(lease.fence()));
            }
        }
    }

    static void busy() throws InterruptedException {
        check(locksmith.tryAcquire(LOCK, Locksmith.ttlMs(5000)) == null, "tryAcquire took a lock another owner holds");
        long started = System.currentTimeMillis();
        try {
            locksmith.acquire(LOCK, Locksmith.ttlMs(5000).waitMs(500));
        } catch (Locksmith.LockBusyException busy) {
            System.out.println("busy " + (System.currentTimeMillis() - started) + " " + busy.getMessage());
            return;
        }
        throw new IllegalStateException("acquired a lock another owner holds");
    }

    static void hold() throws InterruptedException {
        long ttlMs = Long.parseLong(System.getenv().getOrDefault("PROOF_HOLD_MS", "1000"));
        locksmith.acquire(LOCK, Locksmith.ttlMs(ttlMs).waitMs(0));
        System.out.println("held");
        Thread.sleep(60_000);
    }

    static void take() throws InterruptedException {
        Locksmith.Lease lease = locksmith.acquire(LOCK, Locksmith.ttlMs(5000));
        System.out.println("took " + System.currentTimeMillis());
        lease.release();
    }

    /** Runs `session` on the template's connection, bound to this thread as Spring binds it. */
    static void inSession(Runnable session, boolean pipelined) {
        SessionCallback<Object> callback = new SessionCallback<>() {
            @Override
            public <K, V> Object execute(RedisOperations<K, V> operations) {
                if (!pipelined) operations.multi();
                session.run();
                if (!pipelined) operations.discard();
                return null;
            }
        };
        if (pipelined) redis.executePipelined(callback);
        else redis.execute(callback);
    }

    static void refused(String where, Runnable call) {
        try {
            call.run();
        } catch (InvalidDataAccessApiUsageException refused) {
            System.out.println(where + " refused: " + refused.getMessage());
            return;
        }
        throw new IllegalStateException("a lock call ran in a " + where);
    }

    static void deferred() {
        for (boolean pipelined : new boolean[] {true, false}) {
            String where = pipelined ? "pipeline" : "multi";
            inSession(() -> {
                refused(where + " tryAcquire", () -> locksmith.tryAcquire(LOCK, Locksmith.ttlMs(5000)));
                refused(where + " releaseLock", () -> locksmith.releaseLock(LOCK, "token"));
                refused(where + " extendLock", () -> locksmith.extendLock(LOCK, "token", 5000));
            }, pipelined);
        }
    }

    // The parts' modes (jvm-parts.java) take and try the lock through these.
    static Locksmith.Lease acquire(Locksmith.Options options) throws InterruptedException {
        return locksmith.acquire(LOCK, options);
    }

    static Locksmith.Lease tryAcquire(Locksmith.Options options) {
        return locksmith.tryAcquire(LOCK, options);
    }

    /** The Locksmith the multi part's modes (jvm-multi.java) call acquireMulti on. */
    static Object multiClient() {
        return locksmith;
    }

    /** The multi part's modes' options: the lease. */
    static Locksmith.Options multiOptions(long ttlMs) {
        return Locksmith.ttlMs(ttlMs);
    }

    // The multi part's modes count and move money through these.
    static long incr(String key) {
        return redis.opsForValue().increment(key);
    }

    static long decr(String key) {
        return redis.opsForValue().decrement(key);
    }

    static String get(String key) {
        return redis.opsForValue().get(key);
    }

    static void set(String key, String value) {
        redis.opsForValue().set(key, value);
    }

    /** The parts' modes (jvm-parts.java), compiled only with a helper that carries the parts. */
    static void parts(String mode, String arg) {
        try {
            Class.forName("Parts").getDeclaredMethod("run", String.class, String.class).invoke(null, mode, arg);
        } catch (ClassNotFoundException coreOnly) {
            throw new IllegalArgumentException("unknown mode " + mode);
        } catch (ReflectiveOperationException failed) {
            throw new IllegalStateException(failed.getCause() != null ? failed.getCause() : failed);
        }
    }

    public static void main(String[] argv) throws InterruptedException {
        String mode = argv[1];
        String arg = argv.length > 2 ? argv[2] : "1";
        check(arg.equals("lock") || arg.matches("\\d+"), "no kind " + arg + " in this helper");
        connect(argv[0]);
        switch (mode) {
            case "counter" -> counter(Integer.parseInt(arg));
            case "fence" -> fence(Integer.parseInt(arg));
            case "renew" -> renew();
            case "steal" -> steal();
            case "busy" -> busy();
            case "hold" -> hold();
            case "take" -> take();
            case "deferred" -> deferred();
            default -> parts(mode, arg);
        }
        // Lettuce's event loops keep the JVM alive: end now, as the other programs do.
        System.exit(0);
    }
}

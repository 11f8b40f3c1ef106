// Proof program for the generated Valkey GLIDE for Java helper (Locksmith.java next to it). Usage:
//   java Proof <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, hold, take,
//   and on a Cluster woken (as test/proofs/helpers/jedis.java; kind "lock" only). <url> is a redis:// URL (a GlideClient)
//   or cluster://host:port,host:port (a GlideClusterClient). The lock and fence keys come from
//   PROOF_LOCK and PROOF_FENCE (default proof:lock, proof:fence).
import glide.api.BaseClient;
import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.configuration.AdvancedGlideClientConfiguration;
import glide.api.models.configuration.AdvancedGlideClusterClientConfiguration;
import glide.api.models.configuration.ClusterSubscriptionConfiguration;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.GlideClusterClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

public final class Proof {
    static final String LOCK = System.getenv().getOrDefault("PROOF_LOCK", "proof:lock");
    static final String FENCE = System.getenv().getOrDefault("PROOF_FENCE", "proof:fence");

    /** One of the two: the helper has an overload for each client type. */
    static GlideClient standalone;
    static GlideClusterClient cluster;
    static BaseClient client;
    static List<NodeAddress> seeds;

    // GLIDE's default request and connection timeouts (250 ms) are shorter than a shared 2-core
    // machine running 20 of these JVMs and 3 masters takes to answer now and then: the proof gives 5 s.
    static final int TIMEOUT_MS = 5000;

    static void connect(String url) throws Exception {
        if (url.startsWith("cluster://")) {
            seeds = Arrays.stream(url.substring("cluster://".length()).split(","))
                    .map(seed -> seed.split(":"))
                    .map(hostPort -> NodeAddress.builder().host(hostPort[0]).port(Integer.parseInt(hostPort[1])).build())
                    .toList();
            cluster = GlideClusterClient.createClient(GlideClusterClientConfiguration.builder()
                            .addresses(seeds)
                            .requestTimeout(TIMEOUT_MS)
                            .advancedConfiguration(AdvancedGlideClusterClientConfiguration.builder()
                                    .connectionTimeout(TIMEOUT_MS)
                                    .build())
                            .build())
                    .get();
            client = cluster;
        } else {
            URI uri = URI.create(url);
            NodeAddress address = NodeAddress.builder().host(uri.getHost()).port(uri.getPort()).build();
            standalone = GlideClient.createClient(GlideClientConfiguration.builder()
                            .address(address)
                            .requestTimeout(TIMEOUT_MS)
                            .advancedConfiguration(AdvancedGlideClientConfiguration.builder()
                                    .connectionTimeout(TIMEOUT_MS)
                                    .build())
                            .build())
                    .get();
            client = standalone;
        }
    }

    static Locksmith.Lease acquire(Locksmith.Options options) throws InterruptedException {
        return standalone != null ? Locksmith.acquire(standalone, LOCK, options) : Locksmith.acquire(cluster, LOCK, options);
    }

    static Locksmith.Lease tryAcquire(Locksmith.Options options) {
        return standalone != null ? Locksmith.tryAcquire(standalone, LOCK, options) : Locksmith.tryAcquire(cluster, LOCK, options);
    }

    /** A waiter's subscriber client on the Cluster: the proof's seeds and timeouts, with the subscriptions given. */
    static GlideClusterClientConfiguration subscriber(ClusterSubscriptionConfiguration subscriptions) {
        return GlideClusterClientConfiguration.builder()
                .addresses(seeds)
                .requestTimeout(TIMEOUT_MS)
                .advancedConfiguration(AdvancedGlideClusterClientConfiguration.builder().connectionTimeout(TIMEOUT_MS).build())
                .subscriptionConfiguration(subscriptions)
                .build();
    }

    /** options with a subscriber client per wait, when the helper carries its wakeups part (else as given: it polls). */
    static Locksmith.Options woken(Locksmith.Options options) {
        Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> configuration = Proof::subscriber;
        try {
            return (Locksmith.Options) Locksmith.Options.class.getMethod("wakeups", Function.class).invoke(options, configuration);
        } catch (NoSuchMethodException coreOnly) {
            return options;
        } catch (ReflectiveOperationException failed) {
            throw new IllegalStateException(failed);
        }
    }

    /** The client the multi part's modes (jvm-multi.java) call the helper's acquireMulti with. */
    static Object multiClient() {
        return client;
    }

    /** The multi part's modes' options: the lease, and on a Cluster the waiters' wake-ups. */
    static Locksmith.Options multiOptions(long ttlMs) {
        return cluster != null ? woken(Locksmith.ttlMs(ttlMs)) : Locksmith.ttlMs(ttlMs);
    }

    // The multi part's modes count and move money through these.
    static long incr(String key) {
        return await(client.incr(key));
    }

    static long decr(String key) {
        return await(client.decr(key));
    }

    static String get(String key) {
        return await(client.get(key));
    }

    static void set(String key, String value) {
        await(client.set(key, value));
    }

    static <T> T await(CompletableFuture<T> reply) {
        try {
            return reply.get();
        } catch (InterruptedException | ExecutionException failed) {
            throw new IllegalStateException(failed);
        }
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

    static void check(boolean condition, String message) {
        if (!condition) throw new IllegalStateException(message);
    }

    static void counter(int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = acquire(Locksmith.ttlMs(30_000).waitMs(60_000))) {
                check(client.incr("proof:occupancy").get() == 1, "two holders at once");
                String value = client.get("proof:counter").get();
                client.set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1)).get();
                // The next script call of every process takes the NOSCRIPT path.
                (standalone != null ? standalone.scriptFlush() : cluster.scriptFlush()).get();
                client.decr("proof:occupancy").get();
            }
        }
    }

    static void renew() throws Exception {
        Locksmith.Lease lease = acquire(Locksmith.ttlMs(1500).renew());
        for (int step = 0; step < 50; step++) {
            Thread.sleep(100);
            check(lease.token().equals(client.get(LOCK).get()), "lease lost while renewing");
        }
        check(!lease.lost(), "renewal reported a loss: " + lease.lostReason());
        check(lease.release(), "release found the lease gone");
        client.set(LOCK, lease.token()).get(); // no TTL: a renewal after release would add one
        Thread.sleep(1500);
        check(client.pttl(LOCK).get() == -1, "still renewing after release");
        client.del(new String[] {LOCK}).get();
        System.out.println("renewed");
    }

    static void steal() throws Exception {
        Locksmith.Lease lease = acquire(Locksmith.ttlMs(900).renew());
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

    static void fence(int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = acquire(Locksmith.ttlMs(5000).waitMs(60_000).fenceKey(FENCE))) {
                Thread.sleep(5);
                client.rpush("proof:tokens", new String[] {String.valueOf(lease.fence())}).get();
            }
        }
    }

    static void busy() throws InterruptedException {
        long started = System.currentTimeMillis();
        try {
            acquire(Locksmith.ttlMs(5000).waitMs(500));
        } catch (Locksmith.LockBusyException busy) {
            System.out.println("busy " + (System.currentTimeMillis() - started) + " " + busy.getMessage());
            return;
        }
        throw new IllegalStateException("acquired a lock another owner holds");
    }

    /** A Cluster waiter with a 30 s retry bound, woken by the release through its own subscriber client. */
    static void woken() throws InterruptedException {
        Locksmith.Options options = woken(Locksmith.ttlMs(5000).waitMs(60_000).retryMs(30_000));
        try (Locksmith.Lease lease = acquire(options)) {
            System.out.println("held " + System.currentTimeMillis());
        }
    }

    static void hold() throws InterruptedException {
        long ttlMs = Long.parseLong(System.getenv().getOrDefault("PROOF_HOLD_MS", "1000"));
        acquire(Locksmith.ttlMs(ttlMs).waitMs(0));
        System.out.println("held");
        Thread.sleep(60_000);
    }

    static void take() throws InterruptedException {
        try (Locksmith.Lease lease = acquire(Locksmith.ttlMs(5000))) {
            System.out.println("took " + System.currentTimeMillis());
        }
    }

    public static void main(String[] argv) throws Exception {
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
            case "woken" -> woken();
            default -> parts(mode, arg);
        }
        client.close();
        // GLIDE's and the helper's threads would keep the JVM alive: end now, as the other programs do.
        System.exit(0);
    }
}

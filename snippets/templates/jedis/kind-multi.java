«include:_jvm/kind-multi»

    /**
     * Takes every lock in keys, all or none, waiting up to options.waitMs (pausing as acquire does),
     * then LockBusyException naming a busy key.
     * {@code try (Locksmith.MultiLease lease = Locksmith.acquireMulti(jedis, List.of(from, to), Locksmith.ttlMs(10_000))) {...}}
     */
    public static MultiLease acquireMulti(UnifiedJedis jedis, List<String> keys, Options options) throws InterruptedException {
        try (Waiting waiting = new Waiting()) {
            Pause pause = (busy, leaseMs, leftMs) -> waiting.pause(jedis, options, busy, leaseMs, leftMs);
            return acquireMulti(scripts(jedis), isCluster(jedis), pause, keys, options);
        }
    }

    public static MultiLease acquireMulti(JedisPool pool, List<String> keys, Options options) throws InterruptedException {
        try (Waiting waiting = new Waiting()) {
            Pause pause = (busy, leaseMs, leftMs) -> waiting.pause(pool, options, busy, leaseMs, leftMs);
            return acquireMulti(scripts(pool), false, pause, keys, options);
        }
    }

    /** One pass, never waits: the lease, or null while a key is held by another owner (none of them left held). */
    public static MultiLease tryAcquireMulti(UnifiedJedis jedis, List<String> keys, Options options) {
        return tryAcquireMulti(scripts(jedis), isCluster(jedis), keys, options);
    }

    public static MultiLease tryAcquireMulti(JedisPool pool, List<String> keys, Options options) {
        return tryAcquireMulti(scripts(pool), false, keys, options);
    }

    /** A cluster client (JedisCluster, RedisClusterClient) keeps keys of different slots apart: found at run time. */
    static boolean isCluster(UnifiedJedis jedis) {
        try {
            jedis.getClass().getMethod("getClusterNodes");
            return true;
        } catch (NoSuchMethodException standalone) {
            return false;
        }
    }

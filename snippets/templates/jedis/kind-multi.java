«include:_jvm/kind-multi»

    /**
     * Takes every lock in keys, all or none, waiting up to options.waitMs (woken by a busy key's
     * release, as acquire is), then LockBusyException naming a busy key: see the Scripts overload.
     * {@code try (Locksmith.MultiLease lease = Locksmith.acquireMulti(jedis, List.of(from, to), Locksmith.ttlMs(10_000))) {...}}
     */
    public static MultiLease acquireMulti(UnifiedJedis jedis, List<String> keys, Options options) throws InterruptedException {
        Subscriber subscriber = subscriber(jedis);
        return acquireMulti(scripts(jedis), isCluster(jedis), subscriber == null ? null : multiWakeups(subscriber), keys, options);
    }

    public static MultiLease acquireMulti(JedisPool pool, List<String> keys, Options options) throws InterruptedException {
        return acquireMulti(scripts(pool), false, multiWakeups(subscriber(pool)), keys, options);
    }

    /** One pass, never waits: the lease, or null while a key is held by another owner (none of them left held). */
    public static MultiLease tryAcquireMulti(UnifiedJedis jedis, List<String> keys, Options options) {
        return tryAcquireMulti(scripts(jedis), isCluster(jedis), keys, options);
    }

    public static MultiLease tryAcquireMulti(JedisPool pool, List<String> keys, Options options) {
        return tryAcquireMulti(scripts(pool), false, keys, options);
    }

    static MultiWakeups multiWakeups(Subscriber subscriber) {
        return (key, patienceMs) -> {
            Wakeups wakeups = Wakeups.listen(subscriber, key, patienceMs);
            return new MultiWait(key, wakeups::await, wakeups::close);
        };
    }

    /** A cluster client (JedisCluster, RedisClusterClient) keeps keys of different slots apart: found at run time, as subscriber does. */
    static boolean isCluster(UnifiedJedis jedis) {
        try {
            jedis.getClass().getMethod("getClusterNodes");
            return true;
        } catch (NoSuchMethodException standalone) {
            return false;
        }
    }

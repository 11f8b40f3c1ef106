«section:imports»
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
«include:_jvm/kind-multi»

    /**
     * Takes every lock in keys, all or none, waiting up to options.waitMs (pausing as acquire does),
     * then LockBusyException naming a busy key; on a cluster connection's commands, slot by slot.
     * {@code try (Locksmith.MultiLease lease = Locksmith.acquireMulti(redis, List.of(from, to), Locksmith.ttlMs(10_000))) {...}}
     */
    public static MultiLease acquireMulti(RedisScriptingCommands<String, String> redis, List<String> keys, Options options)
            throws InterruptedException {
        try (Waiting waiting = new Waiting()) {
            Pause pause = (busy, leaseMs, leftMs) -> waiting.pause(redis, options, busy, leaseMs, leftMs);
            return acquireMulti(multiScripts(redis), redis instanceof RedisAdvancedClusterCommands, pause, keys, options);
        }
    }

    /** One pass, never waits: the lease, or null while a key is held by another owner (none of them left held). */
    public static MultiLease tryAcquireMulti(RedisScriptingCommands<String, String> redis, List<String> keys, Options options) {
        return tryAcquireMulti(multiScripts(redis), redis instanceof RedisAdvancedClusterCommands, keys, options);
    }

    /** scripts(redis), with multi_acquire's reply read as the list it is (Lettuce needs the output type up front). */
    static Scripts multiScripts(RedisScriptingCommands<String, String> redis) {
        Scripts integers = scripts(redis);
        return (lua, keys, args) -> {
            if (!lua.equals(MULTI_ACQUIRE)) return integers.run(lua, keys, args);
            String[] keyArray = keys.toArray(String[]::new);
            String[] argArray = args.toArray(String[]::new);
            try {
                return redis.evalsha(sha1(lua), ScriptOutputType.MULTI, keyArray, argArray);
            } catch (RedisNoScriptException flushed) {
                return redis.eval(lua, ScriptOutputType.MULTI, keyArray, argArray);
            }
        };
    }

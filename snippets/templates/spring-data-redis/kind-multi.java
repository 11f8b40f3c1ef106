«section:imports»
import org.springframework.data.redis.connection.RedisClusterConnection;
«include:_jvm/kind-multi»

    /** Runs one of the multi-key lock's scripts, its reply as the template decodes it. */
    @FunctionalInterface
    interface Scripts {
        Object run(String lua, List<String> keys, List<String> args);
    }

    @SuppressWarnings("rawtypes") // multi_acquire replies with a list of integers
    static final RedisScript<List> MULTI_ACQUIRE_SCRIPT = RedisScript.of(MULTI_ACQUIRE, List.class);
    static final RedisScript<Long> MULTI_EXTEND_SCRIPT = RedisScript.of(MULTI_EXTEND, Long.class);
    static final RedisScript<Long> MULTI_RELEASE_SCRIPT = RedisScript.of(MULTI_RELEASE, Long.class);

    /**
     * Takes every lock in keys, all or none, waiting up to options.waitMs (pausing as acquire does),
     * then LockBusyException naming a busy key; on a cluster connection, slot by slot: see the
     * Scripts overload. {@code try (Locksmith.MultiLease lease = locksmith.acquireMulti(List.of(from, to), Locksmith.ttlMs(10_000))) {...}}
     */
    public MultiLease acquireMulti(List<String> keys, Options options) throws InterruptedException {
        Pause pause = (busy, leaseMs, leftMs) -> Thread.sleep(pauseMs(leaseMs, leftMs, options.retryMs));
        return acquireMulti(this::runMulti, isCluster(), pause, keys, options);
    }

    /** One pass, never waits: the lease, or null while a key is held by another owner (none of them left held). */
    public MultiLease tryAcquireMulti(List<String> keys, Options options) {
        return tryAcquireMulti(this::runMulti, isCluster(), keys, options);
    }

    /** Whether the template's connection is a cluster's (keys of different slots live apart); nothing is sent. */
    private boolean isCluster() {
        return Boolean.TRUE.equals(redis.execute((RedisCallback<Boolean>) connection -> connection instanceof RedisClusterConnection));
    }

    /** The scripts through the template, refused in its pipeline or MULTI as run refuses them. */
    private Object runMulti(String lua, List<String> keys, List<String> args) {
        String[] values = args.toArray(String[]::new);
        if (!lua.equals(MULTI_ACQUIRE)) return run(lua.equals(MULTI_EXTEND) ? MULTI_EXTEND_SCRIPT : MULTI_RELEASE_SCRIPT, keys, values);
        RedisCallback<Boolean> deferred = connection -> connection.isPipelined() || connection.isQueueing();
        if (Boolean.TRUE.equals(redis.execute(deferred))) {
            throw new InvalidDataAccessApiUsageException(
                    "Locksmith cannot run in a pipeline or transaction (MULTI) of its template: a lock needs its reply at once");
        }
        return Objects.requireNonNull(redis.execute(MULTI_ACQUIRE_SCRIPT, keys, (Object[]) values), "multi_acquire's reply");
    }

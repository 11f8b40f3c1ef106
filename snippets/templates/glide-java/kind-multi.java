«include:_jvm/kind-multi»

    /**
     * Takes every lock in keys, all or none, waiting up to options.waitMs (pausing as acquire does),
     * then LockBusyException naming a busy key; on a GlideClusterClient, slot by slot.
     * {@code try (Locksmith.MultiLease lease = Locksmith.acquireMulti(client, List.of(from, to), Locksmith.ttlMs(10_000))) {...}}
     */
    public static MultiLease acquireMulti(BaseClient client, List<String> keys, Options options) throws InterruptedException {
        try (Waiting waiting = new Waiting()) {
            Pause pause = (busy, leaseMs, leftMs) -> waiting.pause(client, options, busy, leaseMs, leftMs);
            return acquireMulti(scripts(client), client instanceof GlideClusterClient, pause, keys, options);
        }
    }

    /** One pass, never waits: the lease, or null while a key is held by another owner (none of them left held). */
    public static MultiLease tryAcquireMulti(BaseClient client, List<String> keys, Options options) {
        return tryAcquireMulti(scripts(client), client instanceof GlideClusterClient, keys, options);
    }

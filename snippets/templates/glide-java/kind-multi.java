«include:_jvm/kind-multi»

    /**
     * Takes every lock in keys, all or none, waiting up to options.waitMs (back-off, as acquire),
     * then LockBusyException naming a busy key: see the Scripts overload.
     * {@code try (Locksmith.MultiLease lease = Locksmith.acquireMulti(client, List.of(from, to), Locksmith.ttlMs(10_000))) {...}}
     */
    public static MultiLease acquireMulti(GlideClient client, List<String> keys, Options options) throws InterruptedException {
        if (options.wakeups != null) {
            throw new IllegalArgumentException("wakeups need a GlideClusterClient: GLIDE has sharded pub/sub in cluster mode only");
        }
        return acquireMulti(scripts(client), false, null, keys, options);
    }

    /** Slot by slot; with options.wakeups, a waiter on a busy key is woken by its release (a subscriber client per wait, as acquire's). */
    public static MultiLease acquireMulti(GlideClusterClient client, List<String> keys, Options options) throws InterruptedException {
        MultiWakeups wakeups = options.wakeups == null ? null : (key, patienceMs) -> {
            Wakeups listening = Wakeups.listen(options.wakeups, key, patienceMs);
            return new MultiWait(key, listening::await, listening::close);
        };
        return acquireMulti(scripts(client), true, wakeups, keys, options);
    }

    /** One pass, never waits: the lease, or null while a key is held by another owner (none of them left held). */
    public static MultiLease tryAcquireMulti(GlideClient client, List<String> keys, Options options) {
        return tryAcquireMulti(scripts(client), false, keys, options);
    }

    public static MultiLease tryAcquireMulti(GlideClusterClient client, List<String> keys, Options options) {
        return tryAcquireMulti(scripts(client), true, keys, options);
    }

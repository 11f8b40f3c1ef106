    /** What acquire takes: the lease, and optionally a wait, a fencing key and renewal. Immutable: each setting returns a copy. */
    public static final class Options implements Cloneable {
        long ttlMs, waitMs = 10_000, retryMs = 500;
        String fenceKey;
        boolean renew;
        String plainOnly; // a part's option that the plain lock alone takes (waitForReplicas): lock kinds refuse it
«kinds:options»
        private Options() {}

        /** How long to wait for another holder to let go before LockBusyException (default 10 000; 0: try once). */
        public Options waitMs(long waitMs) { checkMs("waitMs", waitMs, false); return with(copy -> copy.waitMs = waitMs); }
        /** A fencing counter key (in Cluster, with the lock key's {hash tag}): lease.fence() grows with every new holder. */
        public Options fenceKey(String fenceKey) { return with(copy -> copy.fenceKey = fenceKey); }
        /** Extend the lease every ttl/3 until release; lease.lost() turns true when that fails. */
        public Options renew() { return with(copy -> copy.renew = true); }
        /** The longest pause between two tries while waiting, jittered down to half (default 500). */
        public Options retryMs(long retryMs) { checkMs("retryMs", retryMs, true); return with(copy -> copy.retryMs = retryMs); }

«include:_jvm/options-with»
    }

    /** A lease of ttlMs: how long the lock outlives a holder that dies without releasing it. */
    public static Options ttlMs(long ttlMs) {
        return new Options().with(options -> options.ttlMs = ttlMs);
    }

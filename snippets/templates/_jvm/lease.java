    /** The lock stayed held by another owner for the whole wait. */
    public static final class LockBusyException extends RuntimeException {
        public final String key;
        public final long waitedMs;

        LockBusyException(String key, long waitedMs) {
            super(key + " is held by another owner; gave up after waiting " + waitedMs + " ms");
            this.key = key;
            this.waitedMs = waitedMs;
        }
«kinds:busy-exception»
    }

    /** The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable. */
    public static final class LeaseLostException extends RuntimeException {
        public final String key;

        LeaseLostException(String key, String why, Throwable cause) {
            super("lease on " + key + " lost: " + why, cause);
            this.key = key;
        }
    }

    // One daemon thread renews every lease of the process: a renewal is one short script call.
    private static final ScheduledExecutorService RENEWER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "locksmith-renewer");
        thread.setDaemon(true);
        return thread;
    });

    /** A held lock. Closing it releases it and throws LeaseLostException if the lease was gone by then. */
    public static final class Lease implements AutoCloseable {
        private final Scripts redis;
        private final String extendLua, releaseLua, key, token;
        private final Long fence;
        private final long ttlMs;
        private final ScheduledFuture<?> renewal;
        private volatile LeaseLostException lostReason;
        private volatile boolean released;

        Lease(Scripts redis, String extendLua, String releaseLua, String key, String token, Long fence, long ttlMs,
                boolean renew) {
            this.redis = redis;
            this.extendLua = extendLua;
            this.releaseLua = releaseLua;
            this.key = key;
            this.token = token;
            this.fence = fence;
            this.ttlMs = ttlMs;
            long every = Math.max(1, ttlMs / 3);
            this.renewal = renew ? RENEWER.scheduleAtFixedRate(this::renewOnce, every, every, TimeUnit.MILLISECONDS) : null;
        }

        public String key() { return key; }
        /** This holder's owner token: the lock key's value while it is held. */
        public String token() { return token; }
        /** The fencing token with a fence key (else null): the guarded resource refuses older ones. */
        public Long fence() { return fence; }
        /** True once a renewal found the lease gone or failed: stop writing. Why: lostReason(), else null. */
        public boolean lost() { return lostReason != null; }
        public LeaseLostException lostReason() { return lostReason; }

        /** Sets the lease to ttlMs from now; false when it is no longer held. */
        public boolean extend(long ttlMs) {
            checkMs("ttlMs", ttlMs, true);
            return (Long) redis.run(extendLua, List.of(key), List.of(token, String.valueOf(ttlMs))) == 1;
        }
«kinds:lease»

        /** Stops renewing and deletes the lock if this lease still holds it; false when it no longer did. */
        public boolean release() {
            synchronized (this) { // a renewal in flight ends before the release
                if (released) return false;
                released = true;
                if (renewal != null) renewal.cancel(false);
            }
            return (Long) redis.run(releaseLua, List.of(key), List.of(token)) != 0;
        }

        /** Releases; throws LeaseLostException when the lease was gone before that (another holder may have run too). */
        @Override
        public void close() {
            if (released || release()) return;
            throw new LeaseLostException(key, "it expired or was taken before release", lostReason);
        }

        private synchronized void renewOnce() {
            if (released || lostReason != null) return;
            try {
                if (extend(ttlMs)) return;
                lostReason = new LeaseLostException(key, "taken by another owner or expired", null);
            } catch («var:error» error) {
                lostReason = new LeaseLostException(key, "renewal failed, it may expire unseen", error);
            }
            renewal.cancel(false);
        }
    }

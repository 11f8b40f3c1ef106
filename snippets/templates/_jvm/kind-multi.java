«section:scripts»
    static final String MULTI_ACQUIRE = """
«lua:multi_acquire»""";
    static final String MULTI_EXTEND = """
«lua:multi_extend»""";
    static final String MULTI_RELEASE = """
«lua:multi_release»""";
«section:code»

    /**
     * Several plain locks held together under one token (acquireMulti). Closing it releases every
     * key, and throws LeaseLostException when the token no longer held all of them by then.
     */
    public static final class MultiLease implements AutoCloseable {
        private final Scripts redis;
        private final List<List<String>> groups;
        private final List<String> keys;
        private final String token;
        private final long ttlMs;
        private final ScheduledFuture<?> renewal;
        private volatile LeaseLostException lostReason;
        private boolean released;

        /** groups: the keys by hash slot, in the order they were taken. */
        MultiLease(Scripts redis, List<List<String>> groups, String token, long ttlMs, boolean renew) {
            this.redis = redis;
            this.groups = groups;
            this.keys = groups.stream().flatMap(List::stream).toList();
            this.token = token;
            this.ttlMs = ttlMs;
            long every = Math.max(1, ttlMs / 3);
            this.renewal = renew ? RENEWER.scheduleAtFixedRate(this::renewOnce, every, every, TimeUnit.MILLISECONDS) : null;
        }

        /** The lock keys, in the order they were taken (by hash slot, then by their bytes). */
        public List<String> keys() {
            return keys;
        }

        /** This holder's owner token: every key's value while it is held. */
        public String token() {
            return token;
        }

        /** True once a renewal found a key gone or failed: stop writing. */
        public boolean lost() {
            return lostReason != null;
        }

        /** Why the lease was lost, or null. */
        public LeaseLostException lostReason() {
            return lostReason;
        }

        /** Sets every key's lease to ttlMs from now; false when the token no longer held all of them (those it held are extended). */
        public boolean extend(long ttlMs) {
            checkMs("ttlMs", ttlMs, true);
            return run(MULTI_EXTEND, List.of(token, String.valueOf(ttlMs))) == keys.size();
        }

        /** Stops renewing and deletes every key this token still holds; false when it no longer held all of them. */
        public boolean release() {
            synchronized (this) { // a renewal in flight ends before the release
                if (released) return false;
                released = true;
                if (renewal != null) renewal.cancel(false);
            }
            return run(MULTI_RELEASE, List.of(token)) == keys.size();
        }

        /** Releases; throws LeaseLostException when a key was gone before that (another holder may have run too). */
        @Override
        public void close() {
            synchronized (this) {
                if (released) return;
            }
            if (!release()) {
                throw new LeaseLostException(String.join(", ", keys), "a key expired or was taken before release", lostReason);
            }
        }

        /** The keys the script found holding the token, slot by slot. */
        private long run(String lua, List<String> args) {
            long held = 0;
            for (List<String> group : groups) held += (Long) redis.run(lua, group, args);
            return held;
        }

        private synchronized void renewOnce() {
            if (released || lostReason != null) return;
            try {
                if (extend(ttlMs)) return;
                lostReason = new LeaseLostException(String.join(", ", keys), "a key was taken by another owner or expired", null);
            } catch («var:error» error) {
                lostReason = new LeaseLostException(String.join(", ", keys), "renewal failed, the keys may expire unseen", error);
            }
            renewal.cancel(false);
        }
    }

    /** How a multi-key waiter pauses after a pass found key busy (leaseMs: its PTTL; leftMs: what is left of the wait). */
    @FunctionalInterface
    interface Pause {
        void pause(String key, long leaseMs, long leftMs) throws InterruptedException;
    }

    /** The key a pass found held by another owner, and its lease left (-1: none). */
    private record BusyKey(String key, long pttlMs) {}

    /**
     * Takes every lock in keys, all or none (the "move money between two accounts" lock), waiting up
     * to options.waitMs, then LockBusyException naming a busy key. Keys in one hash slot (on one
     * server: all of them) in one call (multi_acquire); across a cluster's slots, slot by slot in one
     * fixed order, and a busy key gives back the slots taken before the pause (as acquire's, on that
     * key). No caller waits while holding part of its keys: no deadlock, however the key sets overlap.
     */
    static MultiLease acquireMulti(Scripts redis, boolean cluster, Pause pause, List<String> keys, Options options)
            throws InterruptedException {
        List<List<String>> groups = checkMulti(keys, cluster, options);
        String token = newToken();
        long deadline = System.nanoTime() + options.waitMs * 1_000_000;
        for (;;) {
            BusyKey busy = takeAll(redis, groups, token, options.ttlMs);
            if (busy == null) return new MultiLease(redis, groups, token, options.ttlMs, options.renew);
            long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) throw new LockBusyException(busy.key(), options.waitMs);
            pause.pause(busy.key(), busy.pttlMs(), leftMs);
        }
    }

    /** One pass, never waits: the lease, or null while a key is held by another owner (none of them is left held). */
    static MultiLease tryAcquireMulti(Scripts redis, boolean cluster, List<String> keys, Options options) {
        List<List<String>> groups = checkMulti(keys, cluster, options);
        String token = newToken();
        if (takeAll(redis, groups, token, options.ttlMs) != null) return null;
        return new MultiLease(redis, groups, token, options.ttlMs, options.renew);
    }

    /** One pass in the fixed order: null when every key is held, else the busy key (the slots taken before it given back). */
    private static BusyKey takeAll(Scripts redis, List<List<String>> groups, String token, long ttlMs) {
        for (int taken = 0; taken < groups.size(); taken++) {
            List<String> group = groups.get(taken);
            Object reply = redis.run(MULTI_ACQUIRE, group, List.of(token, String.valueOf(ttlMs)));
            List<?> fields = reply instanceof Object[] array ? List.of(array) : (List<?>) reply;
            if ((Long) fields.get(0) == 1) continue;
            for (List<String> back : groups.subList(0, taken)) redis.run(MULTI_RELEASE, back, List.of(token));
            return new BusyKey(group.get((int) (long) (Long) fields.get(1) - 1), (Long) fields.get(2));
        }
        return null;
    }

    /**
     * Refuses bad input before anything is sent; the keys by hash slot on a cluster (else one group),
     * slots in order and each slot's keys by their bytes: the one order every caller takes them in.
     */
    private static List<List<String>> checkMulti(List<String> keys, boolean cluster, Options options) {
        checkMs("ttlMs", options.ttlMs, true);
        if (options.fenceKey != null) {
            throw new IllegalArgumentException("fenceKey works with the plain lock, not with a multi-key lock");
        }
        if (options.plainOnly != null) {
            throw new IllegalArgumentException(options.plainOnly + " works with the plain lock, not with a multi-key lock");
        }
        if (keys == null || keys.isEmpty()) throw new IllegalArgumentException("a multi-key lock needs one or more keys, got none");
        java.util.TreeMap<Integer, List<String>> bySlot = new java.util.TreeMap<>();
        for (String key : keys) {
            if (key == null || key.isEmpty()) {
                throw new IllegalArgumentException("a multi-key lock's keys must be non-empty, got " + keys);
            }
            List<String> group = bySlot.computeIfAbsent(cluster ? slotOf(key) : 0, slot -> new java.util.ArrayList<>());
            if (group.contains(key)) {
                throw new IllegalArgumentException("a multi-key lock takes each key once, got " + key + " twice");
            }
            group.add(key);
        }
        java.util.Comparator<String> byBytes =
                (a, b) -> java.util.Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return bySlot.values().stream().map(group -> group.stream().sorted(byBytes).toList()).toList();
    }

    /** Redis Cluster's hash slot of key: CRC16 (XMODEM) of its {hash tag} or of the whole key, mod 16384. */
    static int slotOf(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        String hashed = close > open + 1 ? key.substring(open + 1, close) : key;
        int crc = 0;
        for (byte octet : hashed.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            crc ^= (octet & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) crc = (crc & 0x8000) != 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
        }
        return crc % 16384;
    }

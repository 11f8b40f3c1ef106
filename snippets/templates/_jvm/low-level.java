    /** One try, never waits: the lease, or null while another holder has the lock (try-with-resources skips a null). */
    public static Lease tryAcquire(Scripts redis, String key, Options options) {
        checkMs("ttlMs", options.ttlMs, true);
        return attempt(redis, key, newToken(), options);
    }

    /** Compare-and-delete: deletes key while it holds token (true, and wakes a waiter); false when it held another token or none. */
    public static boolean releaseLock(Scripts redis, String key, String token) {
        return (Long) redis.run(RELEASE, List.of(key), List.of(token)) == 1;
    }

    /** Compare-and-extend: sets key's lease to ttlMs while it holds token (true); false when it held another token or none. */
    public static boolean extendLock(Scripts redis, String key, String token, long ttlMs) {
        checkMs("ttlMs", ttlMs, true);
        return (Long) redis.run(EXTEND, List.of(key), List.of(token, String.valueOf(ttlMs))) == 1;
    }

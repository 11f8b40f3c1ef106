
    /**
     * A lock kind beside the plain lock, chosen by an option (reentrant, read, write, semaphore):
     * the scripts that take, extend and release it, whom its busy error names, the token it holds
     * by (null: the acquire's own) and its acquire's last argument (null: none).
     */
    record Kind(String acquireLua, String extendLua, String releaseLua, String holders, String ownerToken,
            java.util.function.Function<Options, String> lastArg) {
        /** One try: the lease, or null while the key is held against it. Its release wakes waiters on the key. */
        Lease attempt(Scripts redis, String key, String token, Options options) {
            if (options.fenceKey != null) throw new IllegalArgumentException("fenceKey works with the plain lock only");
            String holder = ownerToken != null ? ownerToken : token;
            String ttl = String.valueOf(options.ttlMs);
            String last = lastArg.apply(options);
            long reply = (Long) redis.run(acquireLua, List.of(key), last == null ? List.of(holder, ttl) : List.of(holder, ttl, last));
            return reply == 0 ? null : new Lease(redis, extendLua, releaseLua, key, holder, null, options.ttlMs, options.renew);
        }
    }

    /** One try on client (redis: its scripts); the ttl is checked before anything is sent. */
    private static Lease attempt(Scripts redis, Object client, String key, String token, Options options) {
        checkMs("ttlMs", options.ttlMs, true);
        List<String> keys = options.fenceKey == null ? List.of(key) : List.of(key, options.fenceKey);
«kinds:attempt»
        long reply = (Long) redis.run(ACQUIRE, keys, List.of(token, String.valueOf(options.ttlMs)));
        Long fence = options.fenceKey == null ? null : reply;
        return reply == 0 ? null : new Lease(redis, EXTEND, RELEASE, key, token, fence, options.ttlMs, options.renew);
    }

    private static String newToken() {
        return System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid() + ":" + UUID.randomUUID();
    }

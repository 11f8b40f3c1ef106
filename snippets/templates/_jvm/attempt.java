    private static Lease attempt(Scripts redis, String key, String token, Options options) {
        List<String> keys = options.fenceKey == null ? List.of(key) : List.of(key, options.fenceKey);
«kinds:attempt»
        long reply = (Long) redis.run(ACQUIRE, keys, List.of(token, String.valueOf(options.ttlMs)));
        return reply == 0 ? null : new Lease(redis, key, token, options.fenceKey == null ? null : reply, options.ttlMs, options.renew);
    }

    private static String newToken() {
        return System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid() + ":" + UUID.randomUUID();
    }

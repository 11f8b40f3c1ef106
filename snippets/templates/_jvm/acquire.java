    /** Takes the lock, pausing between tries (leaseLeft: the holder's PTTL; client: what the calls go to). */
    static Lease acquire(Scripts redis, Object client, ToLongFunction<String> leaseLeft, String key, Options options)
            throws InterruptedException {
        String token = newToken();
        long deadline = System.nanoTime() + options.waitMs * 1_000_000;
        try (Waiting waiting = new Waiting()) {
            for (;;) {
                Lease lease = attempt(redis, client, key, token, options);
                if (lease != null) return lease;
                long leftMs = (deadline - System.nanoTime()) / 1_000_000;
«kinds:busy»
                if (leftMs <= 0) throw new LockBusyException(key, options.waitMs);
                waiting.pause(client, options, key, leaseLeft.applyAsLong(key), leftMs);
            }
        }
    }

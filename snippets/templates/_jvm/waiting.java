    /** A waiter's pauses between tries; the wakeups part ends one when it hears the key's release. */
    static final class Waiting implements AutoCloseable {
«kinds:waiting»
        /** After a busy try: the shortest of the wait left, the jittered retry bound, the holder's lease (PTTL) + 1 ms. */
        void pause(Object client, Options options, String key, long leaseMs, long leftMs) throws InterruptedException {
«kinds:pause»
            long ms = Math.min((long) (options.retryMs * (0.5 + ThreadLocalRandom.current().nextDouble() / 2)), leftMs);
            ms = leaseMs == -2 ? 0 : leaseMs == -1 ? ms : Math.min(ms, leaseMs + 1);
«kinds:sleep»
            Thread.sleep(ms);
        }

        @Override
        public void close() {
«kinds:close»
        }
    }

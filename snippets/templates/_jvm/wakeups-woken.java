        private final Semaphore woken = new Semaphore(0);

        /** A message on the key's channel: the release wakes one waiter per client (empty payload) or all ("*"). */
        void heard(String message) {
            if (message.isEmpty() || message.equals("*")) {
                woken.drainPermits();
                woken.release();
            }
        }

        /** Returns when woken, or after ms. */
        void await(long ms) throws InterruptedException {
            if (woken.tryAcquire(ms, TimeUnit.MILLISECONDS)) woken.drainPermits();
        }

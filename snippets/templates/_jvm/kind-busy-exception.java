
        LockBusyException(String key, long waitedMs, String holders) {
            super(key + " is held by " + holders + "; gave up after waiting " + waitedMs + " ms");
            this.key = key;
            this.waitedMs = waitedMs;
        }

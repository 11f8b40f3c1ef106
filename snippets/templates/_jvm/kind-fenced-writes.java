«section:scripts»
    static final String GUARDED_SET = """
«lua:guarded_set»""";
    static final String FENCED_SET = """
«lua:fenced_set»""";
«section:lease»

        /**
         * Sets dataKey (a string in the lock's hash slot, its TTL kept) to value only while this lease
         * still holds the lock, in one call: false, and nothing written, once it expired or was taken.
         */
        public boolean setIfHeld(String dataKey, String value) {
            requirePlain("setIfHeld");
            return (Long) redis.run(GUARDED_SET, List.of(key, dataKey), List.of(token, value)) == 1;
        }

        /**
         * Writes value with this lease's fencing token into dataKey (a hash: value, and fence, the
         * newest token that wrote it): false, and nothing written, when a newer token wrote it already.
         */
        public boolean setFenced(String dataKey, String value) {
            requirePlain("setFenced");
            if (fence == null) throw new IllegalStateException("setFenced needs a fencing token: acquire " + key + " with fenceKey");
            return (Long) redis.run(FENCED_SET, List.of(dataKey), List.of(String.valueOf(fence), value)) == 1;
        }

        private void requirePlain(String call) {
            if (!RELEASE.equals(releaseLua)) throw new IllegalStateException(call + " works on a plain lock's lease, not a lock kind's");
        }

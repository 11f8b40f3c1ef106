«section:scripts»
    static final RedisScript<Long> GUARDED_SET = RedisScript.of("""
«lua:guarded_set»""", Long.class);
    static final RedisScript<Long> FENCED_SET = RedisScript.of("""
«lua:fenced_set»""", Long.class);
«section:lease»

        /**
         * Sets dataKey (a string in the lock's hash slot, its TTL kept) to value only while this lease
         * still holds the lock, in one call: false, and nothing written, once it expired or was taken.
         */
        public boolean setIfHeld(String dataKey, String value) {
            return locksmith.run(GUARDED_SET, List.of(key, dataKey), token, value) == 1;
        }

        /**
         * Writes value with this lease's fencing token into dataKey (a hash: value, and fence, the
         * newest token that wrote it): false, and nothing written, when a newer token wrote it already.
         */
        public boolean setFenced(String dataKey, String value) {
            if (fence == null) throw new IllegalStateException("setFenced needs a fencing token: acquire " + key + " with fenceKey");
            return locksmith.run(FENCED_SET, List.of(dataKey), String.valueOf(fence), value) == 1;
        }

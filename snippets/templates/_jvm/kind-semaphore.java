«section:scripts»
    static final String SEMAPHORE_ACQUIRE = """
«lua:semaphore_acquire»""";
    static final String SEMAPHORE_EXTEND = """
«lua:semaphore_extend»""";
    static final String SEMAPHORE_RELEASE = """
«lua:semaphore_release»""";
«section:options»
«include-once:_jvm/kind-options»

        /**
         * One of permits permits of the key, each holder with its own lease: a holder that dies gives
         * its permit back when its lease ends. Every caller passes the same permits while any is held.
         */
        public Options semaphore(int permits) {
            if (permits < 1 || permits > 999_999_999) {
                throw new IllegalArgumentException("permits must be from 1 to 999999999, got " + permits);
            }
            String count = String.valueOf(permits);
            Kind kind = new Kind(SEMAPHORE_ACQUIRE, SEMAPHORE_EXTEND, SEMAPHORE_RELEASE, "the other holders of its permits", null,
                    options -> count);
            return with(copy -> copy.kind = kind);
        }
«section:busy-exception»
«include-once:_jvm/kind-busy-exception»
«section:attempt»
«include-once:_jvm/kind-attempt»
«section:busy»
«include-once:_jvm/kind-busy»
«section:code»
«include-once:_jvm/kind-common»

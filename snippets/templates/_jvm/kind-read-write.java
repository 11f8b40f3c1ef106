«section:scripts»
    static final String READ_ACQUIRE = """
«lua:read_acquire»""";
    static final String WRITE_ACQUIRE = """
«lua:write_acquire»""";
    static final String RW_EXTEND = """
«lua:rw_extend»""";
    static final String RW_RELEASE = """
«lua:rw_release»""";
«section:options»
«include-once:_jvm/kind-options»

        /** A read lock: held with other readers, never with a writer. */
        public Options read() {
            return with(copy -> copy.kind = READ);
        }

        /**
         * The write lock: held alone, with no reader. While it waits, its intent keeps new readers out
         * (for twice retryMs, renewed by every try), so a stream of readers cannot starve it.
         */
        public Options write() {
            return with(copy -> copy.kind = WRITE);
        }
«section:busy-exception»
«include-once:_jvm/kind-busy-exception»
«section:attempt»
«include-once:_jvm/kind-attempt»
«section:busy»
«include-once:_jvm/kind-busy»
«section:code»
«include-once:_jvm/kind-common»

    static final Kind READ = new Kind(READ_ACQUIRE, RW_EXTEND, RW_RELEASE, "a writer", null, options -> null);
    static final Kind WRITE = new Kind(WRITE_ACQUIRE, RW_EXTEND, RW_RELEASE, "readers or another writer", null,
            options -> String.valueOf(options.waitMs > 0 ? 2 * options.retryMs : 1));

«section:scripts»
    static final String REENTRANT_ACQUIRE = """
«lua:reentrant_acquire»""";
    static final String REENTRANT_EXTEND = """
«lua:reentrant_extend»""";
    static final String REENTRANT_RELEASE = """
«lua:reentrant_release»""";
«section:options»
«include-once:_jvm/kind-options»

        /**
         * A reentrant lock held by owner (unique to your caller, e.g. a job id): an acquire by the same
         * owner while it holds the lock takes it again, and each take needs its own release.
         */
        public Options reentrant(String owner) {
            if (owner == null || owner.isEmpty()) throw new IllegalArgumentException("reentrant needs a non-empty owner");
            String token = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid() + ":" + owner;
            Kind kind = new Kind(REENTRANT_ACQUIRE, REENTRANT_EXTEND, REENTRANT_RELEASE, "another owner", token, options -> null);
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

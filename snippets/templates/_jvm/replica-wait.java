
    /**
     * waitForReplicas: the acquire counts once replicas acknowledged it (WAIT, or WAITAOF with
     * fsync), sent with the acquire in one pipeline on one connection, as WAIT counts the replicas
     * that have that connection's writes. Immutable; Locksmith.replicas(n) makes one.
     */
    public static final class ReplicaWait {
        final int replicas;
        final long timeoutMs;
        final boolean fsync;
        final Consumer<ReplicaShortfall> onShortfall;

        ReplicaWait(int replicas, long timeoutMs, boolean fsync, Consumer<ReplicaShortfall> onShortfall) {
            this.replicas = replicas;
            this.timeoutMs = timeoutMs;
            this.fsync = fsync;
            this.onShortfall = onShortfall;
        }

        /** How long the server waits for the replicas (default 100): shorter than the lease, which it spends. */
        public ReplicaWait timeoutMs(long timeoutMs) {
            return new ReplicaWait(replicas, timeoutMs, fsync, onShortfall);
        }

        /** Wait for the disk instead: WAITAOF 1 replicas timeoutMs (needs appendonly yes, Redis or Valkey 7.2+). */
        public ReplicaWait fsync() {
            return new ReplicaWait(replicas, timeoutMs, true, onShortfall);
        }

        /** Keep a lock the replicas did not acknowledge in time, and call this with the shortfall (default: release it and throw). */
        public ReplicaWait onShortfall(Consumer<ReplicaShortfall> onShortfall) {
            return new ReplicaWait(replicas, timeoutMs, fsync, Objects.requireNonNull(onShortfall, "onShortfall"));
        }

        /** Refuses bad values before anything is sent, naming the parameter and the value. */
        void check(long ttlMs) {
            if (replicas < 1) throw new IllegalArgumentException("waitForReplicas.replicas must be a positive integer, got " + replicas);
            if (timeoutMs < 1) {
                throw new IllegalArgumentException(
                        "waitForReplicas.timeoutMs must be a positive integer of milliseconds, got " + timeoutMs);
            }
            if (timeoutMs >= ttlMs) {
                throw new IllegalArgumentException("waitForReplicas.timeoutMs (" + timeoutMs + ") must be shorter than the lease ("
                        + ttlMs + " ms): the wait spends it");
            }
        }

        /** The shortfall a WAIT reply (acknowledged) or WAITAOF reply (local, acknowledged) means; null when acknowledged. */
        ReplicaShortfall shortfall(String key, long[] counts) {
            if (!fsync) return counts[0] >= replicas ? null : shortfall(key, "timeout", counts[0], null);
            return counts[0] >= 1 && counts[1] >= replicas ? null : shortfall(key, "timeout", counts[1], counts[0] >= 1);
        }

        /** The shortfall a server error of the wait means (WAITAOF's two); null for another error. */
        ReplicaShortfall shortfall(String key, String serverError) {
            String error = String.valueOf(serverError);
            if (error.matches("(?is)^ERR unknown command.*")) return shortfall(key, "no-waitaof", null, null);
            if (error.matches("(?is).*appendonly is disabled.*")) return shortfall(key, "aof-off", null, null);
            return null;
        }

        ReplicaShortfall shortfall(String key, String reason, Long acknowledged, Boolean fsyncedLocally) {
            return new ReplicaShortfall(key, reason, replicas, acknowledged, fsyncedLocally, timeoutMs);
        }

        /** What a taken lock becomes: the lease (acknowledged, or kept by onShortfall), else given back and thrown. */
        Lease settle(Lease lease, ReplicaShortfall shortfall) {
            if (shortfall == null) return lease;
            boolean misconfigured = shortfall.reason().equals("no-waitaof") || shortfall.reason().equals("aof-off");
            if (onShortfall != null && !misconfigured) {
                onShortfall.accept(shortfall);
                return lease;
            }
            throw new ReplicaShortfallException(shortfall, giveBack(lease));
        }
    }

    /** Compare-and-delete: true once it ran (the lock is not this lease's any more), false when it could not. */
    static boolean giveBack(Lease lease) {
        try {
            lease.release();
            return true;
        } catch (RuntimeException down) {
            return false;
        }
    }

    /** A waitForReplicas of `replicas` replicas (WAIT replicas 100). */
    public static ReplicaWait replicas(int replicas) {
        return new ReplicaWait(replicas, 100, false, null);
    }

    /**
     * Replicas did not acknowledge an acquire in time. reason: timeout, connection-lost, no-waitaof
     * or aof-off; acknowledged: what WAIT answered (WAITAOF: its second count), null without a
     * count; fsyncedLocally: with fsync, whether the master's AOF has it.
     */
    public record ReplicaShortfall(String lock, String reason, int required, Long acknowledged, Boolean fsyncedLocally,
            long timeoutMs) {
        String describe() {
            String of = required + " replica" + (required == 1 ? "" : "s");
            return switch (reason) {
                case "timeout" -> fsyncedLocally == null
                        ? lock + " was acknowledged by " + acknowledged + " of " + of + " within " + timeoutMs + " ms (WAIT)"
                        : lock + " was fsynced by " + acknowledged + " of " + of + (fsyncedLocally ? "" : " and not by the master")
                                + " within " + timeoutMs + " ms (WAITAOF)";
                case "connection-lost" -> lock
                        + ": the connection closed before the replicas acknowledged the acquire (it may not have reached any)";
                case "no-waitaof" -> lock
                        + ": waitForReplicas.fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)";
                default -> lock + ": waitForReplicas.fsync needs appendonly yes on the master, which has it off";
            };
        }

        String fix() {
            return switch (reason) {
                case "timeout" -> "Check the replicas (INFO replication: connected_slaves, their lag), or pass onShortfall to keep such locks";
                case "connection-lost" -> "The master may be failing over: try again once the client has reconnected";
                default -> "Turn fsync off (WAIT alone covers a failover) or enable the AOF";
            };
        }
    }

    /** An acquire the replicas did not acknowledge in time: given back (released) or left to end with its lease. */
    public static final class ReplicaShortfallException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final transient ReplicaShortfall shortfall;
        public final boolean released;

        ReplicaShortfallException(ReplicaShortfall shortfall, boolean released) {
            super(shortfall.describe() + ": " + (released ? "released" : "could not be released (it ends with its lease)")
                    + ", not held. " + shortfall.fix());
            this.shortfall = shortfall;
            this.released = released;
        }
    }

// The parts' modes of the Jedis, Lettuce and Spring Data Redis helper proofs (Proof.java hands them
// over, and takes and tries the lock for them: Proof.acquire, Proof.tryAcquire; compiled with a
// helper that carries every part). java Proof <url> <mode> [arg]; modes:
//   replica-held N: acquires with waitForReplicas(N replicas, 5 s), prints "held <token> <fence>", keeps it;
//   replica-shortfall: 1 replica within 50 ms, prints "shortfall <reason> <acknowledged> <released>" and the message;
//   replica-kept: the same with onShortfall, prints "kept <reason> <acknowledged>" then "held <token>";
//   replica-fsync: WAITAOF with onShortfall, which a misconfiguration overrides: prints "shortfall <reason> <released>";
//   replica-busy: tryAcquire with the option on a held lock, prints "busy";
//   replica-bad: three bad values, prints "refused <message>" for each;
//   replica-cut: 1 replica within 5 s (the test cuts the connection during the wait), prints
//   "shortfall <reason> <acknowledged> <released>" or "held <token>";
//   fenced-writes: A takes the lock (2 s), writes, lets it expire; B takes it; each writes guarded
//   (proof:data) and fenced (proof:fenced); prints "guarded a <held> <expired> <taken>", "guarded b <ok>",
//   "fenced b <ok> a <older>", "fences <A's> <B's>", and "no fence <message>" for a lease without one;
//   multi, multi-try, multi-lease, multi-bad: the multi part's (jvm-multi.java, with a helper that carries it).
final class Parts {
    static Locksmith.Options options() {
        return Locksmith.ttlMs(60_000).waitMs(0).fenceKey(Proof.FENCE);
    }

    static void run(String mode, String arg) throws InterruptedException {
        switch (mode) {
            case "replica-held" -> {
                Locksmith.Lease lease =
                        Proof.acquire(options().waitForReplicas(Locksmith.replicas(Integer.parseInt(arg)).timeoutMs(5000)));
                System.out.println("held " + lease.token() + " " + lease.fence());
            }
            case "replica-shortfall", "replica-fsync", "replica-cut" -> {
                Locksmith.ReplicaWait wait = Locksmith.replicas(1).timeoutMs(mode.equals("replica-cut") ? 5000 : 50);
                if (mode.equals("replica-fsync")) wait = wait.fsync().onShortfall(s -> System.out.println("callback"));
                try {
                    Locksmith.Lease lease = Proof.acquire(options().waitForReplicas(wait));
                    if (mode.equals("replica-cut")) {
                        System.out.println("held " + lease.token());
                        return;
                    }
                } catch (Locksmith.ReplicaShortfallException shortfall) {
                    Locksmith.ReplicaShortfall what = shortfall.shortfall;
                    System.out.println("shortfall " + what.reason() + " " + what.acknowledged() + " " + shortfall.released);
                    System.out.println("message " + shortfall.getMessage());
                    return;
                }
                throw new IllegalStateException("held without the replicas' acknowledgement");
            }
            case "replica-kept" -> {
                Locksmith.Lease lease = Proof.acquire(options().waitForReplicas(Locksmith.replicas(1)
                        .timeoutMs(50)
                        .onShortfall(s -> System.out.println("kept " + s.reason() + " " + s.acknowledged()))));
                System.out.println("held " + lease.token());
            }
            case "replica-busy" -> {
                Locksmith.Lease lease = Proof.tryAcquire(options().waitForReplicas(Locksmith.replicas(1)));
                Proof.check(lease == null, "took a lock another owner holds");
                System.out.println("busy");
            }
            case "replica-bad" -> {
                for (Locksmith.ReplicaWait bad : new Locksmith.ReplicaWait[] {
                    Locksmith.replicas(0), Locksmith.replicas(1).timeoutMs(0), Locksmith.replicas(1).timeoutMs(60_000),
                }) {
                    try {
                        Proof.acquire(options().waitForReplicas(bad));
                        throw new IllegalStateException("a bad waitForReplicas was accepted");
                    } catch (IllegalArgumentException refused) {
                        System.out.println("refused " + refused.getMessage());
                    }
                }
            }
            case "fenced-writes" -> {
                // 2 s: A's first write loads its classes and its script, which a cold JVM on a loaded
                // machine may take hundreds of milliseconds to do.
                Locksmith.Lease a = Proof.acquire(Locksmith.ttlMs(2000).fenceKey(Proof.FENCE));
                boolean held = a.setIfHeld("proof:data", "a1");
                Thread.sleep(2500); // A's lease ends: it is paused past it, as a GC pause would
                boolean expired = a.setIfHeld("proof:data", "a-expired");
                Locksmith.Lease b = Proof.acquire(Locksmith.ttlMs(60_000).fenceKey(Proof.FENCE));
                boolean taken = a.setIfHeld("proof:data", "a-taken");
                System.out.println("guarded a " + held + " " + expired + " " + taken);
                System.out.println("guarded b " + b.setIfHeld("proof:data", "b1"));
                boolean newer = b.setFenced("proof:fenced", "b");
                System.out.println("fenced b " + newer + " a " + a.setFenced("proof:fenced", "a-older"));
                System.out.println("fences " + a.fence() + " " + b.fence());
                b.release();
                try {
                    Proof.acquire(Locksmith.ttlMs(60_000)).setFenced("proof:fenced", "no-fence");
                } catch (IllegalStateException refused) {
                    System.out.println("no fence " + refused.getMessage());
                }
            }
            default -> multi(mode, arg);
        }
    }

    /** The multi part's modes (jvm-multi.java as Multi.java), compiled only with a helper that carries multi. */
    static void multi(String mode, String arg) {
        try {
            Class.forName("Multi").getDeclaredMethod("run", String.class, String.class).invoke(null, mode, arg);
        } catch (ClassNotFoundException noMulti) {
            throw new IllegalArgumentException("unknown mode " + mode);
        } catch (ReflectiveOperationException failed) {
            throw new IllegalStateException(failed.getCause() != null ? failed.getCause() : failed);
        }
    }
}

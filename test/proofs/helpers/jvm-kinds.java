// The lock kinds' modes of the Jedis and Lettuce helper proofs, as test/proofs/helpers/kinds.js
// (Proof.java hands them over, and takes keys and runs plain commands for them: Proof.acquire(key,
// options), Proof.incr, ...; compiled with a helper that carries every part). java Proof <url> <mode> <arg>:
//   woken <kind>      waits (retry bound 30 s) for a lock the test holds; prints `held <epoch ms>`
//   reentrant <n>     n rounds around a counter, each re-entering the lock once
//   rw-reader <n>     n read holds of 10 ms, flagging overlap with other readers and any writer
//   rw-writer <n>     n write holds around a non-atomic counter, alone
//   semaphore <n>     n holds of one of 2 permits, flagging more than 2 holders
//   hold <kind>       takes a kind with a 1 s lease ($PROOF_HOLD_MS), prints `held`, then waits to be killed
//   take <kind>       takes a kind (waiting up to 10 s), prints `took <epoch ms>`
final class Kinds {
    static final String OWNER = "proof-" + ProcessHandle.current().pid();

    static Locksmith.Lease take(String kind, Locksmith.Options options) throws InterruptedException {
        return Proof.acquire("proof:lock", switch (kind) {
            case "reentrant" -> options.reentrant(OWNER);
            case "read" -> options.read();
            case "write" -> options.write();
            case "semaphore" -> options.semaphore(1);
            default -> throw new IllegalArgumentException("no kind " + kind);
        });
    }

    static long count(String key) {
        String value = Proof.get(key);
        return value == null ? 0 : Long.parseLong(value);
    }

    static void reentrant(int rounds) throws InterruptedException {
        Locksmith.Options options = Locksmith.ttlMs(5000).waitMs(60_000).reentrant(OWNER);
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease outer = Proof.acquire("proof:lock", options)) {
                Proof.check(Proof.incr("proof:occupancy") == 1, "two holders at once");
                try (Locksmith.Lease inner = Proof.acquire("proof:lock", options)) {
                    Proof.check(inner.token().equals(outer.token()), "the nested take did not re-enter");
                    Proof.check("2".equals(Proof.hget("proof:lock", outer.token())), "hold count is not 2");
                    Proof.set("proof:counter", String.valueOf(count("proof:counter") + 1));
                }
                Proof.check("1".equals(Proof.hget("proof:lock", outer.token())), "hold count is not back to 1");
                Proof.decr("proof:occupancy");
            }
        }
    }

    static void reader(int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = Proof.acquire("proof:rw", Locksmith.ttlMs(5000).waitMs(60_000).read())) {
                if (Proof.incr("proof:readers") > 1) Proof.set("proof:overlap", "1");
                Proof.check(count("proof:writers") == 0, "read while a writer held the lock");
                Thread.sleep(10);
                Proof.decr("proof:readers");
            }
        }
    }

    static void writer(int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = Proof.acquire("proof:rw", Locksmith.ttlMs(5000).waitMs(60_000).write())) {
                Proof.check(Proof.incr("proof:writers") == 1, "two writers at once");
                Proof.check(count("proof:readers") == 0, "wrote while a reader held the lock");
                Proof.set("proof:counter", String.valueOf(count("proof:counter") + 1));
                Proof.decr("proof:writers");
            }
        }
    }

    static void semaphore(int rounds) throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            try (Locksmith.Lease lease = Proof.acquire("proof:sem", Locksmith.ttlMs(5000).waitMs(60_000).semaphore(2))) {
                long holders = Proof.incr("proof:holders");
                Proof.check(holders <= 2, holders + " holders of 2 permits");
                if (holders == 2) Proof.set("proof:full", "1");
                Thread.sleep(5);
                Proof.decr("proof:holders");
            }
        }
    }

    static void run(String mode, String arg) throws InterruptedException {
        switch (mode) {
            case "woken" -> {
                try (Locksmith.Lease lease = take(arg, Locksmith.ttlMs(5000).waitMs(60_000).retryMs(30_000))) {
                    System.out.println("held " + System.currentTimeMillis());
                }
            }
            case "reentrant" -> reentrant(Integer.parseInt(arg));
            case "rw-reader" -> reader(Integer.parseInt(arg));
            case "rw-writer" -> writer(Integer.parseInt(arg));
            case "semaphore" -> semaphore(Integer.parseInt(arg));
            case "hold" -> {
                take(arg, Locksmith.ttlMs(Long.parseLong(System.getenv().getOrDefault("PROOF_HOLD_MS", "1000"))).waitMs(0));
                System.out.println("held");
                Thread.sleep(60_000);
            }
            case "take" -> {
                try (Locksmith.Lease lease = take(arg, Locksmith.ttlMs(5000).waitMs(10_000))) {
                    System.out.println("took " + System.currentTimeMillis());
                }
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }
}

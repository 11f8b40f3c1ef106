// The multi part's modes of the Jedis, Lettuce, Spring Data Redis and Valkey GLIDE for Java helper
// proofs (Parts hands them over; compiled only with a helper that carries multi). The helper's
// acquireMulti and tryAcquireMulti are called on Proof.multiClient(): Locksmith's static overload
// for its type, or Spring's Locksmith's own; Proof.multiOptions(ttlMs) adds the client's wake-ups.
// The transfer modes start together: each waits until $PROOF_MULTI_PROCESSES of them are running.
// java Proof <url> <mode> [n]; modes:
//   multi n: n transfers of 1 between 2 or 3 of the accounts proof:acct:a..d, each under acquireMulti
//     of their locks (lock:<account>, waiting up to 60 s); a lock with two holders fails the process;
//   multi-try n: such transfers with tryAcquireMulti, never waiting: n, and more while a multi process
//     is still at work (proof:multi:done); prints "busy <count> of <tries>"; a busy try that left
//     one of its keys held by this process fails it;
//   multi-lease: three keys renewed past 3x their 1.5 s lease ("renewed <held>"), then one of them
//     taken by another owner: prints "extend <all held> <after one was taken>", "release <answer>",
//     "close <message>" (a second lease closed after the same), and the keys' values after release;
//   multi-bad: no keys, a key twice, an empty key, a bad ttl, a fence key: "refused <message>" each.
//   multi-woken: waits for lock:proof:acct:a and lock:proof:acct:b (one of them held by the test) with a
//     30 s retry bound; prints "held <epoch ms>" once it has both (woken by the release where it wakes).
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

final class Multi {
    static final List<String> ACCOUNTS = List.of("proof:acct:a", "proof:acct:b", "proof:acct:c", "proof:acct:d");
    /** The start of this process's tokens (the helper's newToken). */
    static final String MINE = System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid() + ":";

    static void run(String mode, String arg) throws InterruptedException {
        switch (mode) {
            case "multi" -> {
                started();
                for (int round = 0; round < Integer.parseInt(arg); round++) {
                    List<String> accounts = pick();
                    try (Locksmith.MultiLease lease = take("acquireMulti", locks(accounts), Proof.multiOptions(5000).waitMs(60_000))) {
                        move(accounts);
                    }
                }
                Proof.incr("proof:multi:done");
            }
            case "multi-try" -> {
                started();
                int busy = 0;
                int round = 0;
                long until = System.currentTimeMillis() + 60_000; // a waiting process that died does not keep this one
                for (; round < Integer.parseInt(arg) || (waiting() && System.currentTimeMillis() < until); round++) {
                    Thread.sleep(2); // tries spread over the waiting processes' work, not a busy loop
                    List<String> accounts = pick();
                    Locksmith.MultiLease lease = take("tryAcquireMulti", locks(accounts), Proof.multiOptions(5000));
                    if (lease == null) {
                        busy++;
                        for (String lock : locks(accounts)) {
                            String holder = Proof.get(lock);
                            Proof.check(holder == null || !holder.startsWith(MINE), "partial hold of " + lock);
                        }
                        continue;
                    }
                    move(accounts);
                    Proof.check(lease.release(), "the multi-key lease was lost");
                }
                System.out.println("busy " + busy + " of " + round);
            }
            case "multi-lease" -> {
                List<String> keys = List.of("proof:{m}:a", "proof:{m}:b", "proof:multi:c");
                Locksmith.MultiLease lease = take("acquireMulti", keys, Proof.multiOptions(1500).renew());
                Thread.sleep(4600);
                boolean held = keys.stream().allMatch(key -> lease.token().equals(Proof.get(key)));
                System.out.println("renewed " + (held && !lease.lost()) + (lease.lost() ? " " + lease.lostReason() : ""));
                boolean extended = lease.extend(60_000);
                Proof.set("proof:{m}:b", "other");
                System.out.println("extend " + extended + " " + lease.extend(60_000));
                System.out.println("release " + lease.release());
                Locksmith.MultiLease second = take("acquireMulti", List.of("proof:multi:d", "proof:multi:e"), Proof.multiOptions(60_000));
                Proof.set("proof:multi:e", "other");
                try {
                    second.close();
                } catch (Locksmith.LeaseLostException lost) {
                    System.out.println("close " + lost.getMessage());
                }
                System.out.println("keys " + keys.stream().map(Proof::get).toList());
            }
            case "multi-woken" -> {
                List<String> keys = locks(ACCOUNTS.subList(0, 2));
                try (Locksmith.MultiLease lease = take("acquireMulti", keys, Proof.multiOptions(5000).waitMs(60_000).retryMs(30_000))) {
                    System.out.println("held " + System.currentTimeMillis());
                }
            }
            case "multi-bad" -> {
                List<List<String>> badKeys = List.of(List.of(), List.of("proof:k", "proof:k"), Arrays.asList("proof:k", ""));
                for (List<String> keys : badKeys) refused(keys, Proof.multiOptions(5000));
                refused(List.of("proof:k"), Proof.multiOptions(0));
                refused(List.of("proof:k"), Proof.multiOptions(5000).fenceKey("proof:fence"));
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    /** Counts this process in (proof:multi:started) and waits until every transfer process of the test is. */
    static void started() throws InterruptedException {
        long processes = Long.parseLong(System.getenv().getOrDefault("PROOF_MULTI_PROCESSES", "1"));
        Proof.incr("proof:multi:started");
        long deadline = System.currentTimeMillis() + 30_000;
        while (Long.parseLong(Proof.get("proof:multi:started")) < processes) {
            Proof.check(System.currentTimeMillis() < deadline, "the other transfer processes did not start within 30 s");
            Thread.sleep(10);
        }
    }

    /** Whether a waiting transfer process (all but this one) is still at work. */
    static boolean waiting() {
        String done = Proof.get("proof:multi:done");
        long processes = Long.parseLong(System.getenv().getOrDefault("PROOF_MULTI_PROCESSES", "1"));
        return (done == null ? 0 : Long.parseLong(done)) < processes - 1;
    }

    static void refused(List<String> keys, Locksmith.Options options) throws InterruptedException {
        try {
            take("acquireMulti", keys, options);
            throw new IllegalStateException("bad input was accepted: " + keys);
        } catch (IllegalArgumentException refused) {
            System.out.println("refused " + refused.getMessage());
        }
    }

    /** 2 or 3 of the accounts in random order: the first pays 1 to the second. */
    static List<String> pick() {
        List<String> shuffled = new ArrayList<>(ACCOUNTS);
        Collections.shuffle(shuffled);
        return shuffled.subList(0, 2 + ThreadLocalRandom.current().nextInt(2));
    }

    static List<String> locks(List<String> accounts) {
        return accounts.stream().map(account -> "lock:" + account).toList();
    }

    /** Moves 1 from the first account to the second (read, pause, write: unsafe unless locked), counting each lock's holders. */
    static void move(List<String> accounts) throws InterruptedException {
        for (String lock : locks(accounts)) Proof.check(Proof.incr(lock + ":holders") == 1, "two holders of " + lock);
        long from = Long.parseLong(Proof.get(accounts.get(0)));
        long to = Long.parseLong(Proof.get(accounts.get(1)));
        Thread.sleep(1);
        Proof.set(accounts.get(0), String.valueOf(from - 1));
        Proof.set(accounts.get(1), String.valueOf(to + 1));
        for (String lock : locks(accounts)) Proof.decr(lock + ":holders");
    }

    /** The helper's acquireMulti or tryAcquireMulti (call) on the proof's client. */
    static Locksmith.MultiLease take(String call, List<String> keys, Locksmith.Options options) throws InterruptedException {
        Object client = Proof.multiClient();
        for (Method method : Locksmith.class.getMethods()) {
            boolean isStatic = Modifier.isStatic(method.getModifiers());
            Class<?>[] types = method.getParameterTypes();
            boolean onClient = isStatic && types.length == 3 && types[0].isInstance(client);
            if (!method.getName().equals(call) || !(onClient || (!isStatic && client instanceof Locksmith))) continue;
            try {
                return (Locksmith.MultiLease) (onClient ? method.invoke(null, client, keys, options) : method.invoke(client, keys, options));
            } catch (InvocationTargetException failed) {
                if (failed.getCause() instanceof RuntimeException cause) throw cause;
                if (failed.getCause() instanceof InterruptedException cause) throw cause;
                throw new IllegalStateException(failed.getCause());
            } catch (IllegalAccessException unexpected) {
                throw new IllegalStateException(unexpected);
            }
        }
        throw new IllegalStateException("the helper has no " + call + " for " + client.getClass().getName());
    }
}

// Drives test/fixtures/fix/java/JedisTryLockSkip.java, as written or as `lint --fix --fix-type
// fix,suggestion` leaves it, against the Redis at args[0]. Prints one line per scenario:
//   free <section>: <builds> <the lock's TTL seen inside, > 0> <the lock after>
//   busy <section>: <builds> <the other owner's lock after>
//   stale: the next holder's lock after the first holder's release, its lease having lapsed
//     while it worked and the next holder having taken the lock.
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.RedisClient;

public class JedisTryLockDriver {
    public static void main(String[] args) {
        try (RedisClient redis = RedisClient.create(URI.create(args[0]))) {
            for (String section : new String[] {"run", "nightly"}) {
                String key = section.equals("run") ? "lock:report" : "lock:nightly";
                AtomicLong builds = new AtomicLong();
                AtomicLong ttl = new AtomicLong();
                JedisTryLockSkip job = new JedisTryLockSkip(redis, () -> {
                    builds.incrementAndGet();
                    ttl.set(redis.pttl(key));
                });
                call(job, section);
                System.out.println("free " + section + ": " + builds.get() + " " + (ttl.get() > 0) + " " + redis.get(key));
                redis.set(key, "other");
                call(job, section);
                System.out.println("busy " + section + ": " + builds.get() + " " + redis.get(key));
                redis.del(key);
            }
            JedisTryLockSkip stale = new JedisTryLockSkip(redis, () -> redis.set("lock:report", "next-holder"));
            stale.run();
            System.out.println("stale: " + redis.get("lock:report"));
        }
    }

    private static void call(JedisTryLockSkip job, String section) {
        if (section.equals("run")) job.run();
        else job.nightly();
    }
}

// Redis Locksmith lock helper for Lettuce, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper lettuce package=com.example.locks
// @locksmith-pack 2a715a3fb3eb
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-digest 07a511c71bce58955ebbb47d23a0b568aa1980e2

package com.example.locks;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * Redis locks for Lettuce (Java 17+). A lease is AutoCloseable:
 * {@code try (Locksmith.Lease lease = Locksmith.acquire(redis, key, Locksmith.ttlMs(10_000))) {...}}
 * takes the lock, and closing it releases it. Takes the synchronous commands of a connection,
 * standalone or cluster (connection.sync()), which are thread-safe, so renewal shares them.
 * Given a pub/sub connection ({@code options.wakeups(client.connectPubSub())}, Lettuce 6.4+), a
 * waiter sleeps until the release wakes it (SSUBSCRIBE on the lock key, shared by the
 * connection's waiters), the holder's lease ends, or a jittered retry bound passes: a missed
 * wake-up costs at most that bound. Without one, it polls with jittered back-off.
 * tryAcquire tries once and never waits (null when busy); releaseLock and extendLock take a key and
 * a token.
 */
public final class Locksmith {
    private Locksmith() {}

    static final String ACQUIRE = """
-- @script acquire
-- @summary Take the lock when it is free; refresh the lease when this owner already holds it.
-- @key lock required The lock key: a string holding the owner token while the lock is held.
-- @key fence optional Fencing counter, INCRed once per new holder; must share the lock key's hash slot.
-- @arg token token Owner token, unique per holder (host, pid and a random part); binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds: a positive integer in decimal digits, no leading zero, at most 15 digits.
-- @reply 0 Held by another owner: nothing changed.
-- @reply 1 Acquired (or refreshed, when this token already held it) without a fence key.
-- @reply N With a fence key: the fencing token, a new INCR for a new holder, the current value for a refresh.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS < 1 or #KEYS > 2 then
  return redis.error_reply('ERR acquire takes 1 or 2 keys (lock, optional fence), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local lock, fence = KEYS[1], KEYS[2]
local holder = redis.call('GET', lock)
-- The fence is checked before the first write, as INCR checks it ('007' is no integer to INCR):
-- an error leaves nothing written, whoever holds the lock.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not (fenced == '0' or string.match(fenced, '^[1-9]%d*$')) or #fenced > 15) then
    return redis.error_reply('ERR acquire: fence key must hold a non-negative integer below 10^15'
      .. " (decimal digits, no leading zero), got '" .. string.sub(fenced, 1, 32) .. "'")
  end
end
if holder and holder ~= token then
  return 0
end

if holder then
  -- Same owner again (a retry after a lost reply): refresh the lease and keep the fencing token.
  redis.call('PEXPIRE', lock, ttl)
  if fenced and tonumber(fenced) > 0 then
    return tonumber(fenced)
  end
else
  redis.call('SET', lock, token, 'PX', ttl)
end
if fence then
  return redis.call('INCR', fence)
end
return 1
""";
    static final String EXTEND = """
-- @script extend
-- @summary Compare-and-extend: set the lease to ttl_ms only while the lock holds this owner's token.
-- @key lock required The lock key.
-- @arg token token The owner token the lock was acquired with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer in decimal digits, no leading zero, at most 15 digits.
-- @reply 0 Not held by this token: nothing changed, and the key is never created.
-- @reply 1 Held by this token; its TTL is now ttl_ms.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR extend takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

if redis.call('GET', KEYS[1]) == token then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
""";
    static final String RELEASE = """
-- @script release
-- @summary Compare-and-delete: delete the lock only while it still holds this owner's token, and wake a waiter.
-- @key lock required The lock key.
-- @key waiters optional The lock's waiter queue (see acquire_queued); must share the lock key's hash slot.
-- @arg token token The owner token the lock was acquired with.
-- @reply 0 Not held by this token (expired, released, or taken by another owner): nothing changed.
-- @reply 1 Held by this token and now deleted; the first queued waiter, if any, was taken off the queue and woken.
-- @signal lock On delete: the first queued waiter's token (taken off the queue), or empty with no queue or none queued.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string, or the waiters key not a sorted set; nothing was written.

if #KEYS < 1 or #KEYS > 2 then
  return redis.error_reply('ERR release takes 1 or 2 keys (lock, optional waiters), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR release: ARGV[1] token must be a non-empty string')
end

local lock, waiters = KEYS[1], KEYS[2]
if redis.call('GET', lock) ~= token then
  return 0
end
if waiters then
  -- A waiters key of another type fails here, before the delete.
  redis.call('ZCARD', waiters)
end
redis.call('DEL', lock)
local wake = ''
if waiters then
  wake = redis.call('ZPOPMIN', waiters)[1] or ''
end
-- pcall: the wake-up is an optimisation. A server without SPUBLISH (before 7.0) or an ACL user
-- without channel rights still releases; waiters then find the lock by their retry timer.
redis.pcall('SPUBLISH', lock, wake)
return 1
""";

    /** Runs one script: by its SHA1 (EVALSHA), and on NOSCRIPT (cache flushed, restart, failover) by its source (EVAL). */
    @FunctionalInterface
    public interface Scripts {
        Object run(String lua, List<String> keys, List<String> args);
    }

    static Scripts scripts(RedisScriptingCommands<String, String> redis) {
        return (lua, keys, args) -> {
            String[] keyArray = keys.toArray(String[]::new);
            String[] argArray = args.toArray(String[]::new);
            try {
                return redis.evalsha(sha1(lua), ScriptOutputType.INTEGER, keyArray, argArray);
            } catch (RedisNoScriptException flushed) {
                return redis.eval(lua, ScriptOutputType.INTEGER, keyArray, argArray);
            }
        };
    }

    /** What acquire takes: the lease, and optionally a wait, a fencing key and renewal. Immutable. */
    public static final class Options {
        final long ttlMs;
        final long waitMs;
        final String fenceKey;
        final boolean renew;
        final long retryMs;
        final StatefulRedisPubSubConnection<String, String> wakeups;

        Options(long ttlMs, long waitMs, String fenceKey, boolean renew, long retryMs,
                StatefulRedisPubSubConnection<String, String> wakeups) {
            this.ttlMs = ttlMs;
            this.waitMs = waitMs;
            this.fenceKey = fenceKey;
            this.renew = renew;
            this.retryMs = retryMs;
            this.wakeups = wakeups;
        }

        /** How long to wait for another holder to let go before LockBusyException (default 10 000; 0: try once). */
        public Options waitMs(long waitMs) {
            return new Options(ttlMs, waitMs, fenceKey, renew, retryMs, wakeups);
        }

        /** A fencing counter key (in Cluster, with the lock key's {hash tag}): lease.fence() grows with every new holder. */
        public Options fenceKey(String fenceKey) {
            return new Options(ttlMs, waitMs, fenceKey, renew, retryMs, wakeups);
        }

        /** Extend the lease every ttl/3 until release; lease.lost() turns true when that fails. */
        public Options renew() {
            return new Options(ttlMs, waitMs, fenceKey, true, retryMs, wakeups);
        }

        /** The longest sleep between two tries while waiting, jittered down to half (default 500): the cost of a missed wake-up. */
        public Options retryMs(long retryMs) {
            return new Options(ttlMs, waitMs, fenceKey, renew, retryMs, wakeups);
        }

        /** A pub/sub connection (client.connectPubSub(), one per application) on which waiters hear the release. */
        public Options wakeups(StatefulRedisPubSubConnection<String, String> pubsub) {
            return new Options(ttlMs, waitMs, fenceKey, renew, retryMs, pubsub);
        }
    }

    /** A lease of ttlMs: how long the lock outlives a holder that dies without releasing it. */
    public static Options ttlMs(long ttlMs) {
        return new Options(ttlMs, 10_000, null, false, 500, null);
    }

    /** The lock stayed held by another owner for the whole wait. */
    public static final class LockBusyException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final String key;
        public final long waitedMs;

        LockBusyException(String key, long waitedMs) {
            super(key + " is held by another owner; gave up after waiting " + waitedMs + " ms");
            this.key = key;
            this.waitedMs = waitedMs;
        }
    }

    /** The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable. */
    public static final class LeaseLostException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final String key;

        LeaseLostException(String key, String why, Throwable cause) {
            super("lease on " + key + " lost: " + why, cause);
            this.key = key;
        }
    }

    // One daemon thread renews every lease of the process: a renewal is one short script call.
    private static final ScheduledExecutorService RENEWER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "locksmith-renewer");
        thread.setDaemon(true);
        return thread;
    });

    /** A held lock. Closing it releases it and throws LeaseLostException if the lease was gone by then. */
    public static final class Lease implements AutoCloseable {
        private final Scripts redis;
        private final String key;
        private final String token;
        private final Long fence;
        private final long ttlMs;
        private final ScheduledFuture<?> renewal;
        private volatile LeaseLostException lostReason;
        private boolean released;

        Lease(Scripts redis, String key, String token, Long fence, long ttlMs, boolean renew) {
            this.redis = redis;
            this.key = key;
            this.token = token;
            this.fence = fence;
            this.ttlMs = ttlMs;
            long every = Math.max(1, ttlMs / 3);
            this.renewal = renew ? RENEWER.scheduleAtFixedRate(this::renewOnce, every, every, TimeUnit.MILLISECONDS) : null;
        }

        public String key() {
            return key;
        }

        /** This holder's owner token: the lock key's value while it is held. */
        public String token() {
            return token;
        }

        /** The fencing token with a fence key (else null): the guarded resource refuses older ones. */
        public Long fence() {
            return fence;
        }

        /** True once a renewal found the lease gone or failed: stop writing. */
        public boolean lost() {
            return lostReason != null;
        }

        /** Why the lease was lost, or null. */
        public LeaseLostException lostReason() {
            return lostReason;
        }

        /** Sets the lease to ttlMs from now; false when it is no longer held. */
        public boolean extend(long ttlMs) {
            return extendLock(redis, key, token, ttlMs);
        }

        /** Stops renewing and deletes the lock if this lease still holds it; false when it no longer did. */
        public boolean release() {
            synchronized (this) { // a renewal in flight ends before the release
                if (released) return false;
                released = true;
                if (renewal != null) renewal.cancel(false);
            }
            return releaseLock(redis, key, token);
        }

        /** Releases; throws LeaseLostException when the lease was gone before that (another holder may have run too). */
        @Override
        public void close() {
            synchronized (this) {
                if (released) return;
            }
            if (!release()) throw new LeaseLostException(key, "it expired or was taken before release", lostReason);
        }

        private synchronized void renewOnce() {
            if (released || lostReason != null) return;
            try {
                if (extend(ttlMs)) return;
                lostReason = new LeaseLostException(key, "taken by another owner or expired", null);
            } catch (RedisException error) {
                lostReason = new LeaseLostException(key, "renewal failed, it may expire unseen", error);
            }
            renewal.cancel(false);
        }
    }

    public static Lease acquire(RedisScriptingCommands<String, String> redis, String key, Options options)
            throws InterruptedException {
        return acquire(scripts(redis), key, options);
    }

    /**
     * Takes the lock, waiting up to options.waitMs, then LockBusyException: with options.wakeups,
     * woken by the release; without, by jittered back-off (10 ms doubling to options.retryMs, ±50 %).
     * Redis errors are thrown as Lettuce throws them.
     */
    public static Lease acquire(Scripts redis, String key, Options options) throws InterruptedException {
        checkMs("ttlMs", options.ttlMs, true);
        checkMs("waitMs", options.waitMs, false);
        checkMs("retryMs", options.retryMs, true);
        String token = newToken();
        long deadline = System.nanoTime() + options.waitMs * 1_000_000;
        Wakeups wakeups = null;
        try {
            for (int attempt = 0; ; attempt++) {
                Lease lease = attempt(redis, key, token, options);
                if (lease != null) return lease;
                long leftMs = (deadline - System.nanoTime()) / 1_000_000;
                if (leftMs <= 0) throw new LockBusyException(key, options.waitMs);
                if (wakeups == null && options.wakeups != null) {
                    wakeups = Wakeups.listen(options.wakeups, key, options.retryMs);
                    continue; // a release may have gone out before the subscription: try again
                }
                double random = ThreadLocalRandom.current().nextDouble();
                double sleepMs = wakeups != null
                        ? options.retryMs * (0.5 + random / 2)
                        : Math.min(10 * Math.pow(2, Math.min(attempt, 20)), options.retryMs) * (0.5 + random);
                long ms = Math.min((long) sleepMs, leftMs);
                if (wakeups != null) wakeups.await(ms);
                else Thread.sleep(ms);
            }
        } finally {
            if (wakeups != null) wakeups.close();
        }
    }

    /** One try, never waits: the lease, or null while another holder has the lock (try-with-resources skips a null). */
    public static Lease tryAcquire(Scripts redis, String key, Options options) {
        checkMs("ttlMs", options.ttlMs, true);
        return attempt(redis, key, newToken(), options);
    }

    /** Compare-and-delete: deletes key while it holds token (true, and wakes a waiter); false when it held another token or none. */
    public static boolean releaseLock(Scripts redis, String key, String token) {
        return (Long) redis.run(RELEASE, List.of(key), List.of(token)) == 1;
    }

    /** Compare-and-extend: sets key's lease to ttlMs while it holds token (true); false when it held another token or none. */
    public static boolean extendLock(Scripts redis, String key, String token, long ttlMs) {
        checkMs("ttlMs", ttlMs, true);
        return (Long) redis.run(EXTEND, List.of(key), List.of(token, String.valueOf(ttlMs))) == 1;
    }

    public static Lease tryAcquire(RedisScriptingCommands<String, String> redis, String key, Options options) {
        return tryAcquire(scripts(redis), key, options);
    }

    public static boolean releaseLock(RedisScriptingCommands<String, String> redis, String key, String token) {
        return releaseLock(scripts(redis), key, token);
    }

    public static boolean extendLock(RedisScriptingCommands<String, String> redis, String key, String token, long ttlMs) {
        return extendLock(scripts(redis), key, token, ttlMs);
    }

    private static Lease attempt(Scripts redis, String key, String token, Options options) {
        List<String> keys = options.fenceKey == null ? List.of(key) : List.of(key, options.fenceKey);
        long reply = (Long) redis.run(ACQUIRE, keys, List.of(token, String.valueOf(options.ttlMs)));
        return reply == 0 ? null : new Lease(redis, key, token, options.fenceKey == null ? null : reply, options.ttlMs, options.renew);
    }

    private static String newToken() {
        return System.getenv().getOrDefault("HOSTNAME", "host") + ":" + ProcessHandle.current().pid() + ":" + UUID.randomUUID();
    }

    /**
     * A waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, with an empty payload
     * (one waiter per client) or "*" (all). Each waiter is a listener of the shared pub/sub
     * connection; the key stays subscribed while any waiter of the connection waits on it.
     */
    static final class Wakeups extends RedisPubSubAdapter<String, String> implements AutoCloseable {
        private static final Map<StatefulRedisPubSubConnection<String, String>, Map<String, Integer>> WAITING = new HashMap<>();
        private final StatefulRedisPubSubConnection<String, String> pubsub;
        private final String key;
        private final Semaphore woken = new Semaphore(0);

        private Wakeups(StatefulRedisPubSubConnection<String, String> pubsub, String key) {
            this.pubsub = pubsub;
            this.key = key;
        }

        /** Listens; returns once subscribed, or after patienceMs (then the retry bound covers). */
        static Wakeups listen(StatefulRedisPubSubConnection<String, String> pubsub, String key, long patienceMs)
                throws InterruptedException {
            Wakeups wakeups = new Wakeups(pubsub, key);
            pubsub.addListener(wakeups);
            try {
                // Sent under the lock, so a subscription and the unsubscription of the last waiter before go in order.
                RedisFuture<Void> subscribed = null;
                synchronized (WAITING) {
                    if (WAITING.computeIfAbsent(pubsub, connection -> new HashMap<>()).merge(key, 1, Integer::sum) == 1) {
                        subscribed = pubsub.async().ssubscribe(key);
                    }
                }
                if (subscribed != null) subscribed.get(patienceMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException | RedisException failed) {
                // a server before 7.0, no channel rights, a broken connection: the retry bound covers
            }
            return wakeups;
        }

        @Override
        public void smessage(String channel, String message) {
            if (channel.equals(key) && (message.isEmpty() || message.equals("*"))) {
                woken.drainPermits();
                woken.release();
            }
        }

        /** Returns when woken, or after ms. */
        void await(long ms) throws InterruptedException {
            if (woken.tryAcquire(ms, TimeUnit.MILLISECONDS)) woken.drainPermits();
        }

        @Override
        public void close() {
            pubsub.removeListener(this);
            synchronized (WAITING) {
                Map<String, Integer> keys = WAITING.get(pubsub);
                if (keys.merge(key, -1, Integer::sum) > 0) return;
                keys.remove(key);
                if (keys.isEmpty()) WAITING.remove(pubsub);
                pubsub.async().sunsubscribe(key);
            }
        }
    }

    static void checkMs(String name, long value, boolean positive) {
        if (value < (positive ? 1 : 0)) {
            throw new IllegalArgumentException(
                    name + " must be a " + (positive ? "positive" : "non-negative") + " integer of milliseconds, got " + value);
        }
    }

    static String sha1(String lua) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(lua.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException missing) {
            throw new IllegalStateException("SHA-1 is part of every Java platform", missing);
        }
    }
}

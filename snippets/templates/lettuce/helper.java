«header»

«opt:package»
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
«kinds:imports»

/**
 * Redis locks for Lettuce (Java 17+) on the synchronous commands of a connection, standalone or
 * cluster (connection.sync(): thread-safe, so renewal shares them). A lease is AutoCloseable:
 * closing it releases the lock.
 * {@code try (Locksmith.Lease lease = Locksmith.acquire(redis, key, Locksmith.ttlMs(10_000))) {...}}
 */
«set:error»RedisException
public final class Locksmith {
    private Locksmith() {}

    static final String ACQUIRE = """
«lua:acquire»""";
    static final String EXTEND = """
«lua:extend»""";
    static final String RELEASE = """
«lua:release»""";
«kinds:scripts»

    /** Runs one script: by its SHA1 (EVALSHA), and on NOSCRIPT (cache flushed, restart, failover) by its source (EVAL). */
    public interface Scripts {
        Object run(String lua, List<String> keys, List<String> args);
    }

    static Scripts scripts(RedisScriptingCommands<String, String> client) {
        return (lua, keys, args) -> {
            String[] keyArray = keys.toArray(String[]::new);
            String[] argArray = args.toArray(String[]::new);
            try {
                return client.evalsha(sha1(lua), ScriptOutputType.INTEGER, keyArray, argArray);
            } catch (RedisNoScriptException flushed) {
                return client.eval(lua, ScriptOutputType.INTEGER, keyArray, argArray);
            }
        };
    }

«include:_jvm/options»

«include:_jvm/lease»

    /** On the sync commands of a connection (standalone or cluster), which run the scripts and PTTL. */
    public static <R extends RedisScriptingCommands<String, String> & RedisKeyCommands<String, String>> Lease acquire(
            R redis, String key, Options options) throws InterruptedException {
        return acquire(scripts(redis), redis, redis::pttl, key, options);
    }

«include:_jvm/acquire»

    /** One try, never waits: the lease, or null while another holder has the lock (try-with-resources skips a null). */
    public static Lease tryAcquire(RedisScriptingCommands<String, String> redis, String key, Options options) {
        return attempt(scripts(redis), redis, key, newToken(), options);
    }

    /** Compare-and-delete: deletes key while it holds token (true); false when it held another token or none. */
    public static boolean releaseLock(RedisScriptingCommands<String, String> redis, String key, String token) {
        return new Lease(scripts(redis), EXTEND, RELEASE, key, token, null, 0, false).release();
    }

    /** Compare-and-extend: sets key's lease to ttlMs while it holds token (true); false when it held another token or none. */
    public static boolean extendLock(RedisScriptingCommands<String, String> redis, String key, String token, long ttlMs) {
        return new Lease(scripts(redis), EXTEND, RELEASE, key, token, null, 0, false).extend(ttlMs);
    }

«include:_jvm/attempt»

«include:_jvm/waiting»

«include:_jvm/checks»
«kinds:code»
}

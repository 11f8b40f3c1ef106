«header»

«opt:package»
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.*;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ScriptingKeyCommands;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
«kinds:imports»

/**
 * Redis locks for Jedis 4.4+ (Java 17+) on a RedisClient, RedisClusterClient, JedisPooled, JedisCluster or JedisPool;
 * {@code try (Locksmith.Lease lease = Locksmith.acquire(jedis, key, Locksmith.ttlMs(10_000))) {...}} releases it on close.
 */
@SuppressWarnings("deprecation") // JedisPool, deprecated in Jedis 8, is still what many projects hold
«set:error»JedisException
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

    static Scripts scripts(JedisPool client) {
        return (lua, keys, args) -> {
            try (Jedis jedis = client.getResource()) {
                return scripts(jedis).run(lua, keys, args);
            }
        };
    }

    static Scripts scripts(ScriptingKeyCommands client) { // a UnifiedJedis, or one Jedis connection (not for renewal)
        return (lua, keys, args) -> {
            try {
                return client.evalsha(sha1(lua), keys, args);
            } catch (JedisNoScriptException flushed) {
                return client.eval(lua, keys, args);
            }
        };
    }

«include:_jvm/options»

«include:_jvm/lease»

    public static Lease acquire(UnifiedJedis jedis, String key, Options options) throws InterruptedException {
        return acquire(scripts(jedis), jedis, jedis::pttl, key, options);
    }
    public static Lease acquire(JedisPool pool, String key, Options options) throws InterruptedException {
        return acquire(scripts(pool), pool, lock -> {
            try (Jedis jedis = pool.getResource()) {
                return jedis.pttl(lock);
            }
        }, key, options);
    }

«include:_jvm/acquire»

    /** One try, never waits: the lease, or null while another holder has the lock (try-with-resources skips a null). */
    public static Lease tryAcquire(UnifiedJedis jedis, String key, Options options) {
        return attempt(scripts(jedis), jedis, key, newToken(), options);
    }
    public static Lease tryAcquire(JedisPool pool, String key, Options options) {
        return attempt(scripts(pool), pool, key, newToken(), options);
    }

    /** Compare-and-delete: deletes key while it holds token (true); false when it held another token or none. */
    public static boolean releaseLock(ScriptingKeyCommands jedis, String key, String token) {
        return new Lease(scripts(jedis), EXTEND, RELEASE, key, token, null, 0, false).release();
    }
    public static boolean releaseLock(JedisPool pool, String key, String token) {
        return new Lease(scripts(pool), EXTEND, RELEASE, key, token, null, 0, false).release();
    }

    /** Compare-and-extend: sets key's lease to ttlMs while it holds token (true); false when it held another token or none. */
    public static boolean extendLock(ScriptingKeyCommands jedis, String key, String token, long ttlMs) {
        return new Lease(scripts(jedis), EXTEND, RELEASE, key, token, null, 0, false).extend(ttlMs);
    }
    public static boolean extendLock(JedisPool pool, String key, String token, long ttlMs) {
        return new Lease(scripts(pool), EXTEND, RELEASE, key, token, null, 0, false).extend(ttlMs);
    }

«include:_jvm/attempt»

«include:_jvm/waiting»

«include:_jvm/checks»
«kinds:code»
}

«header»

«opt:package»
import glide.api.BaseClient;
import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.ClusterValue;
import glide.api.models.Script;
import glide.api.models.commands.ScriptOptions;
import glide.api.models.exceptions.GlideException;
import glide.api.models.exceptions.RequestException;
import java.util.*;
import java.util.concurrent.*;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
«kinds:imports»

/**
 * Redis locks for Valkey GLIDE for Java (Java 17+) on a GlideClient or a GlideClusterClient, waiting
 * for GLIDE's futures as a blocking caller does. A lease is AutoCloseable: closing it releases the lock.
 * {@code try (Locksmith.Lease lease = Locksmith.acquire(client, key, Locksmith.ttlMs(10_000))) {...}}
 */
«set:error»GlideException
public final class Locksmith {
    private Locksmith() {}

    static final String ACQUIRE = """
«lua:acquire»""";
    static final String EXTEND = """
«lua:extend»""";
    static final String RELEASE = """
«lua:release»""";
«kinds:scripts»

    /** Runs one script: by its SHA1 (EVALSHA), and on NOSCRIPT (cache flushed, restart, failover) by its source. */
    public interface Scripts {
        Object run(String lua, List<String> keys, List<String> args);
    }

    // One GLIDE Script per Lua text, made at first use and kept for the process: GLIDE holds its
    // source, runs it with EVALSHA and loads it again on NOSCRIPT.
    private static final Map<String, Script> SCRIPTS = new ConcurrentHashMap<>();

    /**
     * GLIDE's invokeScript, and EVAL once when it still gives NOSCRIPT: a flush between GLIDE's reload
     * and its EVALSHA (SCRIPT FLUSH, a failover) beats the reload, and EVAL cannot miss.
     */
    static Scripts scripts(BaseClient client) {
        return (lua, keys, args) -> {
            Script script = SCRIPTS.computeIfAbsent(lua, source -> new Script(source, false));
            try {
                return await(client.invokeScript(script, ScriptOptions.builder().keys(keys).args(args).build()));
            } catch (RequestException error) {
                if (!String.valueOf(error.getMessage()).toLowerCase(Locale.ROOT).contains("noscript")) throw error;
                List<String> eval = new ArrayList<>(List.of("EVAL", lua, String.valueOf(keys.size())));
                eval.addAll(keys);
                eval.addAll(args);
                String[] command = eval.toArray(String[]::new);
                return await(client instanceof GlideClusterClient cluster
                        ? cluster.customCommand(command).thenApply(ClusterValue::getSingleValue)
                        : ((GlideClient) client).customCommand(command));
            }
        };
    }

    /** The reply of a GLIDE call, waited for; its failure as the GlideException GLIDE gave. */
    static <T> T await(CompletableFuture<T> reply) {
        try {
            return reply.get();
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof GlideException cause ? cause : new GlideException(String.valueOf(failed.getCause()));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new GlideException("interrupted while waiting for the server's reply");
        }
    }

«include:_jvm/options»

«include:_jvm/lease»

    public static Lease acquire(BaseClient client, String key, Options options) throws InterruptedException {
        return acquire(scripts(client), client, lock -> await(client.pttl(lock)), key, options);
    }

«include:_jvm/acquire»

    /** One try, never waits: the lease, or null while another holder has the lock (try-with-resources skips a null). */
    public static Lease tryAcquire(BaseClient client, String key, Options options) {
        return attempt(scripts(client), client, key, newToken(), options);
    }

    /** Compare-and-delete: deletes key while it holds token (true); false when it held another token or none. */
    public static boolean releaseLock(BaseClient client, String key, String token) {
        return new Lease(scripts(client), EXTEND, RELEASE, key, token, null, 0, false).release();
    }

    /** Compare-and-extend: sets key's lease to ttlMs while it holds token (true); false when it held another token or none. */
    public static boolean extendLock(BaseClient client, String key, String token, long ttlMs) {
        return new Lease(scripts(client), EXTEND, RELEASE, key, token, null, 0, false).extend(ttlMs);
    }

«include:_jvm/attempt»

«include:_jvm/waiting»

«include:_jvm/check-ms»
«kinds:code»
}

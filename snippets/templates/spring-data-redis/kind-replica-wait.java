«section:imports»
import java.nio.charset.StandardCharsets;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;
«section:options»
«include:_jvm/replica-wait-options»
«section:attempt»
        if (options.waitForReplicas != null) return attemptAndWait(key, keys, token, options);
«section:code»
«include:_jvm/replica-wait»

    /**
     * The acquire and WAIT (WAITAOF) in one pipeline of the template's connection (Lettuce: a
     * dedicated one while it pipelines; Jedis: the pool's), so WAIT counts the acquire's write: one
     * round trip. Not on a cluster connection factory (WAIT has no key to route by).
     */
    private Lease attemptAndWait(String key, List<String> keys, String token, Options options) {
        ReplicaWait wait = options.waitForReplicas;
        wait.check(options.ttlMs);
        byte[][] keysAndArgs = new byte[keys.size() + 2][];
        for (int i = 0; i < keys.size(); i++) keysAndArgs[i] = bytes(keys.get(i));
        keysAndArgs[keys.size()] = bytes(token);
        keysAndArgs[keys.size() + 1] = bytes(String.valueOf(options.ttlMs));
        byte[][] waitArgs = wait.fsync
                ? new byte[][] {bytes("1"), bytes(String.valueOf(wait.replicas)), bytes(String.valueOf(wait.timeoutMs))}
                : new byte[][] {bytes(String.valueOf(wait.replicas)), bytes(String.valueOf(wait.timeoutMs))};
        for (boolean flushed = false; ; flushed = true) {
            boolean eval = flushed;
            List<Object> replies;
            try {
                // The connection itself (exposed), not the template's proxy of it: its pipeline is ours.
                replies = redis.execute((RedisCallback<List<Object>>) connection -> {
                    if (connection instanceof RedisClusterConnection) {
                        throw new InvalidDataAccessApiUsageException(
                                "waitForReplicas is not in this helper for a cluster connection factory: WAIT has no key to route by");
                    }
                    connection.openPipeline();
                    try {
                        send(connection, "CLIENT", "IntegerOutput", bytes("ID"));
                        if (eval) {
                            connection.scriptingCommands().eval(bytes(ACQUIRE.getScriptAsString()), ReturnType.INTEGER, keys.size(), keysAndArgs);
                        } else {
                            connection.scriptingCommands().evalSha(ACQUIRE.getSha1(), ReturnType.INTEGER, keys.size(), keysAndArgs);
                        }
                        send(connection, wait.fsync ? "WAITAOF" : "WAIT", wait.fsync ? "ArrayOutput" : "IntegerOutput", waitArgs);
                        send(connection, "CLIENT", "IntegerOutput", bytes("ID"));
                    } catch (RuntimeException unsent) {
                        connection.closePipeline();
                        throw unsent;
                    }
                    return connection.closePipeline();
                }, true);
            } catch (RedisPipelineException failed) {
                replies = failed.getPipelineResult();
                if (replies.size() < 4) { // Lettuce's connection gives the first error alone, no replies
                    String error = serverError(failed);
                    if (!eval && error.startsWith("NOSCRIPT")) continue; // the pair again, with EVAL
                    ReplicaShortfall shortfall = wait.shortfall(key, error);
                    boolean released = giveBack(new Lease(this, key, token, null, options.ttlMs, false));
                    if (shortfall == null) throw failed;
                    throw new ReplicaShortfallException(shortfall, released);
                }
            } catch (RedisConnectionFailureException | QueryTimeoutException lost) {
                Lease maybe = new Lease(this, key, token, null, options.ttlMs, false);
                throw new ReplicaShortfallException(wait.shortfall(key, "connection-lost", null, null), giveBack(maybe));
            }
            Object acquired = replies.get(1);
            if (acquired instanceof Exception error) {
                if (!eval && serverError(error).startsWith("NOSCRIPT")) continue; // the pair again, with EVAL
                throw error instanceof RuntimeException unchecked ? unchecked : new IllegalStateException(error);
            }
            long reply = (Long) acquired;
            if (reply == 0) return null;
            Lease lease = new Lease(this, key, token, options.fenceKey == null ? null : reply, options.ttlMs, options.renew);
            Object counts = replies.get(2);
            if (counts instanceof Exception error) {
                ReplicaShortfall shortfall = wait.shortfall(key, serverError(error));
                if (shortfall != null) return wait.settle(lease, shortfall);
                giveBack(lease);
                throw error instanceof RuntimeException unchecked ? unchecked : new IllegalStateException(error);
            }
            // A connection Lettuce replaced between the two CLIENT IDs resent what was unanswered alone:
            // a WAIT on a connection that wrote nothing, whose count means nothing.
            for (Object id : List.of(replies.get(0), replies.get(3))) {
                if (id instanceof RuntimeException error) {
                    giveBack(lease);
                    throw error;
                }
            }
            if (!replies.get(0).equals(replies.get(3))) return wait.settle(lease, wait.shortfall(key, "connection-lost", null, null));
            return wait.settle(lease, wait.shortfall(key, counts instanceof List<?> aof
                    ? new long[] {(Long) aof.get(0), (Long) aof.get(1)}
                    : new long[] {(Long) counts}));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The server's error message under Spring's translation (its innermost cause's). */
    private static String serverError(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null) cause = cause.getCause();
        return String.valueOf(cause.getMessage());
    }

    /**
     * Queues a command whose reply is an integer (IntegerOutput) or an array (ArrayOutput) in the
     * connection's pipeline. Lettuce's connection decodes a command it has no type hint for as bytes:
     * it is given Lettuce's output, found at run time, so the helper compiles without Lettuce on a
     * Jedis connection factory.
     */
    private static void send(RedisConnection connection, String command, String output, byte[]... args) {
        Class<?> type = connection.getClass();
        if (!type.getName().equals("org.springframework.data.redis.connection.lettuce.LettuceConnection")) {
            connection.execute(command, args);
            return;
        }
        try {
            ClassLoader loader = type.getClassLoader();
            Class<?> codec = loader.loadClass("io.lettuce.core.codec.RedisCodec");
            Object bytes = loader.loadClass("io.lettuce.core.codec.ByteArrayCodec").getField("INSTANCE").get(null);
            Object decoder = loader.loadClass("io.lettuce.core.output." + output).getConstructor(codec).newInstance(bytes);
            Class<?> outputType = loader.loadClass("io.lettuce.core.output.CommandOutput");
            type.getMethod("execute", String.class, outputType, byte[][].class).invoke(connection, command, decoder, args);
        } catch (ReflectiveOperationException unexpected) {
            throw new IllegalStateException("Lettuce's connection changed: cannot send " + command, unexpected);
        }
    }

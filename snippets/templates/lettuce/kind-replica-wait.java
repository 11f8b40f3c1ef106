«section:imports»
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.netty.buffer.ByteBuf;
«section:options»
«include:_jvm/replica-wait-options»
«section:attempt»
        if (options.waitForReplicas != null) return attemptAndWait(redis, client, key, keys, token, options);
«section:code»
«include:_jvm/replica-wait»

    /**
     * A command that counts its writes. Lettuce resends unanswered commands on its new connection
     * after a reconnection: a WAIT written more often than the acquire before it was resent alone,
     * on a connection that wrote nothing, and its count means nothing.
     */
    static final class Counted<T> extends Command<String, String, T> {
        volatile int writes;

        Counted(ProtocolKeyword type, CommandOutput<String, String, T> output, CommandArgs<String, String> args) {
            super(type, output, args);
        }

        @Override
        public void encode(ByteBuf buf) {
            writes++;
            super.encode(buf);
        }
    }

    private static final ProtocolKeyword WAITAOF = () -> "WAITAOF".getBytes(StandardCharsets.US_ASCII);

    /**
     * The acquire and WAIT (WAITAOF) written back to back on the connection of the commands given
     * (its async side; auto-flush untouched, as the connection is the application's): one round trip.
     */
    private static Lease attemptAndWait(Scripts redis, Object client, String key, List<String> keys, String token,
            Options options) {
        ReplicaWait wait = options.waitForReplicas;
        wait.check(options.ttlMs);
        if (!(client instanceof RedisCommands<?, ?> commands)) {
            throw new IllegalArgumentException("waitForReplicas needs acquire on the synchronous commands of a standalone "
                    + "connection (connection.sync()): the acquire and WAIT go back to back on that connection");
        }
        // The helper's commands are RedisCommands<String, String>; Lettuce 7 deprecates reaching the
        // connection from them, the only way to it from what the helper is given.
        @SuppressWarnings({"unchecked", "deprecation"})
        StatefulRedisConnection<String, String> connection = (StatefulRedisConnection<String, String>) commands.getStatefulConnection();
        long patienceMs = connection.getTimeout().toMillis() + wait.timeoutMs;
        for (boolean flushed = false; ; flushed = true) {
            CommandArgs<String, String> script = new CommandArgs<>(StringCodec.UTF8).add(flushed ? ACQUIRE : sha1(ACQUIRE))
                    .add(keys.size()).addKeys(keys).addValues(token, String.valueOf(options.ttlMs));
            Counted<Long> acquire = new Counted<>(flushed ? CommandType.EVAL : CommandType.EVALSHA,
                    new IntegerOutput<>(StringCodec.UTF8), script);
            Counted<?> waitCommand = wait.fsync
                    ? new Counted<>(WAITAOF, new ArrayOutput<>(StringCodec.UTF8),
                            new CommandArgs<>(StringCodec.UTF8).add(1).add(wait.replicas).add(wait.timeoutMs))
                    : new Counted<>(CommandType.WAIT, new IntegerOutput<>(StringCodec.UTF8),
                            new CommandArgs<>(StringCodec.UTF8).add(wait.replicas).add(wait.timeoutMs));
            AsyncCommand<String, String, Long> acquired = new AsyncCommand<>(acquire);
            AsyncCommand<String, String, ?> waited = new AsyncCommand<>(waitCommand);
            connection.dispatch(acquired);
            connection.dispatch(waited);
            long reply;
            try {
                reply = acquired.get(patienceMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException failed) {
                if (failed.getCause() instanceof RedisNoScriptException && !flushed) continue; // the pair again, with EVAL
                throw failed.getCause() instanceof RedisException cause ? cause : new RedisException(failed.getCause());
            } catch (TimeoutException | InterruptedException late) {
                Lease maybe = new Lease(redis, EXTEND, RELEASE, key, token, null, options.ttlMs, false);
                boolean released = giveBack(maybe);
                if (late instanceof InterruptedException) throw interrupted(key, late);
                throw new ReplicaShortfallException(wait.shortfall(key, "connection-lost", null, null), released);
            }
            if (reply == 0) return null;
            Lease lease = new Lease(redis, EXTEND, RELEASE, key, token, options.fenceKey == null ? null : reply, options.ttlMs, options.renew);
            Object counts;
            try {
                counts = waited.get(patienceMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException failed) {
                ReplicaShortfall shortfall = failed.getCause() instanceof RedisCommandExecutionException error
                        ? wait.shortfall(key, error.getMessage())
                        : wait.shortfall(key, "connection-lost", null, null);
                if (shortfall != null) return wait.settle(lease, shortfall);
                giveBack(lease);
                throw (RedisException) failed.getCause();
            } catch (TimeoutException late) {
                return wait.settle(lease, wait.shortfall(key, "connection-lost", null, null));
            } catch (InterruptedException late) {
                giveBack(lease);
                throw interrupted(key, late);
            }
            if (waitCommand.writes > acquire.writes) return wait.settle(lease, wait.shortfall(key, "connection-lost", null, null));
            return wait.settle(lease, wait.shortfall(key, counts instanceof List<?> aof
                    ? new long[] {(Long) aof.get(0), (Long) aof.get(1)}
                    : new long[] {(Long) counts}));
        }
    }

    private static RedisException interrupted(String key, Exception cause) {
        Thread.currentThread().interrupt();
        return new RedisException("interrupted while acquiring " + key + " with waitForReplicas: given back, not held", cause);
    }

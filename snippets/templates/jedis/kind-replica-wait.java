«section:imports»
import java.util.Objects;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.KeyValue;
«section:options»
«include:_jvm/replica-wait-options»
«section:attempt»
        if (options.waitForReplicas != null) return attemptAndWait(redis, client, key, keys, token, options);
«section:code»
«include:_jvm/replica-wait»

    /**
     * The acquire and WAIT (WAITAOF) in one Jedis Pipeline: one connection (a pool's, or the
     * cluster node's that owns the key: WAIT goes where its sample key, the lock, goes), one round trip.
     */
    private static Lease attemptAndWait(Scripts redis, Object client, String key, List<String> keys, String token,
            Options options) {
        ReplicaWait wait = options.waitForReplicas;
        wait.check(options.ttlMs);
        if (!(client instanceof UnifiedJedis || client instanceof JedisPool || client instanceof Jedis)) {
            throw new IllegalArgumentException("waitForReplicas needs acquire on a UnifiedJedis, JedisPool or Jedis: "
                    + "the acquire and WAIT go in one pipeline on one of its connections");
        }
        List<String> args = List.of(token, String.valueOf(options.ttlMs));
        for (boolean flushed = false; ; flushed = true) {
            Response<Object> acquired;
            Response<?> waited;
            try (Jedis pooled = client instanceof JedisPool pool ? pool.getResource() : null;
                    AbstractPipeline pipeline = pooled != null ? pooled.pipelined()
                            : client instanceof Jedis jedis ? jedis.pipelined() : ((UnifiedJedis) client).pipelined()) {
                acquired = flushed ? pipeline.eval(ACQUIRE, keys, args) : pipeline.evalsha(sha1(ACQUIRE), keys, args);
                waited = wait.fsync ? pipeline.waitAOF(key, 1, wait.replicas, wait.timeoutMs)
                        : pipeline.waitReplicas(key, wait.replicas, wait.timeoutMs);
                try {
                    pipeline.sync();
                } catch (JedisConnectionException lost) {
                    Lease maybe = new Lease(redis, EXTEND, RELEASE, key, token, null, options.ttlMs, false);
                    throw new ReplicaShortfallException(wait.shortfall(key, "connection-lost", null, null), giveBack(maybe));
                }
            }
            long reply;
            try {
                reply = (Long) acquired.get();
            } catch (JedisNoScriptException noscript) {
                if (flushed) throw noscript;
                continue; // the pair again, with EVAL
            }
            if (reply == 0) return null;
            Lease lease = new Lease(redis, EXTEND, RELEASE, key, token, options.fenceKey == null ? null : reply, options.ttlMs, options.renew);
            try {
                Object counts = waited.get();
                return wait.settle(lease, wait.shortfall(key, counts instanceof KeyValue<?, ?> aof
                        ? new long[] {(Long) aof.getKey(), (Long) aof.getValue()}
                        : new long[] {(Long) counts}));
            } catch (JedisDataException error) {
                ReplicaShortfall shortfall = wait.shortfall(key, error.getMessage());
                if (shortfall != null) return wait.settle(lease, shortfall);
                giveBack(lease);
                throw error;
            }
        }
    }

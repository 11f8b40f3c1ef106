«section:imports»
import glide.api.models.Batch;
import glide.api.models.ClusterBatch;
import glide.api.models.commands.batch.BatchOptions;
import glide.api.models.commands.batch.ClusterBatchOptions;
import glide.api.models.configuration.RequestRoutingConfiguration.SlotKeyRoute;
import glide.api.models.configuration.RequestRoutingConfiguration.SlotType;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
«section:options»
«include:_jvm/replica-wait-options»
«section:attempt»
        if (options.waitForReplicas != null) return attemptAndWait(redis, client, key, keys, token, options);
«section:code»
«include:_jvm/replica-wait»

    /**
     * The acquire and WAIT (WAITAOF) as one non-atomic GLIDE batch: a pipeline on GLIDE's one
     * connection to the node (on a GlideClusterClient routed whole to the lock key's primary: WAIT
     * has no key), each reply read on its own. GLIDE's request timeout (250 ms by default) would
     * cut a longer WAIT: the batch has timeoutMs plus a second. NOSCRIPT: the pair again with EVAL.
     */
    private static Lease attemptAndWait(Scripts redis, Object client, String key, List<String> keys, String token,
            Options options) {
        ReplicaWait wait = options.waitForReplicas;
        wait.check(options.ttlMs);
        if (!(client instanceof GlideClient || client instanceof GlideClusterClient)) {
            throw new IllegalArgumentException("waitForReplicas needs acquire on a GlideClient or GlideClusterClient: "
                    + "the acquire and WAIT go in one batch on its connection");
        }
        String[] waitCommand = wait.fsync
                ? new String[] {"WAITAOF", "1", String.valueOf(wait.replicas), String.valueOf(wait.timeoutMs)}
                : new String[] {"WAIT", String.valueOf(wait.replicas), String.valueOf(wait.timeoutMs)};
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, wait.timeoutMs + 1000);
        for (boolean flushed = false; ; flushed = true) {
            String sha1 = SCRIPTS.computeIfAbsent(ACQUIRE, source -> new Script(source, false)).getHash();
            List<String> acquire = new ArrayList<>(flushed ? List.of("EVAL", ACQUIRE) : List.of("EVALSHA", sha1));
            acquire.add(String.valueOf(keys.size()));
            acquire.addAll(keys);
            acquire.addAll(List.of(token, String.valueOf(options.ttlMs)));
            String[] script = acquire.toArray(String[]::new);
            Object[] replies;
            try {
                replies = await(client instanceof GlideClient standalone
                        ? standalone.exec(new Batch(false).customCommand(script).customCommand(waitCommand), false,
                                BatchOptions.builder().timeout(timeoutMs).build())
                        : ((GlideClusterClient) client).exec(new ClusterBatch(false).customCommand(script).customCommand(waitCommand),
                                false, ClusterBatchOptions.builder().timeout(timeoutMs).route(new SlotKeyRoute(key, SlotType.PRIMARY)).build()));
            } catch (GlideException lost) {
                Lease maybe = new Lease(redis, EXTEND, RELEASE, key, token, null, options.ttlMs, false);
                throw new ReplicaShortfallException(wait.shortfall(key, "connection-lost", null, null), giveBack(maybe));
            }
            if (replies[0] instanceof RequestException error) {
                if (!flushed && String.valueOf(error.getMessage()).toLowerCase(Locale.ROOT).contains("noscript")) continue;
                throw error;
            }
            if ((Long) replies[0] == 0) return null;
            Lease lease = new Lease(redis, EXTEND, RELEASE, key, token, options.fenceKey == null ? null : (Long) replies[0], options.ttlMs, options.renew);
            if (replies[1] instanceof RequestException error) {
                ReplicaShortfall shortfall = wait.shortfall(key, serverError(error));
                if (shortfall != null) return wait.settle(lease, shortfall);
                giveBack(lease);
                throw error;
            }
            return wait.settle(lease, wait.shortfall(key, replies[1] instanceof Object[] aof
                    ? new long[] {(Long) aof[0], (Long) aof[1]}
                    : new long[] {(Long) replies[1]}));
        }
    }

    /**
     * The server's error as it sent it: GLIDE reports "An error was signalled by the server: -
     * ResponseError: unknown command ...", the code (ERR) left out; put back, so it reads as the server's.
     */
    static String serverError(RequestException error) {
        Matcher signalled = Pattern.compile("(?s)^An error was signalled by the server: - (\\w+): (.*)$")
                .matcher(String.valueOf(error.getMessage()));
        if (!signalled.matches()) return String.valueOf(error.getMessage());
        String kind = signalled.group(1);
        String code = kind.equals("ResponseError") ? "ERR" : kind.replaceAll("Error$", "").toUpperCase(Locale.ROOT);
        return code + " " + signalled.group(2);
    }

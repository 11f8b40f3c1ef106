«section:imports»
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
«section:options»
        StatefulRedisPubSubConnection<String, String> wakeups;

        /**
         * A pub/sub connection (client.connectPubSub(), one per application, Lettuce 6.4+) on which a
         * waiter hears the release (SSUBSCRIBE on the lock key, shared by the connection's waiters).
         */
        public Options wakeups(StatefulRedisPubSubConnection<String, String> pubsub) {
            return with(copy -> copy.wakeups = pubsub);
        }

«section:waiting»
        private Wakeups wakeups;

        /** Listens for key's release on options.wakeups unless it does already: true when it starts listening. */
        private boolean listen(Object client, Options options, String key, long leftMs) throws InterruptedException {
            if (options.wakeups == null || wakeups != null && wakeups.key.equals(key)) return false;
            close();
            wakeups = Wakeups.listen(options.wakeups, key, Math.min(options.retryMs, leftMs));
            return true;
        }
«include:_jvm/wakeups-pause»
«section:code»

    /**
     * A waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, with an empty payload
     * (one waiter per client) or "*" (all). Each waiter is a listener of the shared pub/sub
     * connection; the key stays subscribed while any waiter of the connection waits on it.
     */
    static final class Wakeups extends RedisPubSubAdapter<String, String> implements AutoCloseable {
        private static final Map<StatefulRedisPubSubConnection<String, String>, Map<String, Integer>> WAITING = new HashMap<>();
        private final StatefulRedisPubSubConnection<String, String> pubsub;
        final String key;

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
            if (channel.equals(key)) heard(message);
        }

«include:_jvm/wakeups-woken»

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

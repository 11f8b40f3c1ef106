«section:imports»
import glide.api.models.configuration.ClusterSubscriptionConfiguration;
import glide.api.models.configuration.ClusterSubscriptionConfiguration.PubSubClusterChannelMode;
import glide.api.models.configuration.GlideClusterClientConfiguration;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
«section:options»
        Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> wakeups;

        /**
         * On a GlideClusterClient, a waiter hears the release (SSUBSCRIBE on the lock key) on a
         * subscriber client of its own: GLIDE 2.1 for Java has sharded pub/sub in cluster mode only and
         * fixes a client's subscriptions when it creates it. configuration builds that client's
         * configuration around the subscriptions given, e.g.
         * {@code subscriptions -> GlideClusterClientConfiguration.builder().addresses(seeds).subscriptionConfiguration(subscriptions).build()}.
         */
        public Options wakeups(Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> configuration) {
            return with(copy -> copy.wakeups = configuration);
        }

«section:waiting»
        private Wakeups wakeups;

        /** Listens for key's release with options.wakeups unless it does already: true when it starts listening. */
        private boolean listen(Object client, Options options, String key, long leftMs) throws InterruptedException {
            if (options.wakeups == null || wakeups != null && wakeups.key.equals(key)) return false;
            if (!(client instanceof GlideClusterClient)) {
                throw new IllegalArgumentException("wakeups need a GlideClusterClient: GLIDE has sharded pub/sub in cluster mode only");
            }
            close();
            wakeups = Wakeups.listen(options.wakeups, key, Math.min(options.retryMs, leftMs));
            return true;
        }
«include:_jvm/wakeups-pause»
«section:code»

    /**
     * A waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, with an empty payload
     * (one waiter per client) or "*" (all). A subscriber client of its own, subscribed to the lock
     * key's shard channel when GLIDE creates it, closed when the wait ends.
     */
    static final class Wakeups implements AutoCloseable {
        final String key;
        private final CompletableFuture<GlideClusterClient> subscriber;

        private Wakeups(Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> configuration, String key) {
            this.key = key;
            ClusterSubscriptionConfiguration subscriptions = ClusterSubscriptionConfiguration.builder()
                    .subscription(PubSubClusterChannelMode.SHARDED, key)
                    .callback((message, context) -> heard(message.getMessage().toString()))
                    .build();
            subscriber = GlideClusterClient.createClient(configuration.apply(subscriptions));
        }

        /** Opens the subscriber; returns once subscribed, or after patienceMs (then the retry bound covers). */
        static Wakeups listen(Function<ClusterSubscriptionConfiguration, GlideClusterClientConfiguration> configuration,
                String key, long patienceMs) throws InterruptedException {
            Wakeups wakeups = new Wakeups(configuration, key);
            try {
                wakeups.subscriber.get(patienceMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
                // cannot connect, no channel rights, or slow: the retry bound covers
            }
            return wakeups;
        }

«include:_jvm/wakeups-woken»

        @Override
        public void close() {
            subscriber.thenAccept(opened -> {
                try {
                    opened.close();
                } catch (ExecutionException closing) {
                    // the subscriber was already gone
                }
            });
        }
    }

«section:imports»
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.util.Pool;
«section:waiting»
        private Wakeups wakeups;
        private boolean polls; // no pool, no sharded subscription

        /**
         * Listens for key's release (SSUBSCRIBE on a connection and a thread of its own, as a Jedis
         * subscription blocks its thread) unless it does already: true when it starts listening.
         */
        private boolean listen(Object client, Options options, String key, long leftMs) throws InterruptedException {
            if (polls || wakeups != null && wakeups.key.equals(key)) return false;
            close();
            Subscriber subscriber = subscriber(client);
            polls = subscriber == null;
            if (polls) return false;
            wakeups = Wakeups.listen(subscriber, key, Math.min(options.retryMs, leftMs));
            return true;
        }
«include:_jvm/wakeups-pause»
«section:code»

    /** Subscribes a listener to a sharded channel, blocking until it unsubscribes (Jedis's ssubscribe). */
    @FunctionalInterface
    interface Subscriber {
        void ssubscribe(JedisShardedPubSub listener, String channel);
    }

    /**
     * How the client subscribes, found at run time so the helper compiles against Jedis 4.4 to 8: a
     * connection of a JedisPool or of a standalone client's pool (JedisPooled, RedisClient: getPool()),
     * a cluster client's ssubscribe (JedisCluster, RedisClusterClient); null for none.
     */
    static Subscriber subscriber(Object client) {
        if (client instanceof JedisPool pool) {
            return (listener, channel) -> {
                try (Jedis jedis = pool.getResource()) {
                    listener.proceed(jedis.getConnection(), channel);
                }
            };
        }
        if (!(client instanceof UnifiedJedis jedis)) return null;
        try {
            Method ssubscribe = jedis.getClass().getMethod("ssubscribe", JedisShardedPubSub.class, String[].class);
            return (listener, channel) -> invoke(ssubscribe, jedis, listener, new String[] {channel});
        } catch (NoSuchMethodException standalone) {
            // below
        }
        try {
            Method getPool = jedis.getClass().getMethod("getPool");
            return (listener, channel) -> {
                try (Connection connection = (Connection) ((Pool<?>) invoke(getPool, jedis)).getResource()) {
                    listener.proceed(connection, channel);
                }
            };
        } catch (NoSuchMethodException neither) {
            return null;
        }
    }

    static Object invoke(Method method, Object target, Object... args) {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException failed) {
            throw failed.getCause() instanceof JedisException cause ? cause : new JedisException(failed.getCause());
        } catch (IllegalAccessException unexpected) {
            throw new JedisException(unexpected);
        }
    }

    /**
     * A waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, with an empty payload
     * (one waiter per client) or "*" (all). A daemon thread holds the subscription (Jedis's
     * ssubscribe blocks) until close() unsubscribes, which returns its connection clean.
     */
    static final class Wakeups extends JedisShardedPubSub implements AutoCloseable {
        final String key;
        private final CountDownLatch subscribed = new CountDownLatch(1);
        private final AtomicBoolean closed = new AtomicBoolean();
        private final AtomicBoolean unsubscribed = new AtomicBoolean();

        private Wakeups(String key) {
            this.key = key;
        }

        /** Subscribes in a thread of its own; returns once subscribed, or after patienceMs (then the retry bound covers). */
        static Wakeups listen(Subscriber subscriber, String key, long patienceMs) throws InterruptedException {
            Wakeups wakeups = new Wakeups(key);
            Thread thread = new Thread(() -> {
                try {
                    subscriber.ssubscribe(wakeups, key);
                } catch (JedisException failed) {
                    // a server before 7.0, no channel rights, a broken connection: the retry bound covers
                } finally {
                    wakeups.subscribed.countDown();
                }
            }, "locksmith-wakeups " + key);
            thread.setDaemon(true);
            thread.start();
            wakeups.subscribed.await(patienceMs, TimeUnit.MILLISECONDS);
            return wakeups;
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            subscribed.countDown();
            if (closed.get()) unsubscribeOnce();
        }

        @Override
        public void onSMessage(String channel, String message) {
            heard(message);
        }

«include:_jvm/wakeups-woken»

        @Override
        public void close() {
            closed.set(true);
            if (isSubscribed()) unsubscribeOnce();
        }

        private void unsubscribeOnce() {
            if (unsubscribed.compareAndSet(false, true)) sunsubscribe();
        }
    }

«include:_js/wakeups»
«section:about»
// With wake-ups it waits in line, and the release wakes it (SSUBSCRIBE on the lock key, one
// duplicate of the client shared by its waiters, closed when none is left).
«section:client»
  zRem(key: string, member: string): Promise<unknown>;
  duplicate(): Subscriber;
«section:code»
«include:_js/wakeups-code»

function leaveLine(redis«ts:: LockClient», queue«ts:: string», token«ts:: string»)«ts:: Promise<unknown>» {
  return redis.zRem(queue, token);
}
«ts:
/** A duplicate of the client that waits for wake-ups: a client with subscriptions runs no other commands. */
interface Subscriber {
  on(event: 'error', listener: (error: Error) => void): unknown;
  connect(): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  sUnsubscribe(channel: string): Promise<void>;
  disconnect(): Promise<void>;
}»

/** The client's wake-ups, on a duplicate of it. */
function openWakeups(redis«ts:: LockClient», wake«ts:: (channel: string, payload: string) => void»)«ts:: Wakeups» {
  const subscriber = redis.duplicate();
  subscriber.on('error', () => undefined); // it reconnects and resubscribes; the timers cover the gap
  const connected = subscriber.connect();
  // On a cluster, a shard's subscriber connection closed while it opens stays open (node-redis 5):
  // close once the subscriptions in flight have settled.
  const subscribing = new Set«ts:<Promise<unknown>>»();
  return {
    subscribe: (key) => {
      const subscribed = connected.then(() => subscriber.sSubscribe(key, (payload) => wake(key, payload)));
      subscribing.add(subscribed);
      void subscribed.catch(() => undefined).then(() => subscribing.delete(subscribed));
      return subscribed;
    },
    unsubscribe: (key) => void subscriber.sUnsubscribe(key).catch(() => undefined),
    close: () =>
      void Promise.allSettled([connected, ...subscribing])
        .then(() => subscriber.disconnect())
        .catch(() => undefined),
  };
}

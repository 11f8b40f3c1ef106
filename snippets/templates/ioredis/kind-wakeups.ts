«include:_js/wakeups»
«section:about»
// With wake-ups it waits in line, and the release wakes it (SSUBSCRIBE on the lock key, one
// connection per client shared by its waiters, closed when none is left).
«section:code»
«include:_js/wakeups-code»

function leaveLine(redis«ts:: LockClient», queue«ts:: string», token«ts:: string»)«ts:: Promise<unknown>» {
  return redis.zrem(queue, token);
}

/** The client's wake-ups, on a duplicate connection (a Cluster's with sharded subscribers). */
function openWakeups(redis«ts:: LockClient», wake«ts:: (channel: string, payload: string) => void»)«ts:: Wakeups» {
  const subscriber = redis.isCluster
    ? «ts:(redis as Cluster)»«js:redis».duplicate([], { shardedSubscribers: true })
    : «ts:(redis as Redis)»«js:redis».duplicate();
  subscriber.on('error', () => undefined); // it reconnects and resubscribes; the timers cover the gap
  subscriber.on('smessage', wake);
  return {
    subscribe: (key) => subscriber.ssubscribe(key),
    unsubscribe: (key) => void subscriber.sunsubscribe(key).catch(() => undefined),
    close: () => subscriber.disconnect(),
  };
}

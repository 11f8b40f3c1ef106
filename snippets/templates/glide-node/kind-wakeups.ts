«include:_js/wakeups»
«section:about»
// With wake-ups, on a GlideClusterClient given to enableWakeups(), it waits in line and the
// release wakes it (SSUBSCRIBE on the lock key). GLIDE has sharded pub/sub in cluster mode only,
// and a standalone SUBSCRIBE never receives the release's SPUBLISH: on a GlideClient waiters poll, in line.
«section:imports»
«ts:import type { GlideClusterClientConfiguration } from '@valkey/valkey-glide';»
«section:code»
«include:_js/wakeups-code»

function leaveLine(client«ts:: LockClient», queue«ts:: string», token«ts:: string»)«ts:: Promise<unknown>» {
  return client.zrem(queue, [token]);
}

/** The configurations enableWakeups was given, per cluster client. */
const subscriberConfigurations = new WeakMap«ts:<LockClient, GlideClusterClientConfiguration>»();

/**
 * Lets the waiters of a GlideClusterClient be woken by the release: GLIDE cannot duplicate a client
 * and sets a client's message callback when it creates it, so the helper opens its subscriber (one
 * per client, while it has waiters) from the configuration `client` was created with.
 */
«esm:export »function enableWakeups(client«ts:: GlideClusterClient», configuration«ts:: GlideClusterClientConfiguration»)«ts:: void» {
  subscriberConfigurations.set(client, configuration);
}

/** Wake-ups that never come: the waiters' timers poll. */
const POLLING«ts:: Wakeups» = {
  subscribe: () => Promise.resolve(),
  unsubscribe: () => undefined,
  close: () => undefined,
};

/** The client's wake-ups: on a cluster client given to enableWakeups, a second client that SSUBSCRIBEs. */
function openWakeups(client«ts:: LockClient», wake«ts:: (channel: string, payload: string) => void»)«ts:: Wakeups» {
  const configuration = subscriberConfigurations.get(client);
  if (configuration === undefined) return POLLING;
  const subscriber = GlideClusterClient.createClient({
    ...configuration,
    pubsubSubscriptions: {
      channelsAndPatterns: {},
      callback: (message) => wake(String(message.channel), String(message.message)),
    },
  });
  subscriber.catch(() => undefined); // cannot connect: its waiters wake by their timers
  return {
    subscribe: (key) => subscriber.then((opened) => opened.ssubscribe([key], 10_000)),
    unsubscribe: (key) => void subscriber.then((opened) => opened.sunsubscribeLazy([key])).catch(() => undefined),
    close: () => void subscriber.then((opened) => opened.close()).catch(() => undefined),
  };
}
«section:exports»
  enableWakeups,

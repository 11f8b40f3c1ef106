«header»

// Locks for Valkey GLIDE for Node: withLock(client, key, { ttlMs }, async (lease) => ...) holds a
// lock around the callback; acquire() and lease.release() are for code that cannot use one;
// tryAcquire() tries once and never waits (null when busy); releaseLock() and extendLock() take a
// key and a token. A waiter sleeps in line until the holder's lease ends or a jittered retry bound
// passes, and on a GlideClusterClient given to enableWakeups() until the release wakes it
// (SSUBSCRIBE on the lock key). GLIDE has sharded pub/sub in cluster mode only, and a standalone
// SUBSCRIBE never receives the release's SPUBLISH: on a GlideClient waiters poll.
«ts:import type { GlideClient, GlideClusterClientConfiguration } from '@valkey/valkey-glide';»
«esm:import { GlideClusterClient, Script } from '@valkey/valkey-glide';»
«cjs:const { GlideClusterClient, Script } = require('@valkey/valkey-glide');»
«esm:import { randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«cjs:const { randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»
«kinds:imports»

// GLIDE runs a Script with EVALSHA and on NOSCRIPT (script cache flushed, restart, failover) loads
// it and runs it again; a flush between the two (SCRIPT FLUSH, a failover) still gives NOSCRIPT,
// and then the source goes once with EVAL, which cannot miss. Each Script is made at first use.
const SCRIPTS = {
  locksmithAcquire: `«lua:acquire»`,
  locksmithAcquireQueued: `«lua:acquire_queued»`,
  locksmithExtend: `«lua:extend»`,
  locksmithRelease: `«lua:release»`,
«kinds:scripts»
};
const scripts = new Map«ts:<ScriptName, Script>»();

«ts:export type LockClient = GlideClient | GlideClusterClient;
»
/** Runs a script by invokeScript: the keys, the arguments. */
async function call(client«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]»)«ts:: Promise<unknown>» {
  let script = scripts.get(name);
  if (script === undefined) {
    script = new Script(SCRIPTS[name]);
    scripts.set(name, script);
  }
  try {
    return await client.invokeScript(script, { keys, args: args.map(String) });
  } catch (error) {
    if (!(error instanceof Error) || !/NoScript/i.test(error.message)) throw error;
    return await client.customCommand(['EVAL', SCRIPTS[name], String(keys.length), ...keys, ...args.map(String)]);
  }
}

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

«include:_js/core»
«kinds:code»
«include:_js/exports»
«cjs:module.exports.enableWakeups = enableWakeups;»

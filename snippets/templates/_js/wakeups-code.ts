
«ts:/** A client's wake-ups: a subscription per lock key on a connection of its own, shared by its waiters. */
interface Wakeups {
  subscribe(key: string): Promise<unknown>;
  unsubscribe(key: string): void;
  close(): void;
}

type Channels = Map<string, { subscribed: Promise<unknown>; waiters: Waiter[] }>;
»const hubs = new WeakMap«ts:<LockClient, { wakeups: Wakeups; channels: Channels }>»();

/**
 * Joins the waiters of its key: the scripts that free a lock SPUBLISH on its key's name, with an
 * empty payload (wake one waiter of each client), '*' (wake all) or the token of the waiter to wake.
 * Resolves once subscribed, or after the retry bound: a waiter whose subscription stalls or fails
 * (a server before 7.0, an ACL without channel rights) still wakes by its timer. Returns how it leaves.
 */
async function listen(waiter«ts:: Waiter»)«ts:: Promise<() => void>» {
  const { redis, key } = waiter;
  let hub = hubs.get(redis);
  if (hub === undefined) {
    const channels«ts:: Channels» = new Map();
    const wakeups = openWakeups(redis, (channel, payload) => {
      const waiters = channels.get(channel)?.waiters ?? [];
      if (payload === '*') for (const each of waiters) each.wake();
      else if (payload === '') waiters[0]?.wake();
      else waiters.find((each) => each.token === payload)?.wake();
    });
    hub = { wakeups, channels };
    hubs.set(redis, hub);
  }
  const { wakeups, channels } = hub;
  let channel = channels.get(key);
  if (channel === undefined) {
    channel = { subscribed: wakeups.subscribe(key).catch(() => undefined), waiters: [] };
    channels.set(key, channel);
  }
  channel.waiters.push(waiter);
  let timer«ts:: NodeJS.Timeout | undefined»;
  await Promise.race([channel.subscribed, new Promise((resolve) => (timer = setTimeout(resolve, waiter.retryMs)))]);
  clearTimeout(timer);
  waiter.wake(); // a release may have gone out before the subscription: try again at once
  const entry = channel;
  return () => {
    entry.waiters = entry.waiters.filter((other) => other !== waiter);
    if (entry.waiters.length > 0 || channels.get(key) !== entry) return;
    channels.delete(key);
    if (channels.size > 0) return wakeups.unsubscribe(key);
    hubs.delete(redis);
    wakeups.close();
  };
}

/**
 * The waiter queue of a plain lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
 * lock:order:42 -> {lock:order:42}:waiters; none for a key with '}' but no hash tag.
 */
function waitersKey(key«ts:: string»)«ts:: string | undefined» {
  const open = key.indexOf('{');
  if (open >= 0 && key.indexOf('}', open + 1) > open + 1) return `${key}:waiters`;
  return key.includes('}') ? undefined : `{${key}}:waiters`;
}

/**
 * Takes a plain lock in line, first come first served: the release takes the first waiter off the
 * queue and wakes exactly that one. A waiter that gives up or is cancelled leaves the line.
 */
async function acquireInLine(redis«ts:: LockClient», key«ts:: string», queue«ts:: string», options«ts:: LockOptions», send«ts:: typeof call»)«ts:: Promise<Lease>» {
  const { ttlMs, waitMs = 10_000, retryMs = 500, fenceKey, renew = false } = options;
  const token = newToken();
  const keys = fenceKey === undefined ? [key, queue] : [key, queue, fenceKey];
  const deadline = Date.now() + waitMs;
  const reply = await take(redis, key, token, options, async () => {
    const queueMs = Math.max(1, deadline - Date.now()) + 2 * retryMs;
    const replies = await send(redis, 'locksmithAcquireQueued', keys, [token, ttlMs, queueMs]);
    const [taken = 0, leaseMs = -1] = «ts:(replies as unknown[])»«js:replies».map(Number);
    return { reply: taken, leaseMs };
  }).catch(async (error«ts:: unknown») => {
    await leaveLine(redis, queue, token).catch(() => 0); // cancelled: leave the line
    throw error;
  });
  if (reply === 0) {
    await leaveLine(redis, queue, token);
    throw new LockBusyError(key, waitMs);
  }
  return new Lease(redis, PLAIN, key, token, ttlMs, fenceKey === undefined ? undefined : reply, renew, [key, queue]);
}

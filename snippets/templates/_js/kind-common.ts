/** Takes a lock of another kind by its acquire script (reply 0: busy): the lease, or LockBusyError naming who holds it. */
async function acquireKind(redis«ts:: LockClient», key«ts:: string», token«ts:: string», options«ts:: WaitOptions», kind«ts:: Kind», script«ts:: ScriptName», args«ts:: (string | number)[]», holders«ts:: string»)«ts:: Promise<Lease>» {
  const reply = await take(redis, key, token, options, async () => ({
    reply: await run(redis, script, [key], [token, options.ttlMs, ...args]),
  }));
  if (reply === 0) throw new LockBusyError(key, options.waitMs ?? 10_000, holders);
  return new Lease(redis, kind, key, token, options.ttlMs, undefined, options.renew ?? false);
}


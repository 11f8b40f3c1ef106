// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in a cluster: use the same {hash tag}.
// Valkey GLIDE runs a Script with EVALSHA and loads it again on NOSCRIPT. Needs Script from
// '@valkey/valkey-glide' and a GlideClient or GlideClusterClient `client`: make the scripts once,
// then take the lock where you need it.
const locksmithAcquire = new Script(`«lua:acquire»`);
const locksmithRelease = new Script(`«lua:release»`);

const lockKey = «key»;
const fenceKey = «fence»;
const lockTtlMs = «ttl»;
const lockToken = `${process.env.HOSTNAME ?? 'host'}:${process.pid}:${crypto.randomUUID()}`;
const lockWaitUntil = Date.now() + 10000; // give up after waiting 10 s
let fencingToken;
for (let attempt = 0; (fencingToken = await client.invokeScript(locksmithAcquire, { keys: [lockKey, fenceKey], args: [lockToken, String(lockTtlMs)] })) === 0; attempt++) {
  if (Date.now() > lockWaitUntil) throw new Error(`${lockKey} is still held by another owner`);
  await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 500) * (0.5 + Math.random())));
}
try {
  «body»
} finally {
  await client.invokeScript(locksmithRelease, { keys: [lockKey], args: [lockToken] });
}

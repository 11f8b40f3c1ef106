// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally. Valkey GLIDE runs a Script with EVALSHA and loads
// it again on NOSCRIPT. Needs Script from '@valkey/valkey-glide' and a GlideClient or
// GlideClusterClient `client`: make the scripts once, then take the lock where you need it.
const locksmithAcquire = new Script(`«lua:acquire»`);
const locksmithRelease = new Script(`«lua:release»`);

const lockKey = «key»;
const lockTtlMs = «ttl»;
const lockToken = `${process.env.HOSTNAME ?? 'host'}:${process.pid}:${crypto.randomUUID()}`;
const lockWaitUntil = Date.now() + 10000; // give up after waiting 10 s
for (let attempt = 0; (await client.invokeScript(locksmithAcquire, { keys: [lockKey], args: [lockToken, String(lockTtlMs)] })) === 0; attempt++) {
  if (Date.now() > lockWaitUntil) throw new Error(`${lockKey} is still held by another owner`);
  await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 500) * (0.5 + Math.random())));
}
try {
  «body»
} finally {
  await client.invokeScript(locksmithRelease, { keys: [lockKey], args: [lockToken] });
}

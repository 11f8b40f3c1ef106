// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 while the
// body runs, stop renewing on release. lockLost.aborted turns true (with a reason) when a
// renewal fails: the lease may have passed to another owner, so stop writing.
// Valkey GLIDE runs a Script with EVALSHA and loads it again on NOSCRIPT. Needs Script from
// '@valkey/valkey-glide' and a GlideClient or GlideClusterClient `client`: make the scripts once,
// then take the lock where you need it.
const locksmithAcquire = new Script(`«lua:acquire»`);
const locksmithExtend = new Script(`«lua:extend»`);
const locksmithRelease = new Script(`«lua:release»`);

const lockKey = «key»;
const lockTtlMs = «ttl»;
const lockToken = `${process.env.HOSTNAME ?? 'host'}:${process.pid}:${crypto.randomUUID()}`;
const lockWaitUntil = Date.now() + 10000; // give up after waiting 10 s
for (let attempt = 0; (await client.invokeScript(locksmithAcquire, { keys: [lockKey], args: [lockToken, String(lockTtlMs)] })) === 0; attempt++) {
  if (Date.now() > lockWaitUntil) throw new Error(`${lockKey} is still held by another owner`);
  await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 500) * (0.5 + Math.random())));
}
const lockRenewal = new AbortController();
const lockLost = lockRenewal.signal;
const lockRenewer = setInterval(() => {
  client.invokeScript(locksmithExtend, { keys: [lockKey], args: [lockToken, String(lockTtlMs)] }).then(
    (held) => held === 0 && lockRenewal.abort(new Error(`lease on ${lockKey} lost`)),
    (error) => lockRenewal.abort(error),
  );
}, Math.max(1, Math.floor(lockTtlMs / 3)));
try {
  «body»
} finally {
  clearInterval(lockRenewer);
  await client.invokeScript(locksmithRelease, { keys: [lockKey], args: [lockToken] });
}

// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 while the
// body runs, stop renewing on release. lockLost.aborted turns true (with a reason) when a
// renewal fails: the lease may have passed to another owner, so stop writing.
redis.defineCommand('locksmithAcquire', { numberOfKeys: 1, lua: `«lua:acquire»` });
redis.defineCommand('locksmithExtend', { numberOfKeys: 1, lua: `«lua:extend»` });
redis.defineCommand('locksmithRelease', { numberOfKeys: 1, lua: `«lua:release»` });
const lockKey = «key»;
const lockTtlMs = «ttl»;
const lockToken = `${process.env.HOSTNAME ?? 'host'}:${process.pid}:${crypto.randomUUID()}`;
const lockWaitUntil = Date.now() + 10000; // give up after waiting 10 s
for (let attempt = 0; (await redis.locksmithAcquire(lockKey, lockToken, lockTtlMs)) === 0; attempt++) {
  if (Date.now() > lockWaitUntil) throw new Error(`${lockKey} is still held by another owner`);
  await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 500) * (0.5 + Math.random())));
}
const lockRenewal = new AbortController();
const lockLost = lockRenewal.signal;
const lockRenewer = setInterval(() => {
  redis.locksmithExtend(lockKey, lockToken, lockTtlMs).then(
    (held) => held === 0 && lockRenewal.abort(new Error(`lease on ${lockKey} lost`)),
    (error) => lockRenewal.abort(error),
  );
}, Math.max(1, Math.floor(lockTtlMs / 3)));
try {
  «body»
} finally {
  clearInterval(lockRenewer);
  await redis.locksmithRelease(lockKey, lockToken);
}

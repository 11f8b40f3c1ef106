// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally. ioredis runs the scripts with EVALSHA and
// loads them on NOSCRIPT. TypeScript: declare locksmithAcquire/locksmithRelease on Redis.
redis.defineCommand('locksmithAcquire', { numberOfKeys: 1, lua: `«lua:acquire»` });
redis.defineCommand('locksmithRelease', { numberOfKeys: 1, lua: `«lua:release»` });
const lockKey = «key»;
const lockTtlMs = «ttl»;
const lockToken = `${process.env.HOSTNAME ?? 'host'}:${process.pid}:${crypto.randomUUID()}`;
const lockWaitUntil = Date.now() + 10000; // give up after waiting 10 s
for (let attempt = 0; (await redis.locksmithAcquire(lockKey, lockToken, lockTtlMs)) === 0; attempt++) {
  if (Date.now() > lockWaitUntil) throw new Error(`${lockKey} is still held by another owner`);
  await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 500) * (0.5 + Math.random())));
}
try {
  «body»
} finally {
  await redis.locksmithRelease(lockKey, lockToken);
}

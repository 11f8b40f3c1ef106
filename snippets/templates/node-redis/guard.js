// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release in finally. node-redis (v4, v5) runs a defineScript with
// EVALSHA and falls back to EVAL on NOSCRIPT. Needs createClient and defineScript from 'redis':
// create the client `redis` with these scripts once, then take the lock where you need it.
// TypeScript: annotate the untyped parameters (numberOfKeys: number, lua: string, args: unknown[]).
const locksmithScript = (numberOfKeys, lua) =>
  defineScript({
    NUMBER_OF_KEYS: numberOfKeys,
    SCRIPT: lua,
    // v5 builds the call with parseCommand; v4 with transformArguments, routed by FIRST_KEY_INDEX.
    parseCommand(parser, ...args) {
      parser.pushKeys(args.slice(0, numberOfKeys));
      parser.push(...args.slice(numberOfKeys).map(String));
    },
    transformArguments: (...args) => args.map(String),
    FIRST_KEY_INDEX: 0,
    transformReply: (reply) => reply,
  });
const redis = createClient({
  url: process.env.REDIS_URL,
  scripts: {
    locksmithAcquire: locksmithScript(1, `«lua:acquire»`),
    locksmithRelease: locksmithScript(1, `«lua:release»`),
  },
});
await redis.connect();

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

import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'ioredis',
  file: 'proof.js',
  command: [process.execPath],
  program: (snippet, after) => `const Redis = require(${JSON.stringify(require.resolve('ioredis'))});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function main() {
  const [url, rounds] = process.argv.slice(2);
  const redis = new Redis(url);
  for (let round = 0; round < Number(rounds); round++) {
${indent(snippet, '    ')}
${indent(after, '    ')}
  }
  redis.disconnect();
}
main().catch((error) => { console.error(error); process.exit(1); });
`,
  bodies: {
    // SCRIPT FLUSH makes the release (and the other process's next acquire) take the NOSCRIPT fallback.
    guard: `if ((await redis.incr('proof:occupancy')) !== 1) throw new Error('two holders at once');
const value = Number(await redis.get('proof:counter'));
await redis.set('proof:counter', value + 1);
await redis.script('FLUSH');
await redis.decr('proof:occupancy');`,
    renew: `for (let i = 0; i < 10; i++) {
  await sleep(500);
  if ((await redis.get(lockKey)) !== lockToken) throw new Error('lease lost while renewing');
}
if (lockLost.aborted) throw new Error('renewal reported a loss');
await redis.incr('proof:renewed');`,
    // The pause keeps both processes contending for the lock while their rounds overlap.
    fenced: `await sleep(10);
await redis.rpush('proof:tokens', String(fencingToken));`,
  },
  afterRenew: `await redis.set(lockKey, lockToken);
await sleep(3 * lockTtlMs);
if ((await redis.pttl(lockKey)) !== -1) throw new Error('still renewing after release');
await redis.del(lockKey);`,
};

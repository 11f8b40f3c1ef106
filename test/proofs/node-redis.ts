import { indent, type Proof } from './proof';

// The snippet creates its client: its part up to the lock code runs once per process, the lock
// code once per round, as a user would keep them.
const LOCK_CODE = '\nconst lockKey = ';

export const proof: Proof = {
  client: 'node-redis',
  file: 'proof.js',
  command: [process.execPath],
  program: (snippet, after) => {
    const split = snippet.indexOf(LOCK_CODE);
    if (split < 0) throw new Error(`node-redis snippet has no '${LOCK_CODE.trim()}' after its client set-up`);
    return `const { createClient, defineScript } = require(${JSON.stringify(require.resolve('redis'))});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function main() {
  const [url, rounds] = process.argv.slice(2);
  process.env.REDIS_URL = url;
${indent(snippet.slice(0, split), '  ')}
  for (let round = 0; round < Number(rounds); round++) {
${indent(snippet.slice(split + 1), '    ')}
${indent(after, '    ')}
  }
  await redis.close();
}
main().catch((error) => { console.error(error); process.exit(1); });
`;
  },
  bodies: {
    // SCRIPT FLUSH makes the release (and the other process's next acquire) take the NOSCRIPT fallback.
    guard: `if ((await redis.incr('proof:occupancy')) !== 1) throw new Error('two holders at once');
const value = Number(await redis.get('proof:counter'));
await redis.set('proof:counter', value + 1);
await redis.scriptFlush();
await redis.decr('proof:occupancy');`,
    renew: `for (let i = 0; i < 10; i++) {
  await sleep(500);
  if ((await redis.get(lockKey)) !== lockToken) throw new Error('lease lost while renewing');
}
if (lockLost.aborted) throw new Error('renewal reported a loss');
await redis.incr('proof:renewed');`,
    // The pause keeps both processes contending for the lock while their rounds overlap.
    fenced: `await sleep(10);
await redis.rPush('proof:tokens', String(fencingToken));`,
  },
  afterRenew: `await redis.set(lockKey, lockToken);
await sleep(3 * lockTtlMs);
if ((await redis.pTTL(lockKey)) !== -1) throw new Error('still renewing after release');
await redis.del(lockKey);`,
};

import { existsSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { npmPackages } from '../../harness/toolchains';
import { indent, type Proof } from './proof';

// The snippet makes its Script objects once (its part up to the lock code), then takes the lock
// once per round, as a user would keep them.
const LOCK_CODE = '\nconst lockKey = ';

export const proof: Proof = {
  client: 'glide-node',
  file: 'proof.js',
  // GLIDE pinned in test/proofs/glide, linked as the programs' node_modules, where a project has it.
  async build(path) {
    const modules = join(dirname(path), 'node_modules');
    if (!existsSync(modules)) symlinkSync(await npmPackages('glide'), modules);
    return [process.execPath, path];
  },
  program: (snippet, after) => {
    const split = snippet.indexOf(LOCK_CODE);
    if (split < 0) throw new Error(`glide-node snippet has no '${LOCK_CODE.trim()}' after its scripts`);
    return `const { GlideClient, Script } = require('@valkey/valkey-glide');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function main() {
  const [url, rounds] = process.argv.slice(2);
  const { hostname, port } = new URL(url);
  // GLIDE's default timeouts (250 ms a request, 2 s a connection) are shorter than a loaded 2-core machine answers in.
  const client = await GlideClient.createClient({
    addresses: [{ host: hostname, port: Number(port) }],
    requestTimeout: 5000,
    advancedConfiguration: { connectionTimeout: 5000 },
  });
${indent(snippet.slice(0, split), '  ')}
  for (let round = 0; round < Number(rounds); round++) {
${indent(snippet.slice(split + 1), '    ')}
${indent(after, '    ')}
  }
  client.close();
}
main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
`;
  },
  bodies: {
    // SCRIPT FLUSH makes the release (and the other process's next acquire) load the script again.
    guard: `if ((await client.incr('proof:occupancy')) !== 1) throw new Error('two holders at once');
const value = Number(await client.get('proof:counter'));
await client.set('proof:counter', String(value + 1));
await client.scriptFlush();
await client.decr('proof:occupancy');`,
    renew: `for (let i = 0; i < 10; i++) {
  await sleep(500);
  if ((await client.get(lockKey)) !== lockToken) throw new Error('lease lost while renewing');
}
if (lockLost.aborted) throw new Error('renewal reported a loss');
await client.incr('proof:renewed');`,
    // The pause keeps both processes contending for the lock while their rounds overlap.
    fenced: `await sleep(10);
await client.rpush('proof:tokens', [String(fencingToken)]);`,
  },
  afterRenew: `await client.set(lockKey, lockToken);
await sleep(3 * lockTtlMs);
if ((await client.pttl(lockKey)) !== -1) throw new Error('still renewing after release');
await client.del([lockKey]);`,
};

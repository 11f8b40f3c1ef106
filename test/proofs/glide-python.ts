import { pypiPython } from '../../harness/toolchains';
import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'glide-python',
  file: 'proof.py',
  // GLIDE pinned in test/proofs/glide/requirements.txt, in its virtual environment under the cache.
  build: async (path) => [await pypiPython('glide/requirements.txt'), path],
  // GLIDE's API is asyncio: the snippet runs in a coroutine, once per round.
  program: (snippet, after) => `import asyncio, sys, time
from urllib.parse import urlparse

from glide import AdvancedGlideClientConfiguration, GlideClient, GlideClientConfiguration, NodeAddress


async def main():
    url, rounds = sys.argv[1], int(sys.argv[2])
    address = urlparse(url)
    # GLIDE's default timeouts (250 ms a request, 2 s a connection) are shorter than a loaded 2-core machine answers in.
    configuration = GlideClientConfiguration(
        [NodeAddress(address.hostname, address.port)],
        request_timeout=5000,
        advanced_config=AdvancedGlideClientConfiguration(connection_timeout=5000),
    )
    client = await GlideClient.create(configuration)
    for _ in range(rounds):
${indent(snippet, '        ')}
${indent(after, '        ')}
    await client.close()


asyncio.run(main())
`,
  bodies: {
    // No SCRIPT FLUSH here (the renew body has one): GLIDE answers NOSCRIPT with SCRIPT LOAD then
    // EVALSHA, so a flush by the other process between the two surfaces NoScript (the helper sends
    // EVAL then; the snippet stays short).
    guard: `if await client.incr("proof:occupancy") != 1:
    raise RuntimeError("two holders at once")
value = int(await client.get("proof:counter") or 0)
await client.set("proof:counter", str(value + 1))
await client.decr("proof:occupancy")`,
    // One process: the flush makes the renewal's extend and the release take the NOSCRIPT path.
    renew: `await client.script_flush()
for _ in range(10):
    await asyncio.sleep(0.5)
    if await client.get(lock_key) != lock_token.encode():
        raise RuntimeError("lease lost while renewing")
if lock_lost.is_set():
    raise RuntimeError("renewal reported a loss")
await client.incr("proof:renewed")`,
    // The pause keeps both processes contending for the lock while their rounds overlap.
    fenced: `await asyncio.sleep(0.01)
await client.rpush("proof:tokens", [str(fencing_token)])`,
  },
  afterRenew: `await client.set(lock_key, lock_token)
await asyncio.sleep(3 * lock_ttl_ms / 1000)
if await client.pttl(lock_key) != -1:
    raise RuntimeError("still renewing after release")
await client.delete([lock_key])`,
};

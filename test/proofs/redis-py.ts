import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'redis-py',
  file: 'proof.py',
  // Debian's python3-redis lives in the system interpreter, not in a pyenv or venv one.
  command: ['/usr/bin/python3'],
  program: (snippet, after) => `import sys, time
import redis

url, rounds = sys.argv[1], int(sys.argv[2])
redis_client = redis.Redis.from_url(url)
for _ in range(rounds):
${indent(snippet, '    ')}
${indent(after, '    ')}
`,
  bodies: {
    // No SCRIPT FLUSH here (the renew body has one): redis-py's Script answers NOSCRIPT with
    // SCRIPT LOAD then EVALSHA, so a flush by the other process between the two surfaces
    // NoScriptError. That window is the library's; a flush in production is rare enough.
    guard: `if redis_client.incr("proof:occupancy") != 1:
    raise RuntimeError("two holders at once")
value = int(redis_client.get("proof:counter") or 0)
redis_client.set("proof:counter", value + 1)
redis_client.decr("proof:occupancy")`,
    // One process: the flush makes the renewal's extend and the release take the NOSCRIPT path.
    renew: `redis_client.script_flush()
for _ in range(10):
    time.sleep(0.5)
    if redis_client.get(lock_key) != lock_token.encode():
        raise RuntimeError("lease lost while renewing")
if lock_lost.is_set():
    raise RuntimeError("renewal reported a loss")
redis_client.incr("proof:renewed")`,
    // The pause keeps both processes contending for the lock while their rounds overlap.
    fenced: `time.sleep(0.01)
redis_client.rpush("proof:tokens", fencing_token)`,
  },
  afterRenew: `redis_client.set(lock_key, lock_token)
time.sleep(3 * lock_ttl_ms / 1000)
if redis_client.pttl(lock_key) != -1:
    raise RuntimeError("still renewing after release")
redis_client.delete(lock_key)`,
};

# Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
# new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
# holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
# Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
import asyncio, os, random, secrets, socket, time
from glide import Script
locksmith_acquire = Script("""«lua:acquire»""")
locksmith_release = Script("""«lua:release»""")
lock_key = «key»
fence_key = «fence»
lock_ttl_ms = «ttl»
lock_token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
lock_wait_until = time.monotonic() + 10  # give up after waiting 10 s
attempt = 0
lock_args = [lock_token, str(lock_ttl_ms)]
while (fencing_token := await client.invoke_script(locksmith_acquire, keys=[lock_key, fence_key], args=lock_args)) == 0:
    if time.monotonic() > lock_wait_until:
        raise TimeoutError(f"{lock_key} is still held by another owner")
    await asyncio.sleep(min(0.01 * 2**attempt, 0.5) * (0.5 + random.random()))
    attempt += 1
try:
    «body»
finally:
    await client.invoke_script(locksmith_release, keys=[lock_key], args=[lock_token])

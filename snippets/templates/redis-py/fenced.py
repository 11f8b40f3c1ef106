# Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
# new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
# holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
# Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
import os, random, secrets, socket, time
locksmith_acquire = redis_client.register_script("""«lua:acquire»""")
locksmith_release = redis_client.register_script("""«lua:release»""")
lock_key = «key»
fence_key = «fence»
lock_ttl_ms = «ttl»
lock_token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
lock_wait_until = time.monotonic() + 10  # give up after waiting 10 s
attempt = 0
while (fencing_token := locksmith_acquire(keys=[lock_key, fence_key], args=[lock_token, lock_ttl_ms])) == 0:
    if time.monotonic() > lock_wait_until:
        raise TimeoutError(f"{lock_key} is still held by another owner")
    time.sleep(min(0.01 * 2**attempt, 0.5) * (0.5 + random.random()))
    attempt += 1
try:
    «body»
finally:
    locksmith_release(keys=[lock_key], args=[lock_token])

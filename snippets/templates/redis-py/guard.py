# Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
# retry, compare-and-delete release in finally. register_script runs EVALSHA and loads the
# script on NOSCRIPT. asyncio (redis.asyncio): the same, with await on each script call.
import os, random, secrets, socket, time
locksmith_acquire = redis_client.register_script("""«lua:acquire»""")
locksmith_release = redis_client.register_script("""«lua:release»""")
lock_key = «key»
lock_ttl_ms = «ttl»
lock_token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
lock_wait_until = time.monotonic() + 10  # give up after waiting 10 s
attempt = 0
while locksmith_acquire(keys=[lock_key], args=[lock_token, lock_ttl_ms]) == 0:
    if time.monotonic() > lock_wait_until:
        raise TimeoutError(f"{lock_key} is still held by another owner")
    time.sleep(min(0.01 * 2**attempt, 0.5) * (0.5 + random.random()))
    attempt += 1
try:
    «body»
finally:
    locksmith_release(keys=[lock_key], args=[lock_token])

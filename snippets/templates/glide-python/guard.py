# Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
# retry, compare-and-delete release in finally. Valkey GLIDE runs a Script with EVALSHA and loads
# it again on NOSCRIPT. In a coroutine, with a GlideClient or GlideClusterClient `client`.
import asyncio, os, random, secrets, socket, time
from glide import Script
locksmith_acquire = Script("""«lua:acquire»""")
locksmith_release = Script("""«lua:release»""")
lock_key = «key»
lock_ttl_ms = «ttl»
lock_token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
lock_wait_until = time.monotonic() + 10  # give up after waiting 10 s
attempt = 0
while await client.invoke_script(locksmith_acquire, keys=[lock_key], args=[lock_token, str(lock_ttl_ms)]) == 0:
    if time.monotonic() > lock_wait_until:
        raise TimeoutError(f"{lock_key} is still held by another owner")
    await asyncio.sleep(min(0.01 * 2**attempt, 0.5) * (0.5 + random.random()))
    attempt += 1
try:
    «body»
finally:
    await client.invoke_script(locksmith_release, keys=[lock_key], args=[lock_token])

# Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 from a task
# while the body runs, stop renewing on release. lock_lost is set when a renewal fails: the
# lease may have passed to another owner, so stop writing.
import asyncio, os, random, secrets, socket, time
from glide import Script
locksmith_acquire = Script("""«lua:acquire»""")
locksmith_extend = Script("""«lua:extend»""")
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
lock_lost = asyncio.Event()
lock_released = asyncio.Event()


async def _renew_lock():
    while True:
        try:
            await asyncio.wait_for(lock_released.wait(), lock_ttl_ms / 3000)
            return
        except asyncio.TimeoutError:
            pass
        try:
            if await client.invoke_script(locksmith_extend, keys=[lock_key], args=[lock_token, str(lock_ttl_ms)]) == 0:
                lock_lost.set()
                return
        except Exception:
            lock_lost.set()
            return


lock_renewer = asyncio.ensure_future(_renew_lock())
try:
    «body»
finally:
    lock_released.set()
    await lock_renewer
    await client.invoke_script(locksmith_release, keys=[lock_key], args=[lock_token])

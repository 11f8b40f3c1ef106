# Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 from a thread
# while the body runs, stop renewing on release. lock_lost is set when a renewal fails: the
# lease may have passed to another owner, so stop writing.
import os, random, secrets, socket, threading, time
locksmith_acquire = redis_client.register_script("""«lua:acquire»""")
locksmith_extend = redis_client.register_script("""«lua:extend»""")
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
lock_lost = threading.Event()
lock_released = threading.Event()


def _renew_lock():
    while not lock_released.wait(lock_ttl_ms / 3000):
        try:
            if locksmith_extend(keys=[lock_key], args=[lock_token, lock_ttl_ms]) == 0:
                lock_lost.set()
                return
        except Exception:
            lock_lost.set()
            return


lock_renewer = threading.Thread(target=_renew_lock, daemon=True)
lock_renewer.start()
try:
    «body»
finally:
    lock_released.set()
    lock_renewer.join()
    locksmith_release(keys=[lock_key], args=[lock_token])

# Proof program for the generated redis-py helper (locksmith.py next to it). Usage:
#   python3 proof.py <redis-url> <mode> [rounds]; modes: counter, renew, steal, fence, busy.
# Sync and asyncio both run: counter and steal sync, fence async, renew and busy both.
import asyncio
import sys
import time

import redis
import redis.asyncio

from locksmith import LeaseLostError, LockBusyError, acquire, acquire_async, lock

url, mode = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 1
r = redis.Redis.from_url(url)


def counter():
    for _ in range(rounds):
        with lock(r, "proof:lock", ttl_ms=5000, wait_ms=60_000):
            if r.incr("proof:occupancy") != 1:
                raise RuntimeError("two holders at once")
            r.set("proof:counter", int(r.get("proof:counter") or 0) + 1)
            r.script_flush()  # the next script call of either process takes the NOSCRIPT path
            r.decr("proof:occupancy")


def check_renewed_sync():
    lease = acquire(r, "proof:lock", ttl_ms=300, renew=True)
    for _ in range(10):
        time.sleep(0.1)
        if r.get("proof:lock") != lease.token.encode():
            raise RuntimeError("lease lost while renewing")
    if lease.lost:
        raise RuntimeError(f"renewal reported a loss: {lease.lost_reason}")
    if not lease.release():
        raise RuntimeError("release found the lease gone")
    r.set("proof:lock", lease.token)  # no TTL: a renewal after release would add one
    time.sleep(0.9)
    if r.pttl("proof:lock") != -1:
        raise RuntimeError("still renewing after release")
    r.delete("proof:lock")


async def check_renewed_async():
    client = redis.asyncio.Redis.from_url(url)
    async with lock(client, "proof:lock", ttl_ms=300, renew=True) as lease:
        for _ in range(10):
            await asyncio.sleep(0.1)
            if await client.get("proof:lock") != lease.token.encode():
                raise RuntimeError("lease lost while renewing (async)")
        if lease.lost:
            raise RuntimeError(f"renewal reported a loss (async): {lease.lost_reason}")
    await client.set("proof:lock", lease.token)
    await asyncio.sleep(0.9)
    if await client.pttl("proof:lock") != -1:
        raise RuntimeError("still renewing after release (async)")
    await client.delete("proof:lock")
    await client.close()


def renew():
    check_renewed_sync()
    asyncio.run(check_renewed_async())
    print("renewed")


def steal():
    lease = acquire(r, "proof:lock", ttl_ms=300, renew=True)
    print("held", flush=True)
    if not lease.lost_event.wait(5):
        raise RuntimeError("no loss reported within 5 s")
    at = int(time.time() * 1000)
    if not isinstance(lease.lost_reason, LeaseLostError):
        raise RuntimeError(f"lost for {lease.lost_reason!r}")
    if lease.release():
        raise RuntimeError("released a stolen lock")
    print(f"lost {at}")


async def fence_async():
    client = redis.asyncio.Redis.from_url(url)
    for _ in range(rounds):
        async with lock(client, "proof:lock", ttl_ms=5000, wait_ms=60_000, fence_key="proof:fence") as lease:
            await asyncio.sleep(0.005)
            await client.rpush("proof:tokens", lease.fence)
    await client.close()


async def busy_async():
    client = redis.asyncio.Redis.from_url(url)
    try:
        await acquire_async(client, "proof:lock", ttl_ms=5000, wait_ms=500)
    except LockBusyError:
        return
    finally:
        await client.close()
    raise RuntimeError("acquired a lock another owner holds (async)")


def busy():
    asyncio.run(busy_async())
    started = time.monotonic()
    try:
        acquire(r, "proof:lock", ttl_ms=5000, wait_ms=500)
    except LockBusyError as error:
        print(f"busy {int((time.monotonic() - started) * 1000)} {error}")
        return
    raise RuntimeError("acquired a lock another owner holds")


{"counter": counter, "renew": renew, "steal": steal, "fence": lambda: asyncio.run(fence_async()), "busy": busy}[mode]()

# Proof program for the generated Valkey GLIDE for Python helper (locksmith.py next to it, run by the
# virtual environment with the pinned GLIDE). Usage:
#   python proof.py <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, hold,
#   take, woken, and for the lock kinds (as test/proofs/helpers/kinds.js): reentrant, rw-reader,
#   rw-writer, semaphore (hold and take take a kind). <url> is a redis:// URL (a GlideClient), or cluster://host:port,host:port (a
#   GlideClusterClient given to enable_wakeups, the lock and fence keys from PROOF_LOCK and PROOF_FENCE).
import asyncio
import os
import sys
import time
from urllib.parse import urlparse

from glide import (
    AllPrimaries,
    GlideClient,
    GlideClientConfiguration,
    GlideClusterClient,
    GlideClusterClientConfiguration,
    NodeAddress,
)

import locksmith  # the lock kinds' functions, where the helper carries them
from locksmith import LeaseLostError, LockBusyError, acquire, enable_wakeups, lock

url, mode = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else "1"
rounds = int(arg) if arg.isdigit() else 1
lock_key = os.environ.get("PROOF_LOCK", "proof:lock")
fence_key = os.environ.get("PROOF_FENCE", "proof:fence")
in_cluster = url.startswith("cluster://")
# GLIDE's default request timeout (250 ms) is shorter than a shared 2-core machine running 20 of
# these processes can answer in: a timed-out call raises, as it would for a user.
REQUEST_TIMEOUT = 5000


def now_ms() -> int:
    return int(time.time() * 1000)


async def connect():
    if not in_cluster:
        address = urlparse(url)
        return await GlideClient.create(
            GlideClientConfiguration([NodeAddress(address.hostname, address.port)], request_timeout=REQUEST_TIMEOUT)
        )
    seeds = [seed.split(":") for seed in url[len("cluster://"):].split(",")]
    configuration = GlideClusterClientConfiguration(
        [NodeAddress(host, int(port)) for host, port in seeds], request_timeout=REQUEST_TIMEOUT
    )
    client = await GlideClusterClient.create(configuration)
    enable_wakeups(client, configuration)
    return client


async def counter(client):
    for _ in range(rounds):
        async with lock(client, lock_key, ttl_ms=5000, wait_ms=60_000):
            if await client.incr("proof:occupancy") != 1:
                raise RuntimeError("two holders at once")
            await client.set("proof:counter", str(int(await client.get("proof:counter") or 0) + 1))
            # The next script call of every process takes the NOSCRIPT path (every master of a cluster).
            await (client.script_flush(route=AllPrimaries()) if in_cluster else client.script_flush())
            await client.decr("proof:occupancy")


async def renew(client):
    lease = await acquire(client, lock_key, ttl_ms=300, renew=True)
    for _ in range(10):
        await asyncio.sleep(0.1)
        if await client.get(lock_key) != lease.token.encode():
            raise RuntimeError("lease lost while renewing")
    if lease.lost:
        raise RuntimeError(f"renewal reported a loss: {lease.lost_reason}")
    if not await lease.release():
        raise RuntimeError("release found the lease gone")
    await client.set(lock_key, lease.token)  # no TTL: a renewal after release would add one
    await asyncio.sleep(0.9)
    if await client.pttl(lock_key) != -1:
        raise RuntimeError("still renewing after release")
    await client.delete([lock_key])
    print("renewed")


async def steal(client):
    lease = await acquire(client, lock_key, ttl_ms=300, renew=True)
    print("held", flush=True)
    await asyncio.wait_for(lease.lost_event.wait(), 5)
    at = now_ms()
    if not isinstance(lease.lost_reason, LeaseLostError):
        raise RuntimeError(f"lost for {lease.lost_reason!r}")
    if await lease.release():
        raise RuntimeError("released a stolen lock")
    print(f"lost {at}")


async def fence(client):
    for _ in range(rounds):
        async with lock(client, lock_key, ttl_ms=5000, wait_ms=60_000, fence_key=fence_key) as lease:
            await asyncio.sleep(0.005)
            await client.rpush("proof:tokens", [str(lease.fence)])


async def busy(client):
    started = time.monotonic()
    try:
        await acquire(client, lock_key, ttl_ms=5000, wait_ms=500)
    except LockBusyError as error:
        print(f"busy {int((time.monotonic() - started) * 1000)} {error}")
        return
    raise RuntimeError("acquired a lock another owner holds")


def kind_options(kind):
    """acquire()'s keywords for a kind."""
    if kind in ("lock", "read", "write"):
        return {"kind": kind}
    return {"reentrant": True} if kind == "reentrant" else {"kind": "semaphore", "permits": 1}


async def hold(client):
    ttl_ms = int(os.environ.get("PROOF_HOLD_MS", "1000"))
    await acquire(client, lock_key, ttl_ms=ttl_ms, wait_ms=0, **kind_options(arg))
    print("held", flush=True)
    await asyncio.sleep(60)


async def take(client):
    lease = await acquire(client, lock_key, ttl_ms=5000, wait_ms=10_000, **kind_options(arg))
    print(f"took {now_ms()}")
    await lease.release()


async def woken(client):
    options = kind_options(arg) if arg in ("reentrant", "read", "write", "semaphore") else {}
    lease = await acquire(client, lock_key, ttl_ms=5000, wait_ms=60_000, retry_ms=30_000, **options)
    print(f"held {now_ms()}", flush=True)
    await lease.release()


async def reentrant(client):
    for _ in range(rounds):
        async with lock(client, lock_key, ttl_ms=5000, wait_ms=60_000, reentrant=True) as outer:
            if await client.incr("proof:occupancy") != 1:
                raise RuntimeError("two holders at once")
            async with lock(client, lock_key, ttl_ms=5000, reentrant=True) as inner:
                if inner.token != outer.token or await client.hget(lock_key, outer.token) != b"2":
                    raise RuntimeError("the nested take did not re-enter")
                await client.set("proof:counter", str(int(await client.get("proof:counter") or 0) + 1))
            if await client.hget(lock_key, outer.token) != b"1":
                raise RuntimeError("hold count is not back to 1")
            await client.decr("proof:occupancy")


async def rw_reader(client):
    for _ in range(rounds):
        async with locksmith.read_lock(client, "proof:rw", ttl_ms=5000, wait_ms=60_000):
            if await client.incr("proof:readers") > 1:
                await client.set("proof:overlap", "1")
            if int(await client.get("proof:writers") or 0) != 0:
                raise RuntimeError("read while a writer held the lock")
            await asyncio.sleep(0.01)
            await client.decr("proof:readers")


async def rw_writer(client):
    for _ in range(rounds):
        async with locksmith.write_lock(client, "proof:rw", ttl_ms=5000, wait_ms=60_000):
            if await client.incr("proof:writers") != 1:
                raise RuntimeError("two writers at once")
            if int(await client.get("proof:readers") or 0) != 0:
                raise RuntimeError("wrote while a reader held the lock")
            await client.set("proof:counter", str(int(await client.get("proof:counter") or 0) + 1))
            await client.decr("proof:writers")


async def semaphore(client):
    for _ in range(rounds):
        async with locksmith.semaphore(client, "proof:sem", permits=2, ttl_ms=5000, wait_ms=60_000):
            holders = await client.incr("proof:holders")
            if holders > 2:
                raise RuntimeError(f"{holders} holders of 2 permits")
            if holders == 2:
                await client.set("proof:full", "1")
            await asyncio.sleep(0.005)
            await client.decr("proof:holders")


MODES = {
    "counter": counter,
    "renew": renew,
    "steal": steal,
    "fence": fence,
    "busy": busy,
    "hold": hold,
    "take": take,
    "woken": woken,
    "reentrant": reentrant,
    "rw-reader": rw_reader,
    "rw-writer": rw_writer,
    "semaphore": semaphore,
}


async def main():
    client = await connect()
    try:
        await MODES[mode](client)
    finally:
        await client.close()


asyncio.run(main())

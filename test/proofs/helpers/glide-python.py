# Proof program for the generated Valkey GLIDE for Python helper (locksmith.py next to it, run by the
# virtual environment with the pinned GLIDE). Usage:
#   python proof.py <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, hold,
#   take, woken. <url> is a redis:// URL (a GlideClient), or cluster://host:port,host:port (a
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


async def hold(client):
    await acquire(client, lock_key, ttl_ms=int(os.environ.get("PROOF_HOLD_MS", "1000")), wait_ms=0)
    print("held", flush=True)
    await asyncio.sleep(60)


async def take(client):
    lease = await acquire(client, lock_key, ttl_ms=5000, wait_ms=10_000)
    print(f"took {now_ms()}")
    await lease.release()


async def woken(client):
    lease = await acquire(client, lock_key, ttl_ms=5000, wait_ms=60_000, retry_ms=30_000)
    print(f"held {now_ms()}", flush=True)
    await lease.release()


MODES = {
    "counter": counter,
    "renew": renew,
    "steal": steal,
    "fence": fence,
    "busy": busy,
    "hold": hold,
    "take": take,
    "woken": woken,
}


async def main():
    client = await connect()
    try:
        await MODES[mode](client)
    finally:
        await client.close()


asyncio.run(main())

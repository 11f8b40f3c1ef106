# Proof program for the generated Valkey GLIDE for Python helper (locksmith.py next to it, run by the
# virtual environment with the pinned GLIDE). Usage:
#   python proof.py <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, hold,
#   take, woken, and for the lock kinds (as test/proofs/helpers/kinds.js): reentrant, rw-reader,
#   rw-writer, semaphore (hold and take take a kind); for the parts (test/helpers-glide-python-parts.test.ts):
#   fenced-writes, paused, shortfall, acknowledged <replica url>, bad-replicas, lost, cluster; multi <n>
#   (n transfers between 2 or 3 of 4 accounts under multi_lock, waiting), multi-try <n> (never
#   waiting; prints busy <count>), multi-bad (refusals), multi-lease (its answers), multi-woken (a
#   waiter with a 30 s retry bound woken by the release). <url> is a redis:// URL (a GlideClient), or cluster://host:port,host:port (a
#   GlideClusterClient, given to enable_wakeups where the helper has the wakeups part; the lock and
#   fence keys from PROOF_LOCK and PROOF_FENCE).
import asyncio
import os
import random
import re
import socket
import sys
import time
from urllib.parse import urlparse

from glide import (
    AdvancedGlideClientConfiguration,
    AdvancedGlideClusterClientConfiguration,
    AllPrimaries,
    GlideClient,
    GlideClientConfiguration,
    GlideClusterClient,
    GlideClusterClientConfiguration,
    NodeAddress,
    SlotKeyRoute,
    SlotType,
)

import locksmith  # the lock kinds' functions, where the helper carries them
from locksmith import LeaseLostError, LockBusyError, acquire, lock

url, mode = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else "1"
rounds = int(arg) if arg.isdigit() else 1
lock_key = os.environ.get("PROOF_LOCK", "proof:lock")
fence_key = os.environ.get("PROOF_FENCE", "proof:fence")
in_cluster = url.startswith("cluster://")
# GLIDE's default request timeout (250 ms) and connection timeout (2 s) are shorter than a shared
# 2-core machine starting 20 of these processes can answer in: a timed-out call raises, as it would
# for a user.
REQUEST_TIMEOUT = 5000
CONNECTION_TIMEOUT = 5000


def now_ms() -> int:
    return int(time.time() * 1000)


async def connect():
    if not in_cluster:
        address = urlparse(url)
        return await GlideClient.create(
            GlideClientConfiguration(
                [NodeAddress(address.hostname, address.port)],
                request_timeout=REQUEST_TIMEOUT,
                advanced_config=AdvancedGlideClientConfiguration(connection_timeout=CONNECTION_TIMEOUT),
            )
        )
    seeds = [seed.split(":") for seed in url[len("cluster://"):].split(",")]
    configuration = GlideClusterClientConfiguration(
        [NodeAddress(host, int(port)) for host, port in seeds],
        request_timeout=REQUEST_TIMEOUT,
        advanced_config=AdvancedGlideClusterClientConfiguration(connection_timeout=CONNECTION_TIMEOUT),
    )
    client = await GlideClusterClient.create(configuration)
    if hasattr(locksmith, "enable_wakeups"):  # the wakeups part; the core's waiters poll
        locksmith.enable_wakeups(client, configuration)
    return client


async def counter(client):
    for _ in range(rounds):
        async with lock(client, lock_key, ttl_ms=30_000, wait_ms=60_000):
            if await client.incr("proof:occupancy") != 1:
                raise RuntimeError("two holders at once")
            await client.set("proof:counter", str(int(await client.get("proof:counter") or 0) + 1))
            # The next script call of every process takes the NOSCRIPT path (every master of a cluster).
            await (client.script_flush(route=AllPrimaries()) if in_cluster else client.script_flush())
            await client.decr("proof:occupancy")


async def renew(client):
    lease = await acquire(client, lock_key, ttl_ms=1500, renew=True)
    for _ in range(50):
        await asyncio.sleep(0.1)
        if await client.get(lock_key) != lease.token.encode():
            raise RuntimeError("lease lost while renewing")
    if lease.lost:
        raise RuntimeError(f"renewal reported a loss: {lease.lost_reason}")
    if not await lease.release():
        raise RuntimeError("release found the lease gone")
    await client.set(lock_key, lease.token)  # no TTL: a renewal after release would add one
    await asyncio.sleep(1.5)
    if await client.pttl(lock_key) != -1:
        raise RuntimeError("still renewing after release")
    await client.delete([lock_key])
    print("renewed")


async def steal(client):
    lease = await acquire(client, lock_key, ttl_ms=900, renew=True)
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


def expect(label, got, wanted):
    if got != wanted:
        raise RuntimeError(f"{label}: {got!r}, not {wanted!r}")


async def fenced_writes(client):
    """set_if_held writes while held, not after the release or once another token holds the lock;
    set_fenced refuses an older token than the data key's, takes a newer or equal one."""
    first = await acquire(client, "proof:{w}", ttl_ms=5000, fence_key="proof:{w}:fence")
    expect("held", await first.set_if_held("proof:{w}:data", "first"), True)
    await first.release()
    expect("released", await first.set_if_held("proof:{w}:data", "late"), False)
    second = await acquire(client, "proof:{w}", ttl_ms=5000, fence_key="proof:{w}:fence")
    expect("taken by another token", await first.set_if_held("proof:{w}:data", "late"), False)
    expect("newer token", await second.set_fenced("proof:fenced", "second"), True)
    expect("older token", await first.set_fenced("proof:fenced", "first"), False)
    expect("equal token", await second.set_fenced("proof:fenced", b"second again"), True)
    plain = await acquire(client, "proof:plain", ttl_ms=5000)
    reader = await acquire(client, "proof:rw", ttl_ms=5000, kind="read")
    for write in (lambda: plain.set_fenced("proof:fenced", "x"), lambda: reader.set_if_held("proof:rw:data", "x")):
        try:
            await write()
            raise RuntimeError("a write without a fencing token or a single holder went through")
        except ValueError as error:
            print(f"refused {error}")
    print(f"fenced {first.fence} {second.fence}")


async def paused(client):
    """Holds a 300 ms lease and writes after a pause the test makes longer (SIGSTOP, SIGCONT)."""
    lease = await acquire(client, "proof:{paused}", ttl_ms=300, fence_key="proof:{paused}:fence")
    print(f"held {lease.fence}", flush=True)
    await asyncio.sleep(1)  # SIGSTOPped here, past the lease
    held = await lease.set_if_held("proof:{paused}:data", "paused")
    print(f"wrote {held} {await lease.set_fenced('proof:paused-fenced', 'paused')}")


async def expect_shortfall(client, key, take):
    """take() must raise ReplicaShortfallError having given the lock back."""
    try:
        await take()
    except locksmith.ReplicaShortfallError as error:
        if not error.released or await client.exists([key]):
            raise RuntimeError(f"{key}: the shortfall did not give the lock back: {error}")
        return error
    raise RuntimeError(f"{key}: held without a replica")


async def shortfall(client):
    """On a master with no replica: one-shot and waiting (queued, fenced) acquires fall short and
    give the lock back; with on_shortfall (a function or a coroutine function) the lock is kept."""
    wait = {"replicas": 1, "timeout_ms": 50}
    error = await expect_shortfall(client, "proof:lock", lambda: acquire(
        client, "proof:lock", ttl_ms=5000, wait_ms=0, wait_for_replicas=wait))
    print(f"shortfall {error.shortfall.reason} {error.shortfall.acknowledged}: {error}")
    await expect_shortfall(client, "proof:{queued}", lambda: acquire(
        client, "proof:{queued}", ttl_ms=5000, wait_ms=1000, fence_key="proof:{queued}:fence",
        wait_for_replicas=locksmith.WaitForReplicas(timeout_ms=50)))
    print(f"queued shortfall, fence {int(await client.get('proof:{queued}:fence'))}")
    kept = []
    await client.script_flush()  # the pair meets NOSCRIPT and goes again with the source
    lease = await locksmith.try_acquire(client, "proof:kept", ttl_ms=5000,
                                        wait_for_replicas=dict(wait, on_shortfall=kept.append))
    print(f"kept {lease.token} {kept[0].reason} {kept[0].acknowledged}")

    async def keep_async(shortfall):
        kept.append(shortfall)

    async with lock(client, "proof:block", ttl_ms=5000, wait_for_replicas=dict(wait, on_shortfall=keep_async)) as held:
        print(f"block kept {await client.get('proof:block') == held.token.encode()} {kept[1].reason}")

    def refuse(shortfall):
        raise RuntimeError(f"a setting the server cannot honour is no shortfall to keep: {shortfall}")

    error = await expect_shortfall(client, "proof:fsync", lambda: acquire(
        client, "proof:fsync", ttl_ms=5000, wait_for_replicas={"fsync": True, "on_shortfall": refuse}))
    print(f"fsync {error.shortfall.reason}: {error}")


async def replica_values(url_of_replica, *keys):
    """The keys' values on the replica, by MGET on a plain socket (a GlideClient needs a primary;
    in a Cluster after READONLY, so the replica answers for its master's slots)."""
    address = urlparse(url_of_replica)
    reader, writer = await asyncio.open_connection(address.hostname, address.port)
    for parts in ([b"READONLY"], [b"MGET", *(key.encode() for key in keys)]):
        writer.write(b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(part), part) for part in parts))
    await writer.drain()
    await reader.readline()  # +OK, or an error outside a Cluster
    values = []
    for _ in range(int((await reader.readline())[1:])):
        size = int((await reader.readline())[1:])
        values.append(None if size < 0 else (await reader.readexactly(size + 2))[:-2])
    writer.close()
    return values


async def acknowledged(client):
    """With a replica behind a slow link: the acquire returns once the replica has the lock and its
    fencing token (one-shot, waiting, and a block)."""
    control = await acquire(client, "proof:control", ttl_ms=60_000, wait_ms=0)
    if await replica_values(arg, "proof:control") != [None]:
        raise RuntimeError("the control: on the replica already without waiting, the link is not slow")
    await control.release()
    lease = await acquire(client, "proof:{lock}", ttl_ms=60_000, wait_ms=0, fence_key="proof:{lock}:fence",
                          wait_for_replicas={"timeout_ms": 5000})
    on_replica = await replica_values(arg, "proof:{lock}", "proof:{lock}:fence")
    if on_replica != [lease.token.encode(), str(lease.fence).encode()]:
        raise RuntimeError(f"held before the replica had it: {on_replica}")
    await client.custom_command(["SET", "proof:{wait}", "other", "PX", "300"])
    waited = await acquire(client, "proof:{wait}", ttl_ms=60_000, wait_ms=10_000,
                           wait_for_replicas={"timeout_ms": 5000})
    if await replica_values(arg, "proof:{wait}") != [waited.token.encode()]:
        raise RuntimeError("waiting: held before the replica had it")
    async with lock(client, "proof:block", ttl_ms=60_000, wait_for_replicas={"timeout_ms": 5000}) as held:
        if await replica_values(arg, "proof:block") != [held.token.encode()]:
            raise RuntimeError("block: held before the replica had it")
    print(f"acknowledged {lease.fence}")


async def bad_replicas(client):
    """Bad values raise ValueError before anything is sent: the statistics are reset once connected
    (GLIDE's handshake sent HELLO and INFO), and the test reads what reached the server after."""
    await client.config_resetstat()
    cases = [{"replicas": 0}, {"replicas": True}, {"timeout_ms": 0}, {"timeout_ms": 300}, {"fsync": "yes"},
             {"on_shortfall": "keep"}, {"replica": 1}, 1]
    for wait in cases:
        try:
            await acquire(client, "proof:lock", ttl_ms=300, wait_for_replicas=wait)
        except ValueError as error:
            print(f"refused {error}")
    try:
        await acquire(client, "proof:lock", ttl_ms=300, reentrant=True, wait_for_replicas={"timeout_ms": 100})
    except ValueError as error:
        print(f"refused {error}")


async def lost(client):
    """The connection is cut while WAIT waits: a connection-lost shortfall, never held."""
    try:
        await acquire(client, "proof:lost", ttl_ms=60_000, wait_ms=0, wait_for_replicas={"timeout_ms": 20_000})
    except locksmith.ReplicaShortfallError as error:
        print(f"lost {error.shortfall.reason} {error.released}: {error}")
        return
    raise RuntimeError("held after the connection was lost")


async def cluster(client):
    """A GlideClusterClient: the pair goes whole to the master of each lock's slot, and that master's
    replica has the lock (and the fencing token) when acquire returns; two replicas asked for: a shortfall."""
    for key in ("proof:{a}", "proof:{b}", "proof:{c}", "proof:{d}"):
        lease = await acquire(client, key, ttl_ms=60_000, wait_ms=1000, fence_key=f"{key}:fence",
                              wait_for_replicas={"timeout_ms": 5000})
        # The master's own view of its replica (the other nodes may not have heard of it yet).
        master = SlotKeyRoute(SlotType.PRIMARY, key)
        info = (await client.custom_command(["INFO", "replication"], route=master)).decode()
        replica = dict(field.split("=") for field in re.search(r"^slave0:(.*)$", info, re.M).group(1).split(","))
        on_replica = await replica_values(f"redis://{replica['ip']}:{replica['port']}", key, f"{key}:fence")
        if on_replica != [lease.token.encode(), str(lease.fence).encode()]:
            raise RuntimeError(f"{key}: held before its master's replica had it: {on_replica}")
        port = re.search(r"^tcp_port:(\d+)", (await client.custom_command(["INFO", "server"], route=master)).decode(), re.M)
        print(f"acknowledged {key} {lease.fence} {port.group(1)}")
    try:
        await acquire(client, "proof:{e}", ttl_ms=5000, wait_ms=0, wait_for_replicas={"replicas": 2, "timeout_ms": 50})
    except locksmith.ReplicaShortfallError as error:
        print(f"shortfall {error.shortfall.acknowledged} {error.released} {await client.exists(['proof:{e}'])}")


ACCOUNTS = ["proof:acct:a", "proof:acct:b", "proof:acct:c", "proof:acct:d"]
#: The start of every owner token this process makes.
MINE = f"{socket.gethostname()}:{os.getpid()}:".encode()


def transfer():
    """2 or 3 of the accounts in random order (money moves from the first to the second), and their locks."""
    picked = random.sample(ACCOUNTS, random.choice((2, 3)))
    return picked, [f"lock:{account}" for account in picked]


async def move(client, picked, locks):
    """Moves 1 over several round trips, flagging a second holder of any of the locks."""
    for key in locks:
        if await client.incr(f"{key}:holders") != 1:
            raise RuntimeError(f"two holders of {key}")
    a, b = int(await client.get(picked[0])), int(await client.get(picked[1]))
    # Held 10 ms: a GlideClient's waiters poll, leaving the locks free between transfers otherwise.
    await asyncio.sleep(0.01)
    await client.set(picked[0], str(a - 1))
    await client.set(picked[1], str(b + 1))
    for key in locks:
        await client.decr(f"{key}:holders")


async def all_started(client):
    """Returns once the test's 4 processes are connected (10 s at most; GLIDE takes a while to
    connect), so that the tries meet the transfers; the test sets proof:started to 0."""
    await client.incr("proof:started")
    for _ in range(1000):
        if int(await client.get("proof:started")) >= 4:
            return
        await asyncio.sleep(0.01)


async def multi(client):
    await all_started(client)
    for _ in range(rounds):
        picked, locks = transfer()
        async with locksmith.multi_lock(client, locks, ttl_ms=5000, wait_ms=60_000):
            await move(client, picked, locks)


async def multi_try(client):
    """Tries that never wait: a busy one must leave none of its keys held by this process."""
    busy = 0
    await all_started(client)
    for _ in range(rounds):
        await asyncio.sleep(0.01)  # the tries spread over the transfers
        picked, locks = transfer()
        try:
            lease = await locksmith.acquire_multi(client, locks, ttl_ms=5000, wait_ms=0)
        except LockBusyError as error:
            busy += 1
            if error.key not in locks:
                raise RuntimeError(f"busy names {error.key}, none of {locks}") from error
            partial = [key for key in locks if (await client.get(key) or b"").startswith(MINE)]
            if partial:
                raise RuntimeError(f"a busy try holds {partial}")
            continue
        if sorted(lease.keys) != sorted(locks) or [await client.get(key) for key in locks] != [lease.token.encode()] * len(locks):
            raise RuntimeError(f"acquire_multi returned without holding every one of {locks}")
        await move(client, picked, locks)
        if not await lease.release():
            raise RuntimeError("the multi-key lease was lost")
    print(f"busy {busy}")


async def multi_bad(client):
    """Bad input raises before anything is sent: the statistics are reset once connected, and the
    test reads what reached the server after."""
    await client.config_resetstat()
    cases = [([], {}), (["proof:{m}:a", "proof:{m}:b", "proof:{m}:a"], {}), ("proof:{m}:a", {}), (["proof:{m}:a", ""], {}),
             (["proof:{m}:a", 7], {}), (["proof:{m}:a"], {"ttl_ms": 0}), (["proof:{m}:a"], {"wait_ms": -1}),
             (["proof:{m}:a"], {"retry_ms": 0})]
    for keys, options in cases:
        try:
            await locksmith.acquire_multi(client, keys, **{"ttl_ms": 5000, **options})
            raise RuntimeError(f"took {keys!r} {options}")
        except (TypeError, ValueError) as error:
            print(f"refused {type(error).__name__} {error}")
    try:
        async with locksmith.multi_lock(client, ["proof:{m}:a"], ttl_ms=True):
            raise RuntimeError("held with ttl_ms=True")
    except ValueError as error:
        print(f"refused block {error}")


async def multi_lease(client):
    """What a multi-key lease answers: held all, lost one, busy, waiting, renewed, in a block."""
    a, b, c = "proof:{m}:a", "proof:{m}:b", "proof:{m}:c"
    lease = await locksmith.acquire_multi(client, [b, a], ttl_ms=5000)
    extended = await lease.extend(60_000)
    print(f"keys {' '.join(lease.keys)} {extended} {await client.pttl(a) > 5000} {await client.pttl(b) > 5000}")
    await client.set(a, "other")  # a lost: the other owner's now
    lost = f"{await lease.extend()} {await lease.release()}"
    print(f"lost {lost} {(await client.get(a)).decode()} {await client.exists([b])}")
    try:
        await locksmith.acquire_multi(client, [c, a], ttl_ms=5000, wait_ms=0)
    except LockBusyError as error:
        print(f"busy {error.key} {await client.exists([c])}: {error}")
    started = time.monotonic()
    try:
        await locksmith.acquire_multi(client, [a, c], ttl_ms=5000, wait_ms=300)
    except LockBusyError as error:
        print(f"waited {int((time.monotonic() - started) * 1000)} {await client.exists([c])}: {error}")
    await client.delete([a])
    holder = await locksmith.acquire_multi(client, [a, b], ttl_ms=60_000)
    asyncio.get_running_loop().call_later(0.2, lambda: asyncio.ensure_future(holder.release()))
    started = time.monotonic()
    async with locksmith.multi_lock(client, [c, b], ttl_ms=5000, wait_ms=10_000, retry_ms=300) as held:
        print(f"taken {int((time.monotonic() - started) * 1000)} {' '.join(held.keys)}")
    # 900 ms, renewed every 300: a renewal up to 600 ms late under a loaded machine still lands.
    renewed = await locksmith.acquire_multi(client, [a, b, c], ttl_ms=900, renew=True)
    await asyncio.sleep(3)
    held_then = await client.exists([a, b, c])
    print(f"renewed {held_then} {renewed.lost} {await renewed.release()} {await client.exists([a, b, c])}")
    try:
        async with locksmith.multi_lock(client, [a, b], ttl_ms=5000):
            await client.delete([b])
    except LeaseLostError as error:
        print(f"block lost {await client.exists([a])}: {error}")


async def multi_woken(client):
    """A waiter whose retry bound is 30 s, on keys of two slots, taken within ms of the holder's release."""
    keys = ["lock:proof:acct:a", "lock:proof:acct:b"]
    holder = await locksmith.acquire_multi(client, keys, ttl_ms=60_000)
    asyncio.get_running_loop().call_later(0.3, lambda: asyncio.ensure_future(holder.release()))
    started = time.monotonic()
    lease = await locksmith.acquire_multi(client, keys, ttl_ms=5000, wait_ms=10_000, retry_ms=30_000)
    print(f"woken {int((time.monotonic() - started) * 1000)} {await lease.release()}")


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
    "fenced-writes": fenced_writes,
    "paused": paused,
    "shortfall": shortfall,
    "acknowledged": acknowledged,
    "bad-replicas": bad_replicas,
    "lost": lost,
    "cluster": cluster,
    "multi": multi,
    "multi-try": multi_try,
    "multi-bad": multi_bad,
    "multi-lease": multi_lease,
    "multi-woken": multi_woken,
}


async def main():
    client = await connect()
    try:
        await MODES[mode](client)
    finally:
        await client.close()


asyncio.run(main())

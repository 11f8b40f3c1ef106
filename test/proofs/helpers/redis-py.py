# Proof program for the generated redis-py helper (locksmith.py next to it). Usage:
#   python3 proof.py <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy,
#   and for waiting and the lock kinds (as test/proofs/helpers/kinds.js): woken, reentrant,
#   rw-reader, rw-writer, semaphore, hold, take; for the parts (test/helpers-redis-py-parts.test.ts):
#   shortfall, acknowledged <replica-url>, bad-replicas, fenced-writes, paused <sync|async>,
#   cluster (the URL of one node of a Cluster with a replica per master), lost (through a proxy the
#   test cuts during the wait); multi <n>, multi-async <n> (n transfers between 2 or 3 of 4
#   accounts under multi_lock, waiting), multi-try <n> (never waiting; prints busy <count>), each
#   given `cluster` after n to run on a RedisCluster; multi-bad (refusals), multi-lease (its answers).
# Sync and asyncio both run: counter, steal, rw-writer and semaphore sync; fence and rw-reader
# async; renew, busy and reentrant both; woken async for reentrant and write, sync for the others.
# A helper without its asyncio part (the core proofs') runs them all sync.
import asyncio
import os
import random
import socket
import sys
import threading
import time

import redis
import redis.asyncio

import locksmith  # the lock kinds' functions, where the helper carries them
from locksmith import LeaseLostError, LockBusyError, acquire, lock

#: The asyncio part's acquire, where the helper carries it.
acquire_async = getattr(locksmith, "acquire_async", None)

url, mode = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else "1"
rounds = int(arg) if arg.isdigit() else 1
r = redis.Redis.from_url(url)


def counter():
    for _ in range(rounds):
        with lock(r, "proof:lock", ttl_ms=30_000, wait_ms=60_000):
            if r.incr("proof:occupancy") != 1:
                raise RuntimeError("two holders at once")
            r.set("proof:counter", int(r.get("proof:counter") or 0) + 1)
            r.script_flush()  # the next script call of either process takes the NOSCRIPT path
            r.decr("proof:occupancy")


def check_renewed_sync():
    lease = acquire(r, "proof:lock", ttl_ms=1500, renew=True)
    for _ in range(50):
        time.sleep(0.1)
        if r.get("proof:lock") != lease.token.encode():
            raise RuntimeError("lease lost while renewing")
    if lease.lost:
        raise RuntimeError(f"renewal reported a loss: {lease.lost_reason}")
    if not lease.release():
        raise RuntimeError("release found the lease gone")
    r.set("proof:lock", lease.token)  # no TTL: a renewal after release would add one
    time.sleep(1.5)
    if r.pttl("proof:lock") != -1:
        raise RuntimeError("still renewing after release")
    r.delete("proof:lock")


async def check_renewed_async():
    client = redis.asyncio.Redis.from_url(url)
    async with lock(client, "proof:lock", ttl_ms=1500, renew=True) as lease:
        for _ in range(50):
            await asyncio.sleep(0.1)
            if await client.get("proof:lock") != lease.token.encode():
                raise RuntimeError("lease lost while renewing (async)")
        if lease.lost:
            raise RuntimeError(f"renewal reported a loss (async): {lease.lost_reason}")
    await client.set("proof:lock", lease.token)
    await asyncio.sleep(1.5)
    if await client.pttl("proof:lock") != -1:
        raise RuntimeError("still renewing after release (async)")
    await client.delete("proof:lock")
    await client.close()


def renew():
    check_renewed_sync()
    if acquire_async:
        asyncio.run(check_renewed_async())
    print("renewed")


def steal():
    lease = acquire(r, "proof:lock", ttl_ms=900, renew=True)
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


def fence():
    for _ in range(rounds):
        with lock(r, "proof:lock", ttl_ms=5000, wait_ms=60_000, fence_key="proof:fence") as lease:
            time.sleep(0.005)
            r.rpush("proof:tokens", lease.fence)


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
    if acquire_async:
        asyncio.run(busy_async())
    started = time.monotonic()
    try:
        acquire(r, "proof:lock", ttl_ms=5000, wait_ms=500)
    except LockBusyError as error:
        print(f"busy {int((time.monotonic() - started) * 1000)} {error}")
        return
    raise RuntimeError("acquired a lock another owner holds")


def kind_options(kind):
    """acquire()'s keywords for a kind, on proof:lock."""
    if kind in ("lock", "read", "write"):
        return {"kind": kind}
    return {"reentrant": True} if kind == "reentrant" else {"kind": "semaphore", "permits": 1}


async def woken_async(kind):
    client = redis.asyncio.Redis.from_url(url)
    lease = await acquire_async(client, "proof:lock", ttl_ms=5000, wait_ms=60_000, retry_ms=30_000,
                                **kind_options(kind))
    print(f"held {int(time.time() * 1000)}", flush=True)
    await lease.release()
    await client.close()


def woken():
    if arg in ("reentrant", "write") and acquire_async:
        asyncio.run(woken_async(arg))
        return
    lease = acquire(r, "proof:lock", ttl_ms=5000, wait_ms=60_000, retry_ms=30_000, **kind_options(arg))
    print(f"held {int(time.time() * 1000)}", flush=True)
    lease.release()


def reentrant_round():
    with lock(r, "proof:lock", ttl_ms=5000, wait_ms=60_000, reentrant=True) as outer:
        if r.incr("proof:occupancy") != 1:
            raise RuntimeError("two holders at once")
        with lock(r, "proof:lock", ttl_ms=5000, reentrant=True) as inner:
            if inner.token != outer.token or r.hget("proof:lock", outer.token) != b"2":
                raise RuntimeError("the nested take did not re-enter")
            r.set("proof:counter", int(r.get("proof:counter") or 0) + 1)
        if r.hget("proof:lock", outer.token) != b"1":
            raise RuntimeError("hold count is not back to 1")
        r.decr("proof:occupancy")


async def reentrant_rounds_async(count):
    client = redis.asyncio.Redis.from_url(url)
    for _ in range(count):
        async with lock(client, "proof:lock", ttl_ms=5000, wait_ms=60_000, reentrant=True) as outer:
            if await client.incr("proof:occupancy") != 1:
                raise RuntimeError("two holders at once (async)")
            async with lock(client, "proof:lock", ttl_ms=5000, reentrant=True) as inner:
                if inner.token != outer.token or await client.hget("proof:lock", outer.token) != b"2":
                    raise RuntimeError("the nested take did not re-enter (async)")
                await client.set("proof:counter", int(await client.get("proof:counter") or 0) + 1)
            await client.decr("proof:occupancy")
    await client.close()


def reentrant():
    for _ in range(rounds - rounds // 2):
        reentrant_round()
    asyncio.run(reentrant_rounds_async(rounds // 2))


async def rw_reader_async():
    client = redis.asyncio.Redis.from_url(url)
    for _ in range(rounds):
        async with locksmith.read_lock(client, "proof:rw", ttl_ms=5000, wait_ms=60_000):
            if await client.incr("proof:readers") > 1:
                await client.set("proof:overlap", 1)
            if int(await client.get("proof:writers") or 0) != 0:
                raise RuntimeError("read while a writer held the lock")
            await asyncio.sleep(0.01)
            await client.decr("proof:readers")
    await client.close()


def rw_writer():
    for _ in range(rounds):
        with locksmith.write_lock(r, "proof:rw", ttl_ms=5000, wait_ms=60_000):
            if r.incr("proof:writers") != 1:
                raise RuntimeError("two writers at once")
            if int(r.get("proof:readers") or 0) != 0:
                raise RuntimeError("wrote while a reader held the lock")
            r.set("proof:counter", int(r.get("proof:counter") or 0) + 1)
            r.decr("proof:writers")


def semaphore_rounds():
    for _ in range(rounds):
        with locksmith.semaphore(r, "proof:sem", permits=2, ttl_ms=5000, wait_ms=60_000):
            holders = r.incr("proof:holders")
            if holders > 2:
                raise RuntimeError(f"{holders} holders of 2 permits")
            if holders == 2:
                r.set("proof:full", 1)
            time.sleep(0.005)
            r.decr("proof:holders")


def hold():
    acquire(r, "proof:lock", ttl_ms=int(os.environ.get("PROOF_HOLD_MS", "1000")), wait_ms=0, **kind_options(arg))
    print("held", flush=True)
    time.sleep(60)


def take():
    lease = acquire(r, "proof:lock", ttl_ms=5000, wait_ms=10_000, **kind_options(arg))
    print(f"took {int(time.time() * 1000)}")
    lease.release()


def expect_shortfall(take, key):
    """take() must raise ReplicaShortfallError having given the lock back."""
    try:
        take()
    except locksmith.ReplicaShortfallError as error:
        if not error.released or r.exists(key):
            raise RuntimeError(f"{key}: the shortfall did not give the lock back: {error}")
        return error
    raise RuntimeError(f"{key}: held without a replica")


async def shortfall_async(wait):
    client = redis.asyncio.Redis.from_url(url)
    try:
        await acquire_async(client, "proof:async", ttl_ms=5000, wait_ms=0, wait_for_replicas=wait)
    except locksmith.ReplicaShortfallError as error:
        if error.released and not await client.exists("proof:async"):
            print(f"async shortfall {error.shortfall.acknowledged}: {error}")
            kept = []
            lease = await acquire_async(client, "proof:kept-async", ttl_ms=5000, wait_ms=1000,
                                        wait_for_replicas=dict(wait, on_shortfall=kept.append))
            print(f"async kept {lease.token} {kept[0].reason}")
            return
    finally:
        await client.close()
    raise RuntimeError("async: held without a replica, or not given back")


def shortfall():
    """On a master with no replica: sync one-shot and waiting (queued, fenced) acquires and an
    asyncio one fall short and give the lock back; with on_shortfall the lock is kept."""
    wait = {"replicas": 1, "timeout_ms": 50}
    error = expect_shortfall(lambda: acquire(r, "proof:lock", ttl_ms=5000, wait_ms=0, wait_for_replicas=wait),
                             "proof:lock")
    print(f"shortfall {error.shortfall.reason} {error.shortfall.acknowledged}: {error}")
    expect_shortfall(lambda: acquire(r, "proof:{queued}", ttl_ms=5000, wait_ms=1000, fence_key="proof:{queued}:fence",
                                     wait_for_replicas=locksmith.WaitForReplicas(timeout_ms=50)), "proof:{queued}")
    print(f"queued shortfall, fence {int(r.get('proof:{queued}:fence'))}")
    kept = []
    r.script_flush()  # the pair meets NOSCRIPT and goes again with the source
    lease = locksmith.try_acquire(r, "proof:kept", ttl_ms=5000, wait_for_replicas=dict(wait, on_shortfall=kept.append))
    print(f"kept {lease.token} {kept[0].reason} {kept[0].acknowledged}")
    asyncio.run(shortfall_async(wait))

    def keep(shortfall):
        raise RuntimeError(f"a setting the server cannot honour is no shortfall to keep: {shortfall}")

    error = expect_shortfall(lambda: acquire(r, "proof:fsync", ttl_ms=5000, wait_for_replicas={
        "fsync": True, "on_shortfall": keep}), "proof:fsync")
    print(f"fsync {error.shortfall.reason}: {error}")


async def acknowledged_async(replica):
    client = redis.asyncio.Redis.from_url(url)
    async with lock(client, "proof:async", ttl_ms=60_000, wait_for_replicas={"timeout_ms": 5000}) as lease:
        if replica.get("proof:async") != lease.token.encode():
            raise RuntimeError("async: held before the replica had it")
    await client.close()


def acknowledged():
    """With a replica behind a slow link: the acquire returns once the replica has the lock and
    its fencing token (one-shot, waiting, and asyncio)."""
    replica = redis.Redis.from_url(arg)
    control = acquire(r, "proof:control", ttl_ms=60_000, wait_ms=0)
    if replica.get("proof:control") is not None:
        raise RuntimeError("the control: on the replica already without waiting, the link is not slow")
    control.release()
    lease = acquire(r, "proof:{lock}", ttl_ms=60_000, wait_ms=0, fence_key="proof:{lock}:fence",
                    wait_for_replicas={"timeout_ms": 5000})
    on_replica = replica.mget("proof:{lock}", "proof:{lock}:fence")
    if on_replica != [lease.token.encode(), str(lease.fence).encode()]:
        raise RuntimeError(f"held before the replica had it: {on_replica}")
    r.set("proof:{wait}", "other", px=300)
    waited = acquire(r, "proof:{wait}", ttl_ms=60_000, wait_ms=10_000, wait_for_replicas={"timeout_ms": 5000})
    if replica.get("proof:{wait}") != waited.token.encode():
        raise RuntimeError("waiting: held before the replica had it")
    asyncio.run(acknowledged_async(replica))
    print(f"acknowledged {lease.fence}")


def bad_replicas():
    """Bad values raise ValueError before anything is sent: the test counts the commands."""
    cases = [{"replicas": 0}, {"replicas": True}, {"timeout_ms": 0}, {"timeout_ms": 300}, {"fsync": "yes"},
             {"on_shortfall": "keep"}, {"replica": 1}, 1]
    for wait in cases:
        try:
            acquire(r, "proof:lock", ttl_ms=300, wait_for_replicas=wait)
        except ValueError as error:
            print(f"refused {error}")
    try:
        asyncio.run(acquire_async(redis.asyncio.Redis.from_url(url), "proof:lock", ttl_ms=300,
                                  wait_for_replicas={"timeout_ms": 1000}))
    except ValueError as error:
        print(f"refused {error}")


def expect(label, got, wanted):
    if got != wanted:
        raise RuntimeError(f"{label}: {got!r}, not {wanted!r}")


def fenced_writes():
    """set_if_held writes while held, not after the release or once another token holds the lock;
    set_fenced refuses an older token than the data key's, takes a newer or equal one."""
    first = acquire(r, "proof:{w}", ttl_ms=5000, fence_key="proof:{w}:fence")
    expect("held", first.set_if_held("proof:{w}:data", "first"), True)
    first.release()
    expect("released", first.set_if_held("proof:{w}:data", "late"), False)
    second = acquire(r, "proof:{w}", ttl_ms=5000, fence_key="proof:{w}:fence")
    expect("taken by another token", first.set_if_held("proof:{w}:data", "late"), False)
    expect("newer token", second.set_fenced("proof:fenced", "second"), True)
    expect("older token", first.set_fenced("proof:fenced", "first"), False)
    expect("equal token", second.set_fenced("proof:fenced", "second again"), True)
    for write in (lambda: acquire(r, "proof:plain", ttl_ms=5000).set_fenced("proof:fenced", "x"),
                  lambda: acquire(r, "proof:rw", ttl_ms=5000, kind="read").set_if_held("proof:rw:data", "x")):
        try:
            write()
            raise RuntimeError("a write without a fencing token or a single holder went through")
        except ValueError as error:
            print(f"refused {error}")
    asyncio.run(fenced_writes_async())
    print(f"fenced {first.fence} {second.fence}")


async def fenced_writes_async():
    client = redis.asyncio.Redis.from_url(url)
    lease = await acquire_async(client, "proof:{a}", ttl_ms=5000, fence_key="proof:{a}:fence")
    expect("held (async)", await lease.set_if_held("proof:{a}:data", "async"), True)
    expect("first token (async)", await lease.set_fenced("proof:fenced-async", "async"), True)
    await client.set("proof:{a}", "another owner")
    expect("taken (async)", await lease.set_if_held("proof:{a}:data", "late"), False)
    expect("released (async)", await lease.release(), False)
    await client.close()


async def paused_async():
    client = redis.asyncio.Redis.from_url(url)
    lease = await acquire_async(client, "proof:{paused}", ttl_ms=300, fence_key="proof:{paused}:fence")
    print(f"held {lease.fence}", flush=True)
    await asyncio.sleep(1)  # SIGSTOPped here, past the lease
    held = await lease.set_if_held("proof:{paused}:data", "paused")
    print(f"wrote {held} {await lease.set_fenced('proof:paused-fenced', 'paused')}")
    await client.close()


def paused():
    """Holds a 300 ms lease and writes after a pause the test makes longer (SIGSTOP, SIGCONT)."""
    if arg == "async":
        asyncio.run(paused_async())
        return
    lease = acquire(r, "proof:{paused}", ttl_ms=300, fence_key="proof:{paused}:fence")
    print(f"held {lease.fence}", flush=True)
    time.sleep(1)
    held = lease.set_if_held("proof:{paused}:data", "paused")
    print(f"wrote {held} {lease.set_fenced('proof:paused-fenced', 'paused')}")


def on_replica(client, key):
    """key's value on a replica of the master that owns its slot."""
    link = client.get_redis_connection(client.get_node_from_key(key)).info("replication")["slave0"]
    replica = redis.Redis(host=link["ip"], port=int(link["port"]), single_connection_client=True)
    replica.execute_command("READONLY")
    return replica.get(key)


def cluster():
    """A RedisCluster: the pair goes to the master of each lock's slot, and that master's replica
    has the lock (and the fencing token) when acquire returns; two replicas asked for: a shortfall."""
    client = redis.RedisCluster.from_url(url)
    for key in ("proof:{a}", "proof:{b}", "proof:{c}", "proof:{d}"):
        lease = acquire(client, key, ttl_ms=60_000, wait_ms=1000, fence_key=f"{key}:fence",
                        wait_for_replicas={"timeout_ms": 5000})
        if on_replica(client, key) != lease.token.encode():
            raise RuntimeError(f"{key}: held before its master's replica had it")
        print(f"acknowledged {key} {lease.fence} {client.get_node_from_key(key).port}")
    try:
        acquire(client, "proof:{e}", ttl_ms=5000, wait_ms=0, wait_for_replicas={"replicas": 2, "timeout_ms": 50})
    except locksmith.ReplicaShortfallError as error:
        print(f"shortfall {error.shortfall.acknowledged} {error.released} {client.exists('proof:{e}')}")
    try:
        asyncio.run(acquire_async(redis.asyncio.RedisCluster.from_url(url), "proof:{f}", ttl_ms=5000,
                                  wait_for_replicas={}))
    except ValueError as error:
        print(f"refused {error}")


def lost():
    """The connection is cut while WAIT waits: a connection-lost shortfall, never held."""
    try:
        acquire(r, "proof:lost", ttl_ms=60_000, wait_ms=0, wait_for_replicas={"timeout_ms": 20_000})
    except locksmith.ReplicaShortfallError as error:
        print(f"lost {error.shortfall.reason} {error.released}: {error}")
        return
    raise RuntimeError("held after the connection was lost")


ACCOUNTS = ["proof:acct:a", "proof:acct:b", "proof:acct:c", "proof:acct:d"]
#: The start of every owner token this process makes.
MINE = f"{socket.gethostname()}:{os.getpid()}:".encode()
on_cluster = sys.argv[-1] == "cluster"


def transfer():
    """2 or 3 of the accounts in random order (money moves from the first to the second), and their locks."""
    picked = random.sample(ACCOUNTS, random.choice((2, 3)))
    return picked, [f"lock:{account}" for account in picked]


def move(client, picked, locks):
    """Moves 1 over several round trips, flagging a second holder of any of the locks."""
    for key in locks:
        if client.incr(f"{key}:holders") != 1:
            raise RuntimeError(f"two holders of {key}")
    a, b = int(client.get(picked[0])), int(client.get(picked[1]))
    time.sleep(0.001)
    client.set(picked[0], a - 1)
    client.set(picked[1], b + 1)
    for key in locks:
        client.decr(f"{key}:holders")


async def move_async(client, picked, locks):
    for key in locks:
        if await client.incr(f"{key}:holders") != 1:
            raise RuntimeError(f"two holders of {key}")
    a, b = int(await client.get(picked[0])), int(await client.get(picked[1]))
    await asyncio.sleep(0.001)
    await client.set(picked[0], a - 1)
    await client.set(picked[1], b + 1)
    for key in locks:
        await client.decr(f"{key}:holders")


def all_started(client):
    """Returns once the test's 4 processes are connected (10 s at most), so that the tries meet the
    transfers; the test sets proof:started to 0."""
    client.incr("proof:started")
    for _ in range(1000):
        if int(client.get("proof:started")) >= 4:
            return
        time.sleep(0.01)


def multi():
    client = redis.RedisCluster.from_url(url) if on_cluster else r
    all_started(client)
    for _ in range(rounds):
        picked, locks = transfer()
        with locksmith.multi_lock(client, locks, ttl_ms=5000, wait_ms=60_000):
            move(client, picked, locks)


async def multi_async():
    client = redis.asyncio.RedisCluster.from_url(url) if on_cluster else redis.asyncio.Redis.from_url(url)
    all_started(redis.RedisCluster.from_url(url) if on_cluster else r)
    for _ in range(rounds):
        picked, locks = transfer()
        async with locksmith.multi_lock(client, locks, ttl_ms=5000, wait_ms=60_000):
            await move_async(client, picked, locks)
    await client.close()


def multi_try():
    """Tries that never wait: a busy one must leave none of its keys held by this process."""
    client = redis.RedisCluster.from_url(url) if on_cluster else r
    busy = 0
    all_started(client)
    for _ in range(rounds):
        picked, locks = transfer()
        try:
            lease = locksmith.acquire_multi(client, locks, ttl_ms=5000, wait_ms=0)
        except LockBusyError as error:
            busy += 1
            if error.key not in locks:
                raise RuntimeError(f"busy names {error.key}, none of {locks}") from error
            partial = [key for key in locks if (client.get(key) or b"").startswith(MINE)]
            if partial:
                raise RuntimeError(f"a busy try holds {partial}")
            continue
        if sorted(lease.keys) != sorted(locks) or any(client.get(key) != lease.token.encode() for key in locks):
            raise RuntimeError(f"acquire_multi returned without holding every one of {locks}")
        move(client, picked, locks)
        if not lease.release():
            raise RuntimeError("the multi-key lease was lost")
        time.sleep(0.005)  # the tries spread over the transfers
    print(f"busy {busy}")


def multi_bad():
    """Bad input raises before anything is sent (the test reads INFO commandstats after)."""
    ar = redis.asyncio.Redis.from_url(url)
    cases = [([], {}), (["proof:{m}:a", "proof:{m}:b", "proof:{m}:a"], {}), ("proof:{m}:a", {}), (["proof:{m}:a", ""], {}),
             (["proof:{m}:a", 7], {}), (["proof:{m}:a"], {"ttl_ms": 0}), (["proof:{m}:a"], {"wait_ms": -1}),
             (["proof:{m}:a"], {"retry_ms": 0})]
    for keys, options in cases:
        try:
            locksmith.acquire_multi(r, keys, **{"ttl_ms": 5000, **options})
            raise RuntimeError(f"took {keys!r} {options}")
        except (TypeError, ValueError) as error:
            print(f"refused {type(error).__name__} {error}")
    for take in (lambda: asyncio.run(locksmith.acquire_multi_async(ar, [], ttl_ms=5000)),
                 lambda: asyncio.run(locksmith.multi_lock(ar, ["proof:{m}:a"] * 2, ttl_ms=5000).__aenter__())):
        try:
            take()
        except ValueError as error:
            print(f"refused async {error}")
    try:
        with locksmith.multi_lock(r, ["proof:{m}:a"], ttl_ms=True):
            raise RuntimeError("held with ttl_ms=True")
    except ValueError as error:
        print(f"refused block {error}")


def multi_lease():
    """What a multi-key lease answers: held all, lost one, busy, waiting woken, renewed, in a block (sync and asyncio)."""
    a, b, c = "proof:{m}:a", "proof:{m}:b", "proof:{m}:c"
    lease = locksmith.acquire_multi(r, [b, a], ttl_ms=5000)
    print(f"keys {' '.join(lease.keys)} {lease.extend(60_000)} {r.pttl(a) > 5000} {r.pttl(b) > 5000}")
    r.set(a, "other")  # a lost: the other owner's now
    print(f"lost {lease.extend()} {lease.release()} {r.get(a).decode()} {r.exists(b)}")
    try:
        locksmith.acquire_multi(r, [c, a], ttl_ms=5000, wait_ms=0)
    except LockBusyError as error:
        print(f"busy {error.key} {r.exists(c)}: {error}")
    started = time.monotonic()
    try:
        locksmith.acquire_multi(r, [a, c], ttl_ms=5000, wait_ms=300)
    except LockBusyError as error:
        print(f"waited {int((time.monotonic() - started) * 1000)} {r.exists(c)}: {error}")
    r.delete(a)
    holder = locksmith.acquire_multi(r, [a, b], ttl_ms=60_000)
    timer = threading.Timer(0.2, holder.release)
    timer.start()
    started = time.monotonic()
    with locksmith.multi_lock(r, [c, b], ttl_ms=5000, wait_ms=10_000, retry_ms=30_000) as held:
        print(f"woken {int((time.monotonic() - started) * 1000)} {' '.join(held.keys)}")
    timer.join()
    # 900 ms, renewed every 300: a renewal up to 600 ms late under a loaded machine still lands.
    renewed = locksmith.acquire_multi(r, [a, b, c], ttl_ms=900, renew=True)
    time.sleep(3)
    print(f"renewed {r.exists(a, b, c)} {renewed.lost} {renewed.release()} {r.exists(a, b, c)}")
    try:
        with locksmith.multi_lock(r, [a, b], ttl_ms=5000):
            r.delete(b)
    except LeaseLostError as error:
        print(f"block lost {r.exists(a)}: {error}")
    asyncio.run(multi_lease_async(a, b, c))


async def multi_lease_async(a, b, c):
    client = redis.asyncio.Redis.from_url(url)
    lease = await locksmith.acquire_multi_async(client, [a, b], ttl_ms=5000)
    r.set(a, "other")
    print(f"async lost {await lease.extend()} {await lease.release()} {r.exists(b)}")
    async with locksmith.multi_lock(client, [b, c], ttl_ms=5000) as held:
        print(f"async held {await held.extend()} {r.get(b) == held.token.encode()}")
    try:
        await locksmith.acquire_multi_async(client, [c, a], ttl_ms=5000, wait_ms=0)
    except LockBusyError as error:
        print(f"async busy {error.key} {r.exists(b, c)}")
    await client.close()


MODES = {
    "counter": counter,
    "renew": renew,
    "steal": steal,
    "fence": lambda: asyncio.run(fence_async()) if acquire_async else fence(),
    "busy": busy,
    "woken": woken,
    "reentrant": reentrant,
    "rw-reader": lambda: asyncio.run(rw_reader_async()),
    "rw-writer": rw_writer,
    "semaphore": semaphore_rounds,
    "hold": hold,
    "take": take,
    "shortfall": shortfall,
    "acknowledged": acknowledged,
    "bad-replicas": bad_replicas,
    "fenced-writes": fenced_writes,
    "paused": paused,
    "cluster": cluster,
    "lost": lost,
    "multi": multi,
    "multi-async": lambda: asyncio.run(multi_async()),
    "multi-try": multi_try,
    "multi-bad": multi_bad,
    "multi-lease": multi_lease,
}
MODES[mode]()

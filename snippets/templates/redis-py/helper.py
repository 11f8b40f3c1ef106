«header»
"""Redis locks for redis-py: ``with lock(r, key, ttl_ms=...) as lease`` holds the lock around the
block (``async with`` on a ``redis.asyncio`` client); ``acquire()`` / ``acquire_async()`` and
``lease.release()`` are for code that cannot use a block."""
from __future__ import annotations

import asyncio
import os
import random
import secrets
import socket
import threading
import time
from typing import Any, Optional, Union

from redis.exceptions import NoScriptError, RedisError

# register_script runs each script by its SHA1 (EVALSHA) and loads it on NOSCRIPT (script cache
# flushed, restart, failover); when a flush lands between that load and the retry, _run sends
# the source with EVAL, which runs it and caches it again.
ACQUIRE = """«lua:acquire»"""
EXTEND = """«lua:extend»"""
RELEASE = """«lua:release»"""

__all__ = ["lock", "acquire", "acquire_async", "Lease", "AsyncLease", "LockBusyError", "LeaseLostError"]


class LockBusyError(TimeoutError):
    """The lock stayed held by another owner for the whole wait."""

    def __init__(self, key: str, waited_ms: int):
        super().__init__(f"{key} is held by another owner; gave up after waiting {waited_ms} ms")
        self.key = key
        self.waited_ms = waited_ms


class LeaseLostError(RuntimeError):
    """The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable."""

    def __init__(self, key: str, why: str):
        super().__init__(f"lease on {key} lost: {why}")
        self.key = key


def _check_ms(name: str, value: Any, positive: bool) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < (1 if positive else 0):
        kind = "positive" if positive else "non-negative"
        raise ValueError(f"{name} must be a {kind} integer of milliseconds, got {value!r}")


def _token() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"


def _backoff_s(attempt: int, left_s: float) -> float:
    """Jittered, doubling (10 ms to 500 ms, +-50 %), never past the wait's end."""
    return min(min(0.01 * 2**attempt, 0.5) * (0.5 + random.random()), left_s)


def _run(client: Any, lua: str, keys: list, args: list) -> int:
    try:
        return int(client.register_script(lua)(keys=keys, args=args))
    except NoScriptError:
        return int(client.eval(lua, len(keys), *keys, *args))


async def _run_async(client: Any, lua: str, keys: list, args: list) -> int:
    try:
        return int(await client.register_script(lua)(keys=keys, args=args))
    except NoScriptError:
        return int(await client.eval(lua, len(keys), *keys, *args))


class _LeaseBase:
    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int]):
        self.client = client
        self.key = key
        #: This holder's owner token: the lock key's value while it is held.
        self.token = token
        #: The fencing token with fence_key: pass it to the guarded resource, which refuses older ones.
        self.fence = fence
        self.ttl_ms = ttl_ms
        #: Why the lease was lost (a LeaseLostError), once a renewal found it gone or failed.
        self.lost_reason: Optional[LeaseLostError] = None
        self._released = False

    @property
    def lost(self) -> bool:
        """True once a renewal found the lease gone or failed: stop writing."""
        return self.lost_reason is not None


class Lease(_LeaseBase):
    """A held lock (sync client). Renewal, when asked for, runs in a daemon thread."""

    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool):
        super().__init__(client, key, token, ttl_ms, fence)
        #: Set when the lease is lost; wait on it to be told.
        self.lost_event = threading.Event()
        self._stopped = threading.Event()
        self._renewer: Optional[threading.Thread] = None
        if renew:
            self._renewer = threading.Thread(target=self._renew, name=f"locksmith-renew {key}", daemon=True)
            self._renewer.start()

    def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Sets the lease to ttl_ms from now (default: the acquire's); False when it is no longer held."""
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        return _run(self.client, EXTEND, [self.key], [self.token, ttl_ms]) == 1

    def release(self) -> bool:
        """Stops renewing and deletes the lock if this lease still holds it; False when it no longer did."""
        if self._released:
            return False
        self._released = True
        self._stopped.set()
        if self._renewer is not None and self._renewer is not threading.current_thread():
            self._renewer.join()  # a renewal in flight ends before the release
        return _run(self.client, RELEASE, [self.key], [self.token]) == 1

    def _renew(self) -> None:
        while not self._stopped.wait(self.ttl_ms / 3000):
            try:
                if self.extend():
                    continue
                self._lose(LeaseLostError(self.key, "taken by another owner or expired"))
            except RedisError as error:
                self._lose(LeaseLostError(self.key, f"renewal failed, it may expire unseen: {error}"))
            return

    def _lose(self, reason: LeaseLostError) -> None:
        self.lost_reason = reason
        self.lost_event.set()


class AsyncLease(_LeaseBase):
    """A held lock (redis.asyncio client). Renewal, when asked for, runs in an asyncio task."""

    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool):
        super().__init__(client, key, token, ttl_ms, fence)
        #: Set when the lease is lost; await its wait() to be told.
        self.lost_event = asyncio.Event()
        self._stopped = asyncio.Event()
        self._renewer: Optional[asyncio.Task] = asyncio.create_task(self._renew()) if renew else None

    async def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Sets the lease to ttl_ms from now (default: the acquire's); False when it is no longer held."""
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        return await _run_async(self.client, EXTEND, [self.key], [self.token, ttl_ms]) == 1

    async def release(self) -> bool:
        """Stops renewing and deletes the lock if this lease still holds it; False when it no longer did."""
        if self._released:
            return False
        self._released = True
        self._stopped.set()
        if self._renewer is not None and self._renewer is not asyncio.current_task():
            # Not cancelled: a command cancelled half-way can leave its connection unusable.
            await self._renewer
        return await _run_async(self.client, RELEASE, [self.key], [self.token]) == 1

    async def _renew(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._stopped.wait(), self.ttl_ms / 3000)
                return
            except asyncio.TimeoutError:
                pass
            try:
                if await self.extend():
                    continue
                self._lose(LeaseLostError(self.key, "taken by another owner or expired"))
            except RedisError as error:
                self._lose(LeaseLostError(self.key, f"renewal failed, it may expire unseen: {error}"))
            return

    def _lose(self, reason: LeaseLostError) -> None:
        self.lost_reason = reason
        self.lost_event.set()


def _keys(key: str, fence_key: Optional[str]) -> list:
    return [key] if fence_key is None else [key, fence_key]


def acquire(
    client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None, renew: bool = False
) -> Lease:
    """Takes the lock, waiting up to wait_ms with jittered back-off, then LockBusyError.

    ttl_ms: the lease, how long the lock outlives a holder that dies without releasing it.
    fence_key: a fencing counter key (in Cluster, with the lock key's {hash tag}).
    renew: extend the lease every ttl_ms/3 from a thread; lease.lost turns true when that fails.
    Redis errors are raised as they are.
    """
    _check_ms("ttl_ms", ttl_ms, True)
    _check_ms("wait_ms", wait_ms, False)
    token, keys = _token(), _keys(key, fence_key)
    deadline = time.monotonic() + wait_ms / 1000
    attempt = 0
    while True:
        reply = _run(client, ACQUIRE, keys, [token, ttl_ms])
        if reply != 0:
            return Lease(client, key, token, ttl_ms, None if fence_key is None else reply, renew)
        left = deadline - time.monotonic()
        if left <= 0:
            raise LockBusyError(key, wait_ms)
        time.sleep(_backoff_s(attempt, left))
        attempt += 1


async def acquire_async(
    client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None, renew: bool = False
) -> AsyncLease:
    """acquire() for a redis.asyncio client: renewal runs in a task."""
    _check_ms("ttl_ms", ttl_ms, True)
    _check_ms("wait_ms", wait_ms, False)
    token, keys = _token(), _keys(key, fence_key)
    deadline = time.monotonic() + wait_ms / 1000
    attempt = 0
    while True:
        reply = await _run_async(client, ACQUIRE, keys, [token, ttl_ms])
        if reply != 0:
            return AsyncLease(client, key, token, ttl_ms, None if fence_key is None else reply, renew)
        left = deadline - time.monotonic()
        if left <= 0:
            raise LockBusyError(key, wait_ms)
        await asyncio.sleep(_backoff_s(attempt, left))
        attempt += 1


class lock:  # noqa: N801 - used like a function: with lock(...) as lease
    """``with lock(r, key, ttl_ms=...) as lease:`` (or ``async with`` on a redis.asyncio client).

    Releases on exit, also after an exception. Raises LeaseLostError after a block that ended
    normally if the lease was gone before the release: another holder may have run at the same
    time, so the block's effects need checking (or fencing).
    """

    def __init__(
        self, client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
        renew: bool = False,
    ):
        self._args = (client, key)
        self._options = dict(ttl_ms=ttl_ms, wait_ms=wait_ms, fence_key=fence_key, renew=renew)
        self._lease: Optional[Union[Lease, AsyncLease]] = None

    def __enter__(self) -> Lease:
        self._lease = acquire(*self._args, **self._options)
        return self._lease

    def __exit__(self, error_type, error, traceback) -> None:
        lease = self._lease
        assert isinstance(lease, Lease)
        if error_type is not None:
            try:
                lease.release()
            except RedisError:
                pass  # the block's error is the one to report
            return
        if not lease.release():
            raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason

    async def __aenter__(self) -> AsyncLease:
        self._lease = await acquire_async(*self._args, **self._options)
        return self._lease

    async def __aexit__(self, error_type, error, traceback) -> None:
        lease = self._lease
        assert isinstance(lease, AsyncLease)
        if error_type is not None:
            try:
                await lease.release()
            except RedisError:
                pass  # the block's error is the one to report
            return
        if not await lease.release():
            raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason

«header»
"""Redis locks for redis-py: ``with lock(r, key, ttl_ms=...) as lease`` holds a lock around the
block (``async with`` on a ``redis.asyncio`` client); ``acquire()`` / ``acquire_async()`` and
``lease.release()`` are for code that cannot use a block. ``try_lock`` / ``try_acquire()`` try once
and never wait (the lease, or None when busy); ``release_lock()`` and ``extend_lock()`` (``_async``
for redis.asyncio) take a key and a token.

A waiter sleeps until the release wakes it (SSUBSCRIBE on the lock key, on a connection of its own
for the wait), the holder's lease ends, or a jittered retry bound passes: a missed wake-up costs at
most that bound. redis-py before 5.0 has no ssubscribe, so the helper sends SSUBSCRIBE with the
connection API that 4.x and 5.x share (send_command, can_read, read_response). A client without a
connection pool (RedisCluster) waits by the retry bound alone."""
from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import socket
import threading
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union
«kinds:imports»

from redis.exceptions import NoScriptError, RedisError

# register_script runs each script by its SHA1 (EVALSHA) and loads it on NOSCRIPT (script cache
# flushed, restart, failover); when a flush lands between that load and the retry, _call sends
# the source with EVAL, which runs it and caches it again.
ACQUIRE = """«lua:acquire»"""
ACQUIRE_QUEUED = """«lua:acquire_queued»"""
EXTEND = """«lua:extend»"""
RELEASE = """«lua:release»"""
«kinds:scripts»

__all__ = [
    "lock", "try_lock", "acquire", "acquire_async", "try_acquire", "try_acquire_async", "release_lock",
    "release_lock_async", "extend_lock", "extend_lock_async", "Lease", "AsyncLease", "LockBusyError",
    "LeaseLostError",
]


class _Kind(NamedTuple):
    """A kind of lock: the scripts that extend and release it, and who holds it when it is busy."""

    extend: str
    release: str
    holders: str


_PLAIN = _Kind(EXTEND, RELEASE, "another owner")


class LockBusyError(TimeoutError):
    """The lock stayed held for the whole wait."""

    def __init__(self, key: str, waited_ms: int, holders: str = "another owner"):
        super().__init__(f"{key} is held by {holders}; gave up after waiting {waited_ms} ms")
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


def _call(client: Any, lua: str, keys: list, args: list) -> Any:
    try:
        return client.register_script(lua)(keys=keys, args=args)
    except NoScriptError:
        return client.eval(lua, len(keys), *keys, *args)


async def _call_async(client: Any, lua: str, keys: list, args: list) -> Any:
    try:
        return await client.register_script(lua)(keys=keys, args=args)
    except NoScriptError:
        return await client.eval(lua, len(keys), *keys, *args)


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _wakes(message: Any, token: str) -> bool:
    """A wake-up for this waiter: empty payload (one waiter per client), '*' (all) or its token."""
    if not isinstance(message, list) or len(message) != 3 or _text(message[0]) != "smessage":
        return False
    return _text(message[2]) in ("", "*", token)


def _read_reply(connection: Any) -> Any:
    """The next reply or pushed message (a coroutine for an asyncio connection): under RESP3, redis-py
    8's default, read_response skips what the server pushes (the subscription and its messages)
    unless asked for it."""
    if str(getattr(connection, "protocol", 2)) == "3":
        return connection.read_response(push_request=True)
    return connection.read_response()


def _own_connection(client: Any) -> Any:
    """A connection made like the client's pool makes them, outside the pool; None without a pool."""
    pool = getattr(client, "connection_pool", None)
    return None if pool is None else pool.connection_class(**pool.connection_kwargs)


class _Wakeups:
    """The wake-ups of one waiting acquire, read on its own connection (no thread: a timed read)."""

    def __init__(self, client: Any, key: str, token: str, patience_s: float):
        self._token = token
        self._connection = _own_connection(client)
        try:
            if self._connection is not None:
                self._connection.send_command("SSUBSCRIBE", key, check_health=False)
                # The confirmation, or no subscription: a server before 7.0, an ACL without channel rights.
                if not self._connection.can_read(patience_s):
                    raise TimeoutError("no SSUBSCRIBE confirmation")
                _read_reply(self._connection)
        except (RedisError, OSError):
            self.close()

    def wait(self, seconds: float) -> None:
        """Returns when woken, or after seconds."""
        deadline = time.monotonic() + seconds
        while self._connection is not None:
            left = deadline - time.monotonic()
            try:
                if left <= 0 or not self._connection.can_read(left):
                    return
                if _wakes(_read_reply(self._connection), self._token):
                    return
            except (RedisError, OSError):
                self.close()  # the retry bound covers the rest
        time.sleep(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        if self._connection is not None:
            self._connection.disconnect()
            self._connection = None


class _AsyncWakeups:
    """The wake-ups of one waiting acquire_async, read by a task on its own connection."""

    def __init__(self, token: str):
        self._token = token
        self._connection: Any = None
        self._reader: Optional[asyncio.Task] = None
        self._woken = asyncio.Event()

    async def open(self, client: Any, key: str, patience_s: float) -> "_AsyncWakeups":
        self._connection = _own_connection(client)
        if self._connection is not None:
            try:
                await self._connection.send_command("SSUBSCRIBE", key, check_health=False)
                await asyncio.wait_for(_read_reply(self._connection), patience_s)
                self._reader = asyncio.create_task(self._read())
            except (RedisError, OSError, asyncio.TimeoutError):
                await self.close()
        return self

    async def _read(self) -> None:
        while True:
            if _wakes(await _read_reply(self._connection), self._token):
                self._woken.set()

    async def wait(self, seconds: float) -> None:
        """Returns when woken, or after seconds."""
        try:
            await asyncio.wait_for(self._woken.wait(), seconds)
        except asyncio.TimeoutError:
            return
        self._woken.clear()

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):  # cancelled, or the connection failed: either way done
                await self._reader
            self._reader = None
        if self._connection is not None:
            await self._connection.disconnect()
            self._connection = None


#: One try: the script's reply (0: not taken) and, where the script says, when the holder's lease ends (s).
_Attempt = Tuple[int, Optional[float]]


def _pause(deadline: float, retry_ms: int, reply: int, lease_left_s: Optional[float]) -> Optional[float]:
    """How long a waiter sleeps before its next try: until woken, the deadline, the holder's lease's
    end or the retry bound jittered down to half; None once it took the lock or its time is up."""
    left = deadline - time.monotonic()
    if reply != 0 or left <= 0:
        return None
    bound = retry_ms / 1000 * (0.5 + random.random() / 2)
    return min(left, bound, bound if lease_left_s is None else lease_left_s)


def _take(client: Any, plan: "_Plan", wait_ms: int, retry_ms: int) -> int:
    """Tries; while the lock is held and wait_ms lasts, subscribes to its wake-ups, tries again (a
    release may have gone out before the subscription), then sleeps (_pause) and tries again. The
    reply that took the lock; else LockBusyError, out of the line."""
    deadline = time.monotonic() + wait_ms / 1000
    wakeups: Optional[_Wakeups] = None
    reply = 0
    try:
        while True:
            reply, lease_left_s = _attempt(plan, _send(client, plan))
            pause = _pause(deadline, retry_ms, reply, lease_left_s)
            if pause is None:
                break
            if wakeups is None:
                wakeups = _Wakeups(client, plan.keys[0], plan.token, retry_ms / 1000)
            else:
                wakeups.wait(pause)
    finally:
        if wakeups is not None:
            wakeups.close()
        if reply == 0 and plan.queue is not None:
            with contextlib.suppress(RedisError):  # else the line ends by itself, soon after the wait would have
                client.zrem(plan.queue, plan.token)
    if reply == 0:
        raise LockBusyError(plan.keys[0], wait_ms, plan.kind.holders)
    return reply


async def _take_async(client: Any, plan: "_Plan", wait_ms: int, retry_ms: int) -> int:
    """_take for a redis.asyncio client."""
    deadline = time.monotonic() + wait_ms / 1000
    wakeups: Optional[_AsyncWakeups] = None
    reply = 0
    try:
        while True:
            reply, lease_left_s = _attempt(plan, await _send_async(client, plan))
            pause = _pause(deadline, retry_ms, reply, lease_left_s)
            if pause is None:
                break
            if wakeups is None:
                wakeups = await _AsyncWakeups(plan.token).open(client, plan.keys[0], retry_ms / 1000)
            else:
                await wakeups.wait(pause)
    finally:
        if wakeups is not None:
            await wakeups.close()
        if reply == 0 and plan.queue is not None:
            with contextlib.suppress(RedisError):
                await client.zrem(plan.queue, plan.token)
    if reply == 0:
        raise LockBusyError(plan.keys[0], wait_ms, plan.kind.holders)
    return reply


class _LeaseBase:
    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], kind: _Kind,
                 queue: Optional[str]):
        self.client = client
        self.key = key
        #: This holder's owner token: the lock key's value (or its member's name) while it is held.
        self.token = token
        #: The fencing token with fence_key: pass it to the guarded resource, which refuses older ones.
        self.fence = fence
        self.ttl_ms = ttl_ms
        #: Why the lease was lost (a LeaseLostError), once a renewal found it gone or failed.
        self.lost_reason: Optional[LeaseLostError] = None
        self._kind = kind
        # The waiter queue the lock was taken from: the release wakes the first in line.
        self._release_keys = [key] if queue is None else [key, queue]
        self._released = False

    @property
    def lost(self) -> bool:
        """True once a renewal found the lease gone or failed: stop writing."""
        return self.lost_reason is not None

    def _lose(self, reason: LeaseLostError) -> None:
        self.lost_reason = reason
        self.lost_event.set()
«kinds:lease»


class Lease(_LeaseBase):
    """A held lock, read lock, write lock or semaphore permit (sync client). Renewal, when asked
    for, runs in a daemon thread."""

    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool,
                 kind: _Kind = _PLAIN, queue: Optional[str] = None):
        super().__init__(client, key, token, ttl_ms, fence, kind, queue)
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
        return int(_call(self.client, self._kind.extend, [self.key], [self.token, ttl_ms])) == 1

    def release(self) -> bool:
        """Stops renewing and gives the hold back if this lease still has it, waking waiters; False
        when it no longer did."""
        if self._released:
            return False
        self._released = True
        self._stopped.set()
        if self._renewer is not None and self._renewer is not threading.current_thread():
            self._renewer.join()  # a renewal in flight ends before the release
        return int(_call(self.client, self._kind.release, self._release_keys, [self.token])) != 0

    def _renew(self) -> None:
        while not self._stopped.wait(self.ttl_ms / 3000):
            try:
                if self.extend():
                    continue
                self._lose(LeaseLostError(self.key, "taken by another owner or expired"))
            except RedisError as error:
                self._lose(LeaseLostError(self.key, f"renewal failed, it may expire unseen: {error}"))
            return
«kinds:sync-lease»


class AsyncLease(_LeaseBase):
    """A held lock, read lock, write lock or semaphore permit (redis.asyncio client). Renewal, when
    asked for, runs in an asyncio task."""

    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool,
                 kind: _Kind = _PLAIN, queue: Optional[str] = None):
        super().__init__(client, key, token, ttl_ms, fence, kind, queue)
        #: Set when the lease is lost; await its wait() to be told.
        self.lost_event = asyncio.Event()
        self._stopped = asyncio.Event()
        self._renewer: Optional[asyncio.Task] = asyncio.create_task(self._renew()) if renew else None

    async def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Sets the lease to ttl_ms from now (default: the acquire's); False when it is no longer held."""
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        return int(await _call_async(self.client, self._kind.extend, [self.key], [self.token, ttl_ms])) == 1

    async def release(self) -> bool:
        """Stops renewing and gives the hold back if this lease still has it, waking waiters; False
        when it no longer did."""
        if self._released:
            return False
        self._released = True
        self._stopped.set()
        if self._renewer is not None and self._renewer is not asyncio.current_task():
            # Not cancelled: a command cancelled half-way can leave its connection unusable.
            await self._renewer
        return int(await _call_async(self.client, self._kind.release, self._release_keys, [self.token])) != 0

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
«kinds:async-lease»


def _waiters_key(key: str) -> Optional[str]:
    """The waiter queue of a plain lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
    lock:order:42 -> {lock:order:42}:waiters; None for a key with '}' but no hash tag."""
    opening = key.find("{")
    if opening >= 0 and key.find("}", opening + 1) > opening + 1:
        return f"{key}:waiters"
    return None if "}" in key else f"{{{key}}}:waiters"


class _Plan(NamedTuple):
    """What one try of an acquire runs, and what the lease it gives needs."""

    kind: _Kind
    lua: str
    keys: list
    args: list
    token: str
    #: The waiter queue of a plain lock taken by waiting (acquire_queued's reply is an array).
    queue: Optional[str]
    fenced: bool
«kinds:plan-fields»


#: The other kinds' planners (their sections add them): each takes the options it knows out of
#: the dict it is given and returns the plan for them, else None.
_PLANNERS: List[Callable[[str, str, int, int, Optional[str], Dict[str, Any]], Optional[_Plan]]] = []
#: What a kind does around a lock's block (the reentrant lock sets its context): returns the undo, or None.
_SCOPES: List[Callable[[Any, Dict[str, Any]], Optional[Callable[[], None]]]] = []
#: The values kind= takes.
_KIND_NAMES = ["lock"]


def _plan(key: str, kind: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
          options: Dict[str, Any]) -> _Plan:
    _check_ms("ttl_ms", ttl_ms, True)
    _check_ms("wait_ms", wait_ms, False)
    _check_ms("retry_ms", retry_ms, True)
    if kind not in _KIND_NAMES:
        raise ValueError(f"kind must be one of {', '.join(map(repr, _KIND_NAMES))} in this helper, got {kind!r}")
    options = dict(options)
«kinds:plan»
    plans = [planner(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options) for planner in _PLANNERS]
    if options:
        raise TypeError(f"this helper has no lock kind that takes {', '.join(options)}")
    plan = next((plan for plan in plans if plan is not None), None) or _plain(key, ttl_ms, wait_ms, retry_ms, fence_key)
«kinds:planned»
    return plan


def _plain(key: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str]) -> _Plan:
    token = _token()
    fence = [] if fence_key is None else [fence_key]
    queue = _waiters_key(key) if wait_ms > 0 else None
    if queue is None:
        return _Plan(_PLAIN, ACQUIRE, [key, *fence], [token, ttl_ms], token, None, bool(fence))
    # In line (first come, first served): the release takes the first waiter off and wakes that one.
    queue_ms = wait_ms + 2 * retry_ms
    return _Plan(_PLAIN, ACQUIRE_QUEUED, [key, queue, *fence], [token, ttl_ms, queue_ms], token, queue, bool(fence))


def _send(client: Any, plan: _Plan) -> Any:
    """One try of a plan: its script's reply."""
«kinds:send»
    return _call(client, plan.lua, plan.keys, plan.args)


async def _send_async(client: Any, plan: _Plan) -> Any:
«kinds:send-async»
    return await _call_async(client, plan.lua, plan.keys, plan.args)


def _attempt(plan: _Plan, reply: Any) -> _Attempt:
    if plan.queue is None:
        return int(reply), None
    taken, pttl = int(reply[0]), int(reply[1])
    # PTTL -1: no expiry, nothing to wait for but a wake-up; -2 (gone) and 0 (ending now): try at once.
    return taken, (None if pttl == -1 else max(pttl, 0) / 1000)


def acquire(
    client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
    renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any,
) -> Lease:
    """Takes the lock, waiting up to wait_ms in line for the release to wake it, then LockBusyError.

    ttl_ms: the lease, how long the lock outlives a holder that dies without releasing it.
    fence_key: a fencing counter key (in Cluster, with the lock key's {hash tag}).
    renew: extend the lease every ttl_ms/3 from a thread; lease.lost turns true when that fails.
    retry_ms: the longest sleep between tries while waiting (jittered down to half).
    kind and options: the lock kinds and parts this helper carries. Redis errors are raised as they are.
    """
    plan = _plan(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options)
    reply = _take(client, plan, wait_ms, retry_ms)
    return Lease(client, key, plan.token, ttl_ms, reply if plan.fenced else None, renew, plan.kind, plan.queue)


async def acquire_async(
    client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
    renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any,
) -> AsyncLease:
    """acquire() for a redis.asyncio client: renewal runs in a task."""
    plan = _plan(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options)
    reply = await _take_async(client, plan, wait_ms, retry_ms)
    return AsyncLease(client, key, plan.token, ttl_ms, reply if plan.fenced else None, renew, plan.kind, plan.queue)


def try_acquire(client: Any, key: str, *, ttl_ms: int, fence_key: Optional[str] = None,
                renew: bool = False, **options: Any) -> Optional[Lease]:
    """One try, never waits: the lease, or None while another holder has the lock."""
    try:
        return acquire(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew, **options)
    except LockBusyError:
        return None


async def try_acquire_async(client: Any, key: str, *, ttl_ms: int, fence_key: Optional[str] = None,
                            renew: bool = False, **options: Any) -> Optional[AsyncLease]:
    """try_acquire() for a redis.asyncio client."""
    try:
        return await acquire_async(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew, **options)
    except LockBusyError:
        return None


def release_lock(client: Any, key: str, token: str) -> bool:
    """Compare-and-delete: deletes key while it holds token (True, and wakes a waiter); False when
    it held another token or none."""
    return int(_call(client, RELEASE, [key], [token])) == 1


async def release_lock_async(client: Any, key: str, token: str) -> bool:
    """release_lock() for a redis.asyncio client."""
    return int(await _call_async(client, RELEASE, [key], [token])) == 1


def extend_lock(client: Any, key: str, token: str, ttl_ms: int) -> bool:
    """Compare-and-extend: sets key's lease to ttl_ms while it holds token (True); False when it
    held another token or none."""
    _check_ms("ttl_ms", ttl_ms, True)
    return int(_call(client, EXTEND, [key], [token, ttl_ms])) == 1


async def extend_lock_async(client: Any, key: str, token: str, ttl_ms: int) -> bool:
    """extend_lock() for a redis.asyncio client."""
    _check_ms("ttl_ms", ttl_ms, True)
    return int(await _call_async(client, EXTEND, [key], [token, ttl_ms])) == 1


class lock:  # noqa: N801 - used like a function: with lock(...) as lease
    """``with lock(r, key, ttl_ms=...) as lease:`` (or ``async with`` on a redis.asyncio client).

    Takes what acquire() takes. Releases on exit, also after an exception. Raises LeaseLostError
    after a block that ended normally if the lease was gone before the release: another holder may
    have run at the same time, so the block's effects need checking (or fencing).
    """

    def __init__(
        self, client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
        renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any,
    ):
        self._args = (client, key)
        self._options = dict(ttl_ms=ttl_ms, wait_ms=wait_ms, fence_key=fence_key, renew=renew, kind=kind,
                             retry_ms=retry_ms, **options)
        self._lease: Optional[Union[Lease, AsyncLease]] = None
        self._undo: List[Callable[[], None]] = []
        #: try_lock: enter yields None instead of raising LockBusyError.
        self._busy_is_none = False

    def _entered(self, lease: Union[Lease, AsyncLease]) -> None:
        self._lease = lease
        for scope in _SCOPES:
            undo = scope(lease, self._options)
            if undo is not None:
                self._undo.append(undo)

    def _exiting(self) -> Any:
        while self._undo:
            self._undo.pop()()
        return self._lease

    def __enter__(self) -> Optional[Lease]:
        try:
            lease = acquire(*self._args, **self._options)
        except LockBusyError:
            if self._busy_is_none:
                return None
            raise
        self._entered(lease)
        return lease

    def __exit__(self, error_type, error, traceback) -> None:
        lease = self._exiting()
        if lease is not None and error_type is not None:
            with contextlib.suppress(RedisError):  # the block's error is the one to report
                lease.release()
        elif lease is not None and not lease.release():
            raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason

    async def __aenter__(self) -> Optional[AsyncLease]:
        try:
            lease = await acquire_async(*self._args, **self._options)
        except LockBusyError:
            if self._busy_is_none:
                return None
            raise
        self._entered(lease)
        return lease

    async def __aexit__(self, error_type, error, traceback) -> None:
        lease = self._exiting()
        if lease is not None and error_type is not None:
            with contextlib.suppress(RedisError):  # the block's error is the one to report
                await lease.release()
        elif lease is not None and not await lease.release():
            raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason


class try_lock(lock):  # noqa: N801 - used like a function: with try_lock(...) as lease
    """``with try_lock(r, key, ttl_ms=...) as lease:`` (or ``async with``): one try, never waits;
    lease is None while another holder has the lock (skip the work then)."""

    def __init__(self, client: Any, key: str, *, ttl_ms: int, fence_key: Optional[str] = None, renew: bool = False,
                 **options: Any):
        super().__init__(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew, **options)
        self._busy_is_none = True


«kinds:code»

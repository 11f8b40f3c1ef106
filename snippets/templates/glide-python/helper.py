«header»
"""Locks for Valkey GLIDE for Python (asyncio): ``async with lock(client, key, ttl_ms=...) as lease``
holds a lock around the block; ``await acquire()`` and ``await lease.release()`` are for code that
cannot use a block. ``try_lock`` / ``try_acquire()`` try once and never wait (the lease, or None when
busy); ``release_lock()`` and ``extend_lock()`` take a key and a token. ``client`` is a GlideClient
or a GlideClusterClient.

A waiter sleeps in line until the holder's lease ends or a jittered retry bound passes, and on a
GlideClusterClient given to enable_wakeups() until the release wakes it (SSUBSCRIBE on the lock
key). GLIDE has sharded pub/sub in cluster mode only, and a standalone SUBSCRIBE never receives the
release's SPUBLISH: on a GlideClient waiters poll."""
from __future__ import annotations

import asyncio
import copy
import os
import random
import secrets
import socket
import time
import weakref
from typing import Any, Awaitable, Callable, Dict, List, NamedTuple, Optional, Tuple, Union
«kinds:imports»

from glide import GlideClient, GlideClusterClient, GlideClusterClientConfiguration, Script
from glide_shared.exceptions import GlideError, RequestError

# GLIDE runs a Script with EVALSHA and on NOSCRIPT (script cache flushed, restart, failover) loads
# it and runs it again; a flush between the two still gives NoScript, and then the source goes
# once with EVAL, which cannot miss. Each Script is made at first use.
ACQUIRE = """«lua:acquire»"""
ACQUIRE_QUEUED = """«lua:acquire_queued»"""
EXTEND = """«lua:extend»"""
RELEASE = """«lua:release»"""
«kinds:scripts»

__all__ = [
    "lock", "try_lock", "acquire", "try_acquire", "release_lock", "extend_lock", "enable_wakeups", "Lease",
    "LockBusyError", "LeaseLostError",
]

LockClient = Union[GlideClient, GlideClusterClient]


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


_scripts: Dict[str, Script] = {}


async def _call(client: LockClient, lua: str, keys: List[str], args: List[Any]) -> Any:
    script = _scripts.get(lua)
    if script is None:
        script = _scripts[lua] = Script(lua)
    texts = [str(arg) for arg in args]
    try:
        return await client.invoke_script(script, keys=list(keys), args=texts)
    except RequestError as error:
        if "noscript" not in str(error).lower():
            raise
        return await client.custom_command(["EVAL", lua, str(len(keys)), *keys, *texts])


async def _run(client: LockClient, lua: str, keys: List[str], args: List[Any]) -> int:
    return int(await _call(client, lua, keys, args))


#: The configurations enable_wakeups was given, per cluster client.
_configurations: "weakref.WeakKeyDictionary[Any, GlideClusterClientConfiguration]" = weakref.WeakKeyDictionary()


def enable_wakeups(client: GlideClusterClient, configuration: GlideClusterClientConfiguration) -> None:
    """Lets the waiters of a GlideClusterClient be woken by the release: GLIDE cannot duplicate a
    client and sets a client's message callback when it creates it, so the helper opens its
    subscriber (one per client, while it has waiters) from the configuration client was created with."""
    if not isinstance(client, GlideClusterClient):
        raise TypeError("enable_wakeups takes a GlideClusterClient: GLIDE has sharded pub/sub in cluster mode only")
    _configurations[client] = configuration


class _Hub:
    """A cluster client's wake-ups: a second client made from its configuration, SSUBSCRIBEd to the
    keys its waiters wait on. The scripts that free a lock SPUBLISH on its key's name, with an empty
    payload (wake one waiter), '*' (wake all) or the token of the waiter to wake."""

    def __init__(self, configuration: GlideClusterClientConfiguration):
        self._loop = asyncio.get_running_loop()
        #: Per key, its waiters' tokens and events, first come first.
        self.channels: Dict[str, Dict[str, asyncio.Event]] = {}
        self._subscribed: Dict[str, "asyncio.Future[Any]"] = {}
        opened = copy.copy(configuration)
        opened.pubsub_subscriptions = GlideClusterClientConfiguration.PubSubSubscriptions(
            channels_and_patterns={}, callback=self._message, context=None
        )
        self._subscriber = asyncio.ensure_future(GlideClusterClient.create(opened))

    def _message(self, message: Any, _context: Any) -> None:
        # GLIDE may call this from its own thread: the events are set on the waiters' loop.
        self._loop.call_soon_threadsafe(self._wake, _text(message.channel), _text(message.message))

    def _wake(self, channel: str, payload: str) -> None:
        waiters = self.channels.get(channel, {})
        if payload == "*":
            events = list(waiters.values())
        elif payload == "":
            events = list(waiters.values())[:1]
        else:
            events = [waiters[payload]] if payload in waiters else []
        for event in events:
            event.set()

    async def join(self, key: str, token: str, patience_s: float) -> asyncio.Event:
        """A waiter's event, once subscribed or after patience_s: a waiter whose subscription stalls
        or fails (a server before 7.0, an ACL without channel rights) still wakes by its timer."""
        event = asyncio.Event()
        self.channels.setdefault(key, {})[token] = event
        if key not in self._subscribed:
            self._subscribed[key] = asyncio.ensure_future(self._subscribe(key))
        await asyncio.wait([self._subscribed[key]], timeout=patience_s)
        return event

    async def _subscribe(self, key: str) -> None:
        try:
            await (await self._subscriber).ssubscribe({key}, timeout_ms=10_000)
        except (GlideError, OSError):
            pass  # its waiters wake by their timers

    def leave(self, key: str, token: str) -> bool:
        """Leaves key's waiters; True when the hub has none left (then close it)."""
        waiters = self.channels.get(key, {})
        waiters.pop(token, None)
        if not waiters:
            self.channels.pop(key, None)
            self._subscribed.pop(key, None)
        return not self.channels

    async def unsubscribe(self, key: str) -> None:
        try:
            await (await self._subscriber).sunsubscribe_lazy({key})
        except (GlideError, OSError):
            pass  # a stray wake-up costs one try

    async def close(self) -> None:
        try:
            await (await self._subscriber).close()
        except (GlideError, OSError):
            pass


_hubs: "weakref.WeakKeyDictionary[Any, _Hub]" = weakref.WeakKeyDictionary()


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


#: One try: the script's reply (0: not taken) and, in line, when the holder's lease ends (s).
_Attempt = Tuple[int, Optional[float]]


async def _take(client: LockClient, key: str, token: str, wait_ms: int, retry_ms: int,
                attempt: Callable[[], Awaitable[_Attempt]]) -> int:
    """Tries; while the lock is held and wait_ms lasts, joins its waiters (wake-ups where enabled),
    tries again (a release may have gone out before the subscription), then sleeps until woken,
    until the holder's lease ends or for the jittered retry bound, and tries again. The last reply."""
    deadline = time.monotonic() + wait_ms / 1000
    reply, _ = await attempt()
    if reply != 0 or wait_ms == 0:
        return reply
    hub: Optional[_Hub] = None
    event = asyncio.Event()  # never set without wake-ups: the waiter polls
    configuration = _configurations.get(client)
    if configuration is not None:
        hub = _hubs.get(client)
        if hub is None:
            hub = _hubs[client] = _Hub(configuration)
        event = await hub.join(key, token, retry_ms / 1000)
    try:
        while True:
            reply, lease_left_s = await attempt()
            left = deadline - time.monotonic()
            if reply != 0 or left <= 0:
                return reply
            bound = retry_ms / 1000 * (0.5 + random.random() / 2)
            try:
                await asyncio.wait_for(event.wait(), min(left, bound, bound if lease_left_s is None else lease_left_s))
            except asyncio.TimeoutError:
                pass
            event.clear()
    finally:
        if hub is not None:
            if hub.leave(key, token):
                if _hubs.get(client) is hub:
                    del _hubs[client]  # before closing: a waiter that comes meanwhile opens another
                await hub.close()
            elif key not in hub.channels:
                await hub.unsubscribe(key)


class Lease:
    """A held lock, read lock, write lock or semaphore permit. Renewal, when asked for, runs in an
    asyncio task."""

    def __init__(self, client: LockClient, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool,
                 kind: _Kind = _PLAIN, queue: Optional[str] = None):
        self.client = client
        self.key = key
        self._kind = kind
        #: This holder's owner token: the lock key's value (or its member's name) while it is held.
        self.token = token
        #: The fencing token with fence_key: pass it to the guarded resource, which refuses older ones.
        self.fence = fence
        self.ttl_ms = ttl_ms
        #: Why the lease was lost (a LeaseLostError), once a renewal found it gone or failed.
        self.lost_reason: Optional[LeaseLostError] = None
        #: Set when the lease is lost; await its wait() to be told.
        self.lost_event = asyncio.Event()
        # The waiter queue the lock was taken from: the release wakes the first in line.
        self._release_keys = [key] if queue is None else [key, queue]
        self._released = False
        self._stopped = asyncio.Event()
        self._renewer: Optional[asyncio.Task] = asyncio.ensure_future(self._renew()) if renew else None

    @property
    def lost(self) -> bool:
        """True once a renewal found the lease gone or failed: stop writing."""
        return self.lost_reason is not None

    async def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Sets the lease to ttl_ms from now (default: the acquire's); False when it is no longer held."""
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        return await _run(self.client, self._kind.extend, [self.key], [self.token, ttl_ms]) == 1

    async def release(self) -> bool:
        """Stops renewing and gives the lock back if this lease still holds it, waking a waiter;
        False when it no longer did."""
        if self._released:
            return False
        self._released = True
        self._stopped.set()
        if self._renewer is not None and self._renewer is not asyncio.current_task():
            await self._renewer  # not cancelled: a renewal in flight ends before the release
        return await _run(self.client, self._kind.release, self._release_keys, [self.token]) != 0

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
            except GlideError as error:
                self._lose(LeaseLostError(self.key, f"renewal failed, it may expire unseen: {error}"))
            return

    def _lose(self, reason: LeaseLostError) -> None:
        self.lost_reason = reason
        self.lost_event.set()


def _waiters_key(key: str) -> Optional[str]:
    """The waiter queue of a lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
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
    plans = [planner(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options) for planner in _PLANNERS]
    if options:
        raise TypeError(f"this helper has no lock kind that takes {', '.join(options)}")
    for plan in plans:
        if plan is not None:
            return plan
    token = _token()
    fence = [] if fence_key is None else [fence_key]
    queue = _waiters_key(key) if wait_ms > 0 else None
    if queue is None:
        return _Plan(_PLAIN, ACQUIRE, [key, *fence], [token, ttl_ms], token, None, bool(fence))
    # In line (first come, first served): the release takes the first waiter off and wakes that one.
    return _Plan(_PLAIN, ACQUIRE_QUEUED, [key, queue, *fence], [token, ttl_ms], token, queue, bool(fence))


async def acquire(
    client: LockClient, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
    renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any,
) -> Lease:
    """Takes the lock, waiting up to wait_ms in line for the release (or a poll) to let it in, then
    LockBusyError.

    ttl_ms: the lease, how long the lock outlives a holder that dies without releasing it.
    fence_key: a fencing counter key (in Cluster, with the lock key's {hash tag}).
    renew: extend the lease every ttl_ms/3 from a task; lease.lost turns true when that fails.
    retry_ms: the longest sleep between tries while waiting (jittered down to half).
    kind and options: the other lock kinds this helper carries.
    GLIDE's errors (RequestError, TimeoutError, ...) are raised as they are.
    """
    plan = _plan(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options)
    deadline = time.monotonic() + wait_ms / 1000

    async def attempt() -> _Attempt:
        if plan.queue is None:
            return await _run(client, plan.lua, plan.keys, plan.args), None
        # The queue lives at least as long as this waiter may still wait.
        queue_ms = max(1, int((deadline - time.monotonic()) * 1000)) + 2 * retry_ms
        replies = await _call(client, plan.lua, plan.keys, [*plan.args, queue_ms])
        taken, pttl = int(replies[0]), int(replies[1])
        # PTTL -1: no expiry, nothing to wait for but a wake-up; -2 (gone) and 0 (ending now): try at once.
        return taken, (None if pttl == -1 else max(pttl, 0) / 1000)

    reply = 0
    try:
        reply = await _take(client, key, plan.token, wait_ms, retry_ms, attempt)
    finally:
        if reply == 0 and plan.queue is not None:
            try:
                await client.zrem(plan.queue, [plan.token])  # leave the line
            except GlideError:
                pass  # the queue ends by itself, soon after the wait would have
    if reply == 0:
        raise LockBusyError(key, wait_ms, plan.kind.holders)
    return Lease(client, key, plan.token, ttl_ms, reply if plan.fenced else None, renew, plan.kind, plan.queue)


async def try_acquire(client: LockClient, key: str, *, ttl_ms: int, fence_key: Optional[str] = None,
                      renew: bool = False) -> Optional[Lease]:
    """One try, never waits: the lease, or None while another holder has the lock."""
    try:
        return await acquire(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew)
    except LockBusyError:
        return None


async def release_lock(client: LockClient, key: str, token: str) -> bool:
    """Compare-and-delete: deletes key while it holds token (True, and wakes a waiter); False when
    it held another token or none."""
    return await _run(client, RELEASE, [key], [token]) == 1


async def extend_lock(client: LockClient, key: str, token: str, ttl_ms: int) -> bool:
    """Compare-and-extend: sets key's lease to ttl_ms while it holds token (True); False when it
    held another token or none."""
    _check_ms("ttl_ms", ttl_ms, True)
    return await _run(client, EXTEND, [key], [token, ttl_ms]) == 1


class lock:  # noqa: N801 - used like a function: async with lock(...) as lease
    """``async with lock(client, key, ttl_ms=...) as lease:``

    Takes what acquire() takes. Releases on exit, also after an exception. Raises LeaseLostError
    after a block that ended normally if the lease was gone before the release: another holder may
    have run at the same time, so the block's effects need checking (or fencing).
    """

    def __init__(
        self, client: LockClient, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
        renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any,
    ):
        self._args = (client, key)
        self._options: Dict[str, Any] = dict(ttl_ms=ttl_ms, wait_ms=wait_ms, fence_key=fence_key, renew=renew,
                                             kind=kind, retry_ms=retry_ms, **options)
        self._lease: Optional[Lease] = None
        self._undo: List[Callable[[], None]] = []
        #: try_lock: entering yields None instead of raising LockBusyError.
        self._busy_is_none = False

    async def __aenter__(self) -> Optional[Lease]:
        try:
            self._lease = await acquire(*self._args, **self._options)
        except LockBusyError:
            if self._busy_is_none:
                return None
            raise
        for scope in _SCOPES:
            undo = scope(self._lease, self._options)
            if undo is not None:
                self._undo.append(undo)
        return self._lease

    async def __aexit__(self, error_type, error, traceback) -> None:
        while self._undo:
            self._undo.pop()()
        lease = self._lease
        if lease is None:
            return
        if error_type is not None:
            try:
                await lease.release()
            except GlideError:
                pass  # the block's error is the one to report
            return
        if not await lease.release():
            raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason


class try_lock(lock):  # noqa: N801 - used like a function: async with try_lock(...) as lease
    """``async with try_lock(client, key, ttl_ms=...) as lease:``: one try, never waits; lease is
    None while another holder has the lock (skip the work then)."""

    def __init__(self, client: LockClient, key: str, *, ttl_ms: int, fence_key: Optional[str] = None,
                 renew: bool = False):
        super().__init__(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew)
        self._busy_is_none = True


«kinds:code»

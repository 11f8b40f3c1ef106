«header»
"""Locks for Valkey GLIDE for Python (asyncio), on a GlideClient or GlideClusterClient: ``async with
lock(client, key, ttl_ms=...) as lease`` around a block, else ``await acquire()`` and ``await lease.release()``;
``try_lock`` / ``try_acquire()`` try once (None when busy); ``release_lock()`` / ``extend_lock()`` take a token."""
from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import socket
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, NamedTuple, Optional, Tuple, Union
«kinds:imports»

from glide import GlideClient, GlideClusterClient, Script
from glide_shared.exceptions import GlideError, RequestError

ACQUIRE = """«lua:acquire»"""
EXTEND = """«lua:extend»"""
RELEASE = """«lua:release»"""
«kinds:scripts»

__all__ = ["lock", "try_lock", "acquire", "try_acquire", "release_lock", "extend_lock", "Lease", "LockBusyError",
           "LeaseLostError"]

LockClient = Union[GlideClient, GlideClusterClient]
#: One try: the script's reply (0: not taken) and the longest sleep the holder's lease asks for (s).
_Attempt = Tuple[int, Optional[float]]
_scripts: Dict[str, Script] = {}
#: A kind of lock: the scripts that extend and release it, and who holds it when it is busy.
_Kind = NamedTuple("_Kind", [("extend", str), ("release", str), ("holders", str)])
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


async def _call(client: LockClient, lua: str, keys: List[str], args: List[Any]) -> Any:
    script = _scripts.get(lua)
    if script is None:
        script = _scripts[lua] = Script(lua)
    texts = [arg if isinstance(arg, bytes) else str(arg) for arg in args]
    try:
        return await client.invoke_script(script, keys=list(keys), args=texts)
    except RequestError as error:  # NOSCRIPT after GLIDE's own reload: a flush came between, send the source
        if "noscript" not in str(error).lower():
            raise
        return await client.custom_command(["EVAL", lua, str(len(keys)), *keys, *texts])


def _lease_left(pttl: int) -> Optional[float]:
    """The holder's PTTL as a sleep: to its end and 1 ms; none once it is gone (-2); None without expiry (-1)."""
    return None if pttl == -1 else max(pttl + 1, 0) / 1000


@contextlib.asynccontextmanager
async def _wakeups(client: LockClient, key: str, token: str, patience_s: float) -> AsyncIterator[asyncio.Event]:
«kinds:wakeups»
    yield asyncio.Event()  # the event a release of key sets for this waiter: none without the wakeups part


async def _take(client: LockClient, key: str, token: str, wait_ms: int, retry_ms: int,
                attempt: Callable[[], Awaitable[_Attempt]]) -> int:
    """Tries; while the lock is held and wait_ms lasts, sleeps the shortest of what is left of it, the
    retry bound jittered down to half and the holder's lease (or until woken), and tries again."""
    deadline = time.monotonic() + wait_ms / 1000
    reply, lease_left = await attempt()
    if reply != 0 or wait_ms == 0:
        return reply
    async with _wakeups(client, key, token, retry_ms / 1000) as woken:
        while reply == 0 and time.monotonic() < deadline:
            bound = retry_ms / 1000 * (0.5 + random.random() / 2)
            with contextlib.suppress(asyncio.TimeoutError):
                sleep = min(deadline - time.monotonic(), bound, bound if lease_left is None else lease_left)
                await asyncio.wait_for(woken.wait(), sleep)
            woken.clear()
            reply, lease_left = await attempt()
    return reply


class Lease:
    """A held lock, read lock, write lock or semaphore permit; renewal, when asked for, in an asyncio task."""
    def __init__(self, client: LockClient, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool,
                 kind: _Kind = _PLAIN):
        self.client = client
        self.key = key
        self._kind = kind
        #: This holder's owner token: the lock key's value (or its member's name) while it is held.
        self.token = token
        #: The fencing token with fence_key: pass it to the guarded resource, which refuses older ones.
        self.fence = fence
        self.ttl_ms = ttl_ms
        #: Why the lease was lost (a LeaseLostError) once a renewal found it gone or failed; lost_event is set then.
        self.lost_reason: Optional[LeaseLostError] = None
        self.lost_event = asyncio.Event()
        self._release_keys = [key]
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
        return int(await _call(self.client, self._kind.extend, [self.key], [self.token, ttl_ms])) == 1

    async def release(self) -> bool:
        """Stops renewing and gives the lock back if this lease still holds it; False when it no longer did."""
        if self._released:
            return False
        self._released = True
        self._stopped.set()
        if self._renewer is not None and self._renewer is not asyncio.current_task():
            await self._renewer  # not cancelled: a renewal in flight ends before the release
        return int(await _call(self.client, self._kind.release, self._release_keys, [self.token])) != 0

    async def _renew(self) -> None:
        try:
            while True:
                with contextlib.suppress(asyncio.TimeoutError):
                    return await asyncio.wait_for(self._stopped.wait(), self.ttl_ms / 3000)
                if not await self.extend():
                    break
            why = "taken by another owner or expired"
        except GlideError as error:
            why = f"renewal failed, it may expire unseen: {error}"
        self.lost_reason = LeaseLostError(self.key, why)
        self.lost_event.set()
«kinds:lease»


class _Plan(NamedTuple):  # what one try of an acquire runs, and what the lease it gives needs
    kind: _Kind
    lua: str
    keys: list
    args: list
    token: str
    fenced: bool
«kinds:plan-fields»


def _plain(key: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
           options: Dict[str, Any]) -> _Plan:
    token = _token()
    fence = [] if fence_key is None else [fence_key]
    return _Plan(_PLAIN, ACQUIRE, [key, *fence], [token, ttl_ms], token, bool(fence))


#: Each kind's planner by its kind= name (parts add theirs): the plan, the options it knows taken out.
_PLANNERS: Dict[str, Callable[[str, int, int, int, Optional[str], Dict[str, Any]], _Plan]] = {"lock": _plain}
#: What a kind does around a lock's block (the reentrant lock sets its context): returns the undo, or None.
_SCOPES: List[Callable[[Lease, Dict[str, Any]], Optional[Callable[[], None]]]] = []


def _plan(key: str, kind: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
          options: Dict[str, Any]) -> _Plan:
    _check_ms("ttl_ms", ttl_ms, True)
    _check_ms("wait_ms", wait_ms, False)
    _check_ms("retry_ms", retry_ms, True)
    if kind not in _PLANNERS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, _PLANNERS))} in this helper, got {kind!r}")
    options = dict(options)
«kinds:plan»
    plan = _PLANNERS[kind](key, ttl_ms, wait_ms, retry_ms, fence_key, options)
    if options:
        raise TypeError(f"kind {kind!r} takes no {', '.join(options)} in this helper")
«kinds:planned»
    return plan


async def _send(client: LockClient, plan: _Plan, args: List[Any]) -> Any:
    """One try of a plan: its script's reply."""
«kinds:send»
    return await _call(client, plan.lua, plan.keys, args)


async def acquire(client: LockClient, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
                  renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any) -> Lease:
    """Takes the lock, waiting up to wait_ms for it, then LockBusyError. ttl_ms: the lease, how long the lock
    outlives a holder that dies without releasing it. fence_key: a fencing counter key (in Cluster, with the
    lock key's {hash tag}). renew: extend the lease every ttl_ms/3 (lease.lost turns true when that fails).
    retry_ms: the longest sleep between tries. kind and options: the other lock kinds this helper carries."""
    plan = _plan(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options)
«kinds:acquire»
    async def attempt() -> _Attempt:
        taken = int(await _send(client, plan, plan.args))
        # Only a waiter asks how long the holder's lease has left (one more call): it sleeps no longer.
        return taken, None if taken != 0 or wait_ms == 0 else _lease_left(await client.pttl(key))

    reply = await _take(client, key, plan.token, wait_ms, retry_ms, attempt)
    if reply == 0:
        raise LockBusyError(key, wait_ms, plan.kind.holders)
    return Lease(client, key, plan.token, ttl_ms, reply if plan.fenced else None, renew, plan.kind)


async def try_acquire(client: LockClient, key: str, *, ttl_ms: int, fence_key: Optional[str] = None,
                      renew: bool = False, **options: Any) -> Optional[Lease]:
    """One try, never waits: the lease, or None while another holder has the lock."""
    with contextlib.suppress(LockBusyError):
        return await acquire(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew, **options)
    return None


async def release_lock(client: LockClient, key: str, token: str) -> bool:
    """Compare-and-delete: deletes key while it holds token (True); False when it held another token or none."""
    return int(await _call(client, RELEASE, [key], [token])) == 1


async def extend_lock(client: LockClient, key: str, token: str, ttl_ms: int) -> bool:
    """Compare-and-extend: sets key's lease to ttl_ms while it holds token (True); False when it did not."""
    _check_ms("ttl_ms", ttl_ms, True)
    return int(await _call(client, EXTEND, [key], [token, ttl_ms])) == 1


def lock(client: LockClient, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
         renew: bool = False, kind: str = "lock", retry_ms: int = 500,
         **options: Any) -> contextlib.AbstractAsyncContextManager[Lease]:
    """``async with lock(client, key, ttl_ms=...) as lease:`` takes what acquire() takes and releases on exit,
    also after an exception. Raises LeaseLostError after a block that ended normally if the lease was gone
    before the release: another holder may have run meanwhile, so check the block's effects (or fence)."""
    options.update(ttl_ms=ttl_ms, wait_ms=wait_ms, fence_key=fence_key, renew=renew, kind=kind, retry_ms=retry_ms)
    return _held(lambda: acquire(client, key, **options), options)


def try_lock(client: LockClient, key: str, *, ttl_ms: int, fence_key: Optional[str] = None, renew: bool = False,
             **options: Any) -> contextlib.AbstractAsyncContextManager[Optional[Lease]]:
    """``async with try_lock(client, key, ttl_ms=...) as lease:``: one try, never waits; lease is None
    while another holder has the lock (skip the work then)."""
    options.update(ttl_ms=ttl_ms, fence_key=fence_key, renew=renew)
    return _held(lambda: try_acquire(client, key, **options), options)


@contextlib.asynccontextmanager
async def _held(take: Callable[[], Awaitable[Optional[Lease]]], options: Dict[str, Any]) -> AsyncIterator[Any]:
    lease = await take()
    if lease is None:
        yield None
        return
    undo = [done for done in (scope(lease, options) for scope in _SCOPES) if done is not None]
    try:
        yield lease
    except BaseException:
        with contextlib.suppress(GlideError):  # the block's error is the one to report
            await lease.release()
        raise
    finally:
        for done in reversed(undo):
            done()
    if not await lease.release():
        raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason


«kinds:code»

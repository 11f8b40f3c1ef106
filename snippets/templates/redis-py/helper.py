«header»
"""Redis locks for redis-py: ``with lock(r, key, ttl_ms=...) as lease`` or ``acquire()``; ``try_lock`` /
``try_acquire()`` try once; ``release_lock()`` / ``extend_lock()`` (``_async``: redis.asyncio) take a token."""

import contextlib
import os
import random
import secrets
import socket
import threading
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union
«kinds:imports»

from redis.exceptions import NoScriptError, RedisError

# Run by SHA1, loaded on NOSCRIPT by register_script; a flush just after that load is met with EVAL.
ACQUIRE = """«lua:acquire»"""
EXTEND = """«lua:extend»"""
RELEASE = """«lua:release»"""
«kinds:scripts»

__all__ = ["lock", "try_lock", "acquire", "try_acquire", "release_lock", "release_lock_async", "extend_lock",
           "extend_lock_async", "Lease", "LockBusyError", "LeaseLostError"]


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


def _pause(deadline: float, retry_ms: int, pttl: int) -> float:
    """The shortest of the wait left, the retry bound jittered down to half and the holder's PTTL + 1 ms."""
    bound = retry_ms / 1000 * (0.5 + random.random() / 2)
    return max(0.0, min(deadline - time.monotonic(), bound, bound if pttl == -1 else (pttl + 1) / 1000))


def _take(client: Any, plan: "_Plan", wait_ms: int, retry_ms: int) -> int:
    """Tries until the lock is taken (the reply) or wait_ms passed (LockBusyError), polling between."""
    deadline = time.monotonic() + wait_ms / 1000
    while not (taken := int(_send(client, plan))):
        if time.monotonic() >= deadline:
            raise LockBusyError(plan.keys[0], wait_ms, plan.kind.holders)
        time.sleep(_pause(deadline, retry_ms, int(client.pttl(plan.keys[0]))))
    return taken


class _LeaseBase:
    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], kind: _Kind,
                 release_keys: Optional[list]):
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
        self._release_keys = release_keys or [key]
        self._released = False

    @property
    def lost(self) -> bool:
        """True once a renewal found the lease gone or failed: stop writing."""
        return self.lost_reason is not None

    def _extend_args(self, ttl_ms: Optional[int]) -> tuple:
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        return self.client, self._kind.extend, [self.key], [self.token, ttl_ms]

    def _releasing(self) -> bool:
        released, self._released = self._released, True
        self._stopped.set()
        return not released

    def _renewed(self, extended: Union[bool, RedisError]) -> bool:
        if extended is True:
            return True
        why = f"renewal failed, it may expire unseen: {extended}" if extended else "taken by another owner or expired"
        self.lost_reason = LeaseLostError(self.key, why)
        self.lost_event.set()
        return False
«kinds:lease»


class Lease(_LeaseBase):
    """A held lock, read lock, write lock or semaphore permit; renewal, when asked for, runs in a thread."""

    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool,
                 kind: _Kind = _PLAIN, release_keys: Optional[list] = None):
        super().__init__(client, key, token, ttl_ms, fence, kind, release_keys)
        self.lost_event = threading.Event()  # set when the lease is lost
        self._stopped = threading.Event()
        self._renewer = threading.Thread(target=self._renew, name=f"locksmith-renew {key}", daemon=True)
        if renew:
            self._renewer.start()

    def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Sets the lease to ttl_ms from now (default: the acquire's); False when it is no longer held."""
        return int(_call(*self._extend_args(ttl_ms))) == 1

    def release(self) -> bool:
        """Stops renewing and gives the hold back if this lease still has it; False when it no longer did."""
        if not self._releasing():
            return False
        if self._renewer.is_alive() and self._renewer is not threading.current_thread():
            self._renewer.join()  # a renewal in flight ends before the release
        return int(_call(self.client, self._kind.release, self._release_keys, [self.token])) != 0

    def _renew(self) -> None:
        extended: Union[bool, RedisError] = True
        while self._renewed(extended) and not self._stopped.wait(self.ttl_ms / 3000):
            try:
                extended = self.extend()
            except RedisError as error:
                extended = error
«kinds:sync-lease»


class _Plan(NamedTuple):
    """What one try of an acquire runs, and what the lease it gives needs."""
    kind: _Kind
    lua: str
    keys: list
    args: list
    token: str
    fenced: bool = False
    release_keys: Optional[list] = None
«kinds:plan-fields»


#: The other kinds' planners: each takes its options out of the dict and returns its plan, else None.
_PLANNERS: List[Callable[[str, str, int, int, Optional[str], Dict[str, Any]], Optional[_Plan]]] = []
_KIND_NAMES = ["lock"]


def _plan(key: str, kind: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
          options: Dict[str, Any]) -> _Plan:
    for name, value in (("ttl_ms", ttl_ms), ("wait_ms", wait_ms), ("retry_ms", retry_ms)):
        _check_ms(name, value, positive=name != "wait_ms")
    if kind not in _KIND_NAMES:
        raise ValueError(f"kind must be one of {', '.join(map(repr, _KIND_NAMES))} in this helper, got {kind!r}")
    options = dict(options)
«kinds:plan»
    plans = [planner(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options) for planner in _PLANNERS]
    if options:
        raise TypeError(f"this helper has no lock kind that takes {', '.join(options)}")
    token, fence = _token(), [] if fence_key is None else [fence_key]
    plain = _Plan(_PLAIN, ACQUIRE, [key, *fence], [token, ttl_ms], token, bool(fence))
    plan = next((plan for plan in plans if plan is not None), plain)
«kinds:planned»
    return plan


def _send(client: Any, plan: _Plan) -> Any:
    """One try of a plan: its script's reply."""
«kinds:send»
    return _call(client, plan.lua, plan.keys, plan.args)


def acquire(
    client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
    renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any,
) -> Lease:
    """Takes the lock, waiting up to wait_ms (0: one try), then LockBusyError. ttl_ms: how long it outlives a
    holder that dies; fence_key: a fencing counter (in Cluster, with the key's {hash tag}); renew: extend every
    ttl_ms/3 (lease.lost once that fails); retry_ms: the longest sleep between tries; options: the parts'."""
    plan = _plan(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options)
    taken = _take(client, plan, wait_ms, retry_ms)
    return Lease(client, key, plan.token, ttl_ms, taken if plan.fenced else None, renew, plan.kind, plan.release_keys)


def try_acquire(client: Any, key: str, *, ttl_ms: int, fence_key: Optional[str] = None,
                renew: bool = False, **options: Any) -> Optional[Lease]:
    """One try, never waits: the lease, or None while another holder has the lock."""
    with contextlib.suppress(LockBusyError):
        return acquire(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew, **options)
    return None


def release_lock(client: Any, key: str, token: str) -> bool:
    """Compare-and-delete: deletes key while it holds token (True); False when it held another token or none."""
    return int(_call(client, RELEASE, [key], [token])) == 1


async def release_lock_async(client: Any, key: str, token: str) -> bool:
    """release_lock() for a redis.asyncio client."""
    return int(await _call_async(client, RELEASE, [key], [token])) == 1


def extend_lock(client: Any, key: str, token: str, ttl_ms: int) -> bool:
    """Compare-and-extend: sets key's lease to ttl_ms while it holds token (True); False when it does not."""
    _check_ms("ttl_ms", ttl_ms, True)
    return int(_call(client, EXTEND, [key], [token, ttl_ms])) == 1


async def extend_lock_async(client: Any, key: str, token: str, ttl_ms: int) -> bool:
    """extend_lock() for a redis.asyncio client."""
    _check_ms("ttl_ms", ttl_ms, True)
    return int(await _call_async(client, EXTEND, [key], [token, ttl_ms])) == 1


class lock:  # noqa: N801 - used like a function: with lock(...) as lease
    """``with lock(r, key, ttl_ms=...) as lease:``: acquire() around the block; LeaseLostError after it if lost."""

    def __init__(self, client: Any, key: Any, **options: Any):
        self._args, self._options = (client, key), options
        self._lease: Any = None
        self._undo: List[Callable[[], None]] = []
        self._busy: tuple = ()  # try_lock's: entering gives None

    def _entered(self, lease: Any) -> Any:
        self._lease = lease
«kinds:entered»
        return lease

    def _exiting(self) -> Any:
        while self._undo:
            self._undo.pop()()
        return self._lease

    def __enter__(self) -> Optional[Lease]:
        with contextlib.suppress(*self._busy):
            return self._entered(acquire(*self._args, **self._options))
        return None

    def __exit__(self, error_type, error, traceback) -> None:
        lease = self._exiting()
        # After an exception the block's error is the one to report, not the release's.
        with contextlib.suppress(*(() if error_type is None else (RedisError,))):
            if lease is not None and not lease.release() and error_type is None:
                raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason
«kinds:lock»


class try_lock(lock):  # noqa: N801 - used like a function: with try_lock(...) as lease
    """``with try_lock(r, key, ttl_ms=...) as lease:``: one try; lease is None while another holder has it."""

    def __init__(self, client: Any, key: Any, **options: Any):
        super().__init__(client, key, wait_ms=0, **options)
        self._busy = (LockBusyError,)


«kinds:code»

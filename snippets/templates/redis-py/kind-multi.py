«section:imports»
from typing import Tuple
«section:scripts»
MULTI_ACQUIRE = """«lua:multi_acquire»"""
MULTI_EXTEND = """«lua:multi_extend»"""
MULTI_RELEASE = """«lua:multi_release»"""
«section:async-code»


async def _take_all_async(client: Any, groups: List[List[str]], token: str,
                          ttl_ms: int) -> Optional[Tuple[str, Optional[float]]]:
    """_take_all for a redis.asyncio client."""
    for taken, group in enumerate(groups):
        busy = _multi_busy(group, await _call_async(client, MULTI_ACQUIRE, group, [token, ttl_ms]))
        if busy is not None:
            for back in groups[:taken]:
                await _call_async(client, MULTI_RELEASE, back, [token])
            return busy
    return None


class AsyncMultiLease(AsyncLease):
    """MultiLease for a redis.asyncio client: renewal runs in a task."""

    def __init__(self, client: Any, groups: List[List[str]], token: str, ttl_ms: int, renew: bool):
        #: The lock keys, each once, in the order they were taken.
        self.keys = [key for group in groups for key in group]
        self._groups = groups
        super().__init__(client, ", ".join(self.keys), token, ttl_ms, None, renew, _MULTI)

    async def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """MultiLease.extend() for a redis.asyncio client."""
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        extended = 0
        for group in self._groups:
            extended += int(await _call_async(self.client, MULTI_EXTEND, group, [self.token, ttl_ms]))
        return extended == len(self.keys)

    async def release(self) -> bool:
        """MultiLease.release() for a redis.asyncio client."""
        if not self._releasing():
            return False
        if self._renewer is not None and self._renewer is not asyncio.current_task():
            await self._renewer  # not cancelled: a renewal in flight ends before the release
        released = 0
        for group in self._groups:
            released += int(await _call_async(self.client, MULTI_RELEASE, group, [self.token]))
        return released == len(self.keys)


class _AsyncMultiPoll:
    """_MultiPoll for a redis.asyncio client."""

    def __init__(self, client: Any, token: str, retry_ms: int):
        self._retry_ms = retry_ms

    async def wait(self, key: str, lease_left_s: Optional[float], deadline: float) -> None:
        await asyncio.sleep(_pause(deadline, self._retry_ms, _pttl(lease_left_s)))

    async def close(self) -> None:
        pass


_AsyncMultiWaiter: Callable[[Any, str, int], Any] = _AsyncMultiPoll
«kinds:async-multi-waiter»


async def acquire_multi_async(client: Any, keys: List[str], *, ttl_ms: int, wait_ms: int = 10_000,
                              renew: bool = False, retry_ms: int = 500) -> AsyncMultiLease:
    """acquire_multi() for a redis.asyncio client: renewal runs in a task."""
    groups = _multi_plan(keys, ttl_ms, wait_ms, retry_ms, _slot_of(client))
    token, deadline = _token(), time.monotonic() + wait_ms / 1000
    waiter = _AsyncMultiWaiter(client, token, retry_ms)
    try:
        while (busy := await _take_all_async(client, groups, token, ttl_ms)) is not None:
            if time.monotonic() >= deadline:
                raise LockBusyError(busy[0], wait_ms)
            await waiter.wait(*busy, deadline)
    finally:
        await waiter.close()
    return AsyncMultiLease(client, groups, token, ttl_ms, renew)


__all__ += ["acquire_multi_async", "AsyncMultiLease"]
«section:code»


«include:_py/multi»


# The multi-key lock: ``with multi_lock(r, ["lock:{a}", "lock:{b}"], ttl_ms=...) as lease`` (or
# ``async with`` on a redis.asyncio client) holds several plain locks all or nothing under one
# token (moving money between two accounts). Keys of one hash slot (on one server: all of them) go
# in one multi_acquire call; a RedisCluster's are taken slot by slot in one order (slot, then key
# bytes), and a busy key gives back the slots taken before the waiter sleeps on it: no caller waits
# holding part of its keys, so overlapping key sets cannot deadlock.
_MULTI = _Kind(MULTI_EXTEND, MULTI_RELEASE, "another owner")


def _slot_of(client: Any) -> Optional[Callable[[str], int]]:
    """A RedisCluster's (sync or asyncio) hash slot of a key; None for a client of one server."""
    keyslot = getattr(client, "keyslot", None)
    return keyslot if callable(keyslot) else None


def _take_all(client: Any, groups: List[List[str]], token: str, ttl_ms: int) -> Optional[Tuple[str, Optional[float]]]:
    """One pass in the fixed order: None when every key is held; else the busy key and its lease's
    end (_multi_busy), the slots taken before it given back."""
    for taken, group in enumerate(groups):
        busy = _multi_busy(group, _call(client, MULTI_ACQUIRE, group, [token, ttl_ms]))
        if busy is not None:
            for back in groups[:taken]:
                _call(client, MULTI_RELEASE, back, [token])
            return busy
    return None


def _pttl(lease_left_s: Optional[float]) -> int:
    return -1 if lease_left_s is None else int(lease_left_s * 1000)


class _MultiPoll:
    """How a multi-key waiter waits for the busy key: no longer than its lease or the jittered retry bound."""

    def __init__(self, client: Any, token: str, retry_ms: int):
        self._retry_ms = retry_ms

    def wait(self, key: str, lease_left_s: Optional[float], deadline: float) -> None:
        time.sleep(_pause(deadline, self._retry_ms, _pttl(lease_left_s)))

    def close(self) -> None:
        pass


_MultiWaiter: Callable[[Any, str, int], Any] = _MultiPoll
«kinds:multi-waiter»


class MultiLease(Lease):
    """Several plain locks held under one token (sync client). extend() and release() act on every
    key the token still holds and answer True only when it held all of them."""

    def __init__(self, client: Any, groups: List[List[str]], token: str, ttl_ms: int, renew: bool):
        #: The lock keys, each once, in the order they were taken.
        self.keys = [key for group in groups for key in group]
        self._groups = groups
        super().__init__(client, ", ".join(self.keys), token, ttl_ms, None, renew, _MULTI)

    def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Sets every lock's lease to ttl_ms from now (default: the acquire's); False when the token
        no longer held all of them (those it held are extended)."""
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        extended = sum(int(_call(self.client, MULTI_EXTEND, group, [self.token, ttl_ms])) for group in self._groups)
        return extended == len(self.keys)

    def release(self) -> bool:
        """Stops renewing and gives back every lock the token still holds, waking their waiters;
        False when it no longer held all of them."""
        if not self._releasing():
            return False
        if self._renewer.is_alive() and self._renewer is not threading.current_thread():
            self._renewer.join()  # a renewal in flight ends before the release
        released = sum(int(_call(self.client, MULTI_RELEASE, group, [self.token])) for group in self._groups)
        return released == len(self.keys)


def acquire_multi(client: Any, keys: List[str], *, ttl_ms: int, wait_ms: int = 10_000, renew: bool = False,
                  retry_ms: int = 500) -> MultiLease:
    """Takes every lock in keys, all or none, waiting up to wait_ms (0: one try), then LockBusyError
    naming a busy key. A busy key first gives back what this pass took, then the waiter waits for
    that key (_MultiWaiter) and tries all again. ttl_ms, renew and retry_ms as acquire()'s; keys:
    each lock key once (a list of str)."""
    groups = _multi_plan(keys, ttl_ms, wait_ms, retry_ms, _slot_of(client))
    token, deadline = _token(), time.monotonic() + wait_ms / 1000
    waiter = _MultiWaiter(client, token, retry_ms)
    try:
        while (busy := _take_all(client, groups, token, ttl_ms)) is not None:
            if time.monotonic() >= deadline:
                raise LockBusyError(busy[0], wait_ms)
            waiter.wait(*busy, deadline)
    finally:
        waiter.close()
    return MultiLease(client, groups, token, ttl_ms, renew)


class multi_lock(lock):  # noqa: N801 - used like a function: with multi_lock(...) as lease
    """``with multi_lock(r, keys, ttl_ms=...) as lease:`` (or ``async with`` on a redis.asyncio
    client): every lock in keys around the block, all or none. Takes what acquire_multi() takes and
    leaves as lock() does: released on exit, LeaseLostError after a block that ended normally if the
    token no longer held every lock."""

    def __init__(self, client: Any, keys: List[str], *, ttl_ms: int, wait_ms: int = 10_000, renew: bool = False,
                 retry_ms: int = 500):
        super().__init__(client, keys, ttl_ms=ttl_ms)
        self._multi = dict(ttl_ms=ttl_ms, wait_ms=wait_ms, renew=renew, retry_ms=retry_ms)

    def __enter__(self) -> MultiLease:
        return self._entered(acquire_multi(*self._args, **self._multi))
«kinds:multi-lock»


__all__ += ["multi_lock", "acquire_multi", "MultiLease"]

«section:scripts»
MULTI_ACQUIRE = """«lua:multi_acquire»"""
MULTI_EXTEND = """«lua:multi_extend»"""
MULTI_RELEASE = """«lua:multi_release»"""
«section:code»


«include:_py/multi»


# The multi-key lock: ``async with multi_lock(client, ["lock:{a}", "lock:{b}"], ttl_ms=...) as lease``
# holds several plain locks all or nothing under one token (moving money between two accounts).
# Keys of one hash slot (on a GlideClient: all of them) go in one multi_acquire call; a
# GlideClusterClient's are taken slot by slot in one order (slot, then key bytes), and a busy key
# gives back the slots taken before the waiter sleeps on it: no caller waits holding part of its
# keys, so overlapping key sets cannot deadlock.
_MULTI = _Kind(MULTI_EXTEND, MULTI_RELEASE, "another owner")


def _slot_of(key: str) -> int:
    """Redis Cluster's hash slot of key: CRC16 (XMODEM) of its {hash tag}, or of the whole key, mod 16384."""
    data = key.encode()
    opening = data.find(b"{")
    closing = data.find(b"}", opening + 1) if opening >= 0 else -1
    if closing > opening + 1:
        data = data[opening + 1:closing]
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc % 16384


async def _take_all(client: LockClient, groups: List[List[str]], token: str,
                    ttl_ms: int) -> Optional[Tuple[str, Optional[float]]]:
    """One pass in the fixed order: None when every key is held; else the busy key and its lease's
    end (_multi_busy), the slots taken before it given back."""
    for taken, group in enumerate(groups):
        busy = _multi_busy(group, await _call(client, MULTI_ACQUIRE, group, [token, ttl_ms]))
        if busy is not None:
            for back in groups[:taken]:
                await _call(client, MULTI_RELEASE, back, [token])
            return busy
    return None


class MultiLease(Lease):
    """Several plain locks held under one token. extend() and release() act on every key the token
    still holds and answer True only when it held all of them."""

    def __init__(self, client: LockClient, groups: List[List[str]], token: str, ttl_ms: int, renew: bool):
        #: The lock keys, each once, in the order they were taken.
        self.keys = [key for group in groups for key in group]
        self._groups = groups
        super().__init__(client, ", ".join(self.keys), token, ttl_ms, None, renew, _MULTI)

    async def _each(self, lua: str, args: List[Any]) -> bool:
        """Runs lua on every slot's keys: whether it found the token on all of them."""
        done = 0
        for group in self._groups:
            done += int(await _call(self.client, lua, group, args))
        return done == len(self.keys)

    async def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Sets every lock's lease to ttl_ms from now (default: the acquire's); False when the token
        no longer held all of them (those it held are extended)."""
        ttl_ms = self.ttl_ms if ttl_ms is None else ttl_ms
        _check_ms("ttl_ms", ttl_ms, True)
        return await self._each(MULTI_EXTEND, [self.token, ttl_ms])

    async def release(self) -> bool:
        """Stops renewing and gives back every lock the token still holds, waking their waiters;
        False when it no longer held all of them."""
        if self._released:
            return False
        self._released = True
        self._stopped.set()
        if self._renewer is not None and self._renewer is not asyncio.current_task():
            await self._renewer  # not cancelled: a renewal in flight ends before the release
        return await self._each(MULTI_RELEASE, [self.token])


async def acquire_multi(client: LockClient, keys: List[str], *, ttl_ms: int, wait_ms: int = 10_000,
                        renew: bool = False, retry_ms: int = 500) -> MultiLease:
    """Takes every lock in keys, all or none, waiting up to wait_ms (0: one try), then LockBusyError
    naming a busy key. A busy key first gives back what this pass took, then the waiter sleeps as
    acquire()'s do on that key (until its lease ends, the jittered retry bound passes or, where
    enabled, its release wakes it) and tries all again. ttl_ms, renew and retry_ms as acquire()'s;
    keys: each lock key once (a list of str)."""
    groups = _multi_plan(keys, ttl_ms, wait_ms, retry_ms, _slot_of if isinstance(client, GlideClusterClient) else None)
    token = _token()
    deadline = time.monotonic() + wait_ms / 1000
    busy = await _take_all(client, groups, token, ttl_ms)
    while busy is not None:
        key = busy[0]
        left_ms = int((deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            raise LockBusyError(key, wait_ms)

        async def attempt(waited: str = key) -> _Attempt:
            nonlocal busy
            busy = await _take_all(client, groups, token, ttl_ms)
            if busy is not None and busy[0] == waited:
                return 0, busy[1]
            return 1, None  # all taken, or another key is the busy one now: wait on that one instead

        await _take(client, key, token, left_ms, retry_ms, attempt)
    return MultiLease(client, groups, token, ttl_ms, renew)


def multi_lock(client: LockClient, keys: List[str], *, ttl_ms: int, wait_ms: int = 10_000, renew: bool = False,
               retry_ms: int = 500) -> contextlib.AbstractAsyncContextManager[MultiLease]:
    """``async with multi_lock(client, keys, ttl_ms=...) as lease:``: every lock in keys around the
    block, all or none. Takes what acquire_multi() takes and leaves as lock() does: released on
    exit, LeaseLostError after a block that ended normally if the token no longer held every lock."""
    options = dict(ttl_ms=ttl_ms, wait_ms=wait_ms, renew=renew, retry_ms=retry_ms)
    return _held(lambda: acquire_multi(client, keys, **options), options)


__all__ += ["multi_lock", "acquire_multi", "MultiLease"]

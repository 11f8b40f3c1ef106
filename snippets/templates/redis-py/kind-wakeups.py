«section:scripts»
ACQUIRE_QUEUED = """«lua:acquire_queued»"""
«section:plan-fields»
    #: The waiter queue of a plain lock taken by waiting (acquire_queued's reply is an array).
    queue: Optional[str] = None
«section:planned»
    queue = _waiters_key(key) if plan.lua is ACQUIRE and wait_ms > 0 else None
    if queue is not None:
        # In line (first come, first served): the release takes the first waiter off and wakes that one.
        keys, args = [key, queue, *plan.keys[1:]], [*plan.args, wait_ms + 2 * retry_ms]
        plan = plan._replace(lua=ACQUIRE_QUEUED, keys=keys, args=args, queue=queue, release_keys=[key, queue])
«section:code»


# Wake-ups: a waiter sleeps until the release wakes it (SSUBSCRIBE on the lock key, on a connection of
# its own for the wait), the holder's lease ends, or a jittered retry bound passes: a missed wake-up
# costs at most that bound. A plain lock's waiters wait in line (acquire_queued), first come first
# served. redis-py before 5.0 has no ssubscribe, so the helper sends SSUBSCRIBE with the connection
# API that 4.x and 5.x share (send_command, can_read, read_response). A client without a connection
# pool (RedisCluster) waits by the retry bound alone.
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


def _waiters_key(key: str) -> Optional[str]:
    """The waiter queue of a plain lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
    lock:order:42 -> {lock:order:42}:waiters; None for a key with '}' but no hash tag."""
    opening = key.find("{")
    if opening >= 0 and key.find("}", opening + 1) > opening + 1:
        return f"{key}:waiters"
    return None if "}" in key else f"{{{key}}}:waiters"


def _in_line(reply: Any) -> tuple:
    """A try's reply as (taken, the holder's PTTL or -1): acquire_queued's says both."""
    return (int(reply[0]), int(reply[1])) if isinstance(reply, list) else (int(reply), -1)


def _take_woken(client: Any, plan: _Plan, wait_ms: int, retry_ms: int) -> int:
    """_take woken by the release: while the lock is held and wait_ms lasts, subscribes to its wake-ups,
    tries again (a release may have gone out before the subscription), then sleeps (_pause) until
    woken and tries again. The reply that took the lock; else LockBusyError, out of the line."""
    deadline = time.monotonic() + wait_ms / 1000
    wakeups: Optional[_Wakeups] = None
    taken = 0
    try:
        while True:
            taken, pttl = _in_line(_send(client, plan))
            if taken or time.monotonic() >= deadline:
                break
            if wakeups is None:
                wakeups = _Wakeups(client, plan.keys[0], plan.token, retry_ms / 1000)
            else:
                wakeups.wait(_pause(deadline, retry_ms, pttl))
    finally:
        if wakeups is not None:
            wakeups.close()
        if not taken and plan.queue is not None:
            with contextlib.suppress(RedisError):  # else the line ends by itself, soon after the wait would have
                client.zrem(plan.queue, plan.token)
    if not taken:
        raise LockBusyError(plan.keys[0], wait_ms, plan.kind.holders)
    return taken


# Every wait of this helper is woken: acquire() takes through _take_woken.
_take = _take_woken
«section:async-code»


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


async def _take_woken_async(client: Any, plan: _Plan, wait_ms: int, retry_ms: int) -> int:
    """_take_woken for a redis.asyncio client."""
    deadline = time.monotonic() + wait_ms / 1000
    wakeups: Optional[_AsyncWakeups] = None
    taken = 0
    try:
        while True:
            taken, pttl = _in_line(await _send_async(client, plan))
            if taken or time.monotonic() >= deadline:
                break
            if wakeups is None:
                wakeups = await _AsyncWakeups(plan.token).open(client, plan.keys[0], retry_ms / 1000)
            else:
                await wakeups.wait(_pause(deadline, retry_ms, pttl))
    finally:
        if wakeups is not None:
            await wakeups.close()
        if not taken and plan.queue is not None:
            with contextlib.suppress(RedisError):
                await client.zrem(plan.queue, plan.token)
    if not taken:
        raise LockBusyError(plan.keys[0], wait_ms, plan.kind.holders)
    return taken


_take_async = _take_woken_async
«section:multi-waiter»


class _MultiWoken:
    """A multi-key waiter woken by the busy key's release: subscribed to the key it waits for, then
    (a release may have gone out before the subscription) it tries again at once."""

    def __init__(self, client: Any, token: str, retry_ms: int):
        self._client, self._token, self._retry_ms = client, token, retry_ms
        self._key: Optional[str] = None
        self._wakeups: Optional[_Wakeups] = None

    def wait(self, key: str, lease_left_s: Optional[float], deadline: float) -> None:
        if key == self._key and self._wakeups is not None:
            return self._wakeups.wait(_pause(deadline, self._retry_ms, _pttl(lease_left_s)))
        self.close()
        self._key, self._wakeups = key, _Wakeups(self._client, key, self._token, self._retry_ms / 1000)

    def close(self) -> None:
        if self._wakeups is not None:
            self._wakeups.close()


_MultiWaiter = _MultiWoken
«section:async-multi-waiter»


class _AsyncMultiWoken:
    """_MultiWoken for a redis.asyncio client."""

    def __init__(self, client: Any, token: str, retry_ms: int):
        self._client, self._token, self._retry_ms = client, token, retry_ms
        self._key: Optional[str] = None
        self._wakeups: Optional[_AsyncWakeups] = None

    async def wait(self, key: str, lease_left_s: Optional[float], deadline: float) -> None:
        if key == self._key and self._wakeups is not None:
            return await self._wakeups.wait(_pause(deadline, self._retry_ms, _pttl(lease_left_s)))
        await self.close()
        self._key, self._wakeups = key, await _AsyncWakeups(self._token).open(self._client, key, self._retry_ms / 1000)

    async def close(self) -> None:
        if self._wakeups is not None:
            await self._wakeups.close()


_AsyncMultiWaiter = _AsyncMultiWoken

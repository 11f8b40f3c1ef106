«section:imports»
import asyncio
«section:lock»

    async def __aenter__(self) -> Optional["AsyncLease"]:
        with contextlib.suppress(*self._busy):
            return self._entered(await acquire_async(*self._args, **self._options))
        return None

    async def __aexit__(self, error_type, error, traceback) -> None:
        lease = self._exiting()
        with contextlib.suppress(*(() if error_type is None else (RedisError,))):
            if lease is not None and not await lease.release() and error_type is None:
                raise LeaseLostError(lease.key, "it expired or was taken before release") from lease.lost_reason
«section:multi-lock»

    async def __aenter__(self) -> "AsyncMultiLease":
        return self._entered(await acquire_multi_async(*self._args, **self._multi))
«section:code»


# The asyncio API: ``async with lock(r, key, ttl_ms=...)`` (and every lock kind's) on a redis.asyncio
# client, acquire_async() and try_acquire_async(); the lease renews from a task.
class AsyncLease(_LeaseBase):
    """A held lock, read lock, write lock or semaphore permit (redis.asyncio client); renewal, when asked
    for, runs in an asyncio task."""

    def __init__(self, client: Any, key: str, token: str, ttl_ms: int, fence: Optional[int], renew: bool,
                 kind: _Kind = _PLAIN, release_keys: Optional[list] = None):
        super().__init__(client, key, token, ttl_ms, fence, kind, release_keys)
        #: Set when the lease is lost; await its wait() to be told.
        self.lost_event = asyncio.Event()
        self._stopped = asyncio.Event()
        self._renewer: Optional[asyncio.Task] = asyncio.create_task(self._renew()) if renew else None

    async def extend(self, ttl_ms: Optional[int] = None) -> bool:
        """Lease.extend() for a redis.asyncio client."""
        return int(await _call_async(*self._extend_args(ttl_ms))) == 1

    async def release(self) -> bool:
        """Lease.release() for a redis.asyncio client."""
        if not self._releasing():
            return False
        if self._renewer is not None and self._renewer is not asyncio.current_task():
            # Not cancelled: a command cancelled half-way can leave its connection unusable.
            await self._renewer
        return int(await _call_async(self.client, self._kind.release, self._release_keys, [self.token])) != 0

    async def _renew(self) -> None:
        extended: Union[bool, RedisError] = True
        while self._renewed(extended):
            try:
                await asyncio.wait_for(self._stopped.wait(), self.ttl_ms / 3000)
                return
            except asyncio.TimeoutError:
                pass
            try:
                extended = await self.extend()
            except RedisError as error:
                extended = error
«kinds:async-lease»


async def _send_async(client: Any, plan: _Plan) -> Any:
    """_send for a redis.asyncio client."""
«kinds:send-async»
    return await _call_async(client, plan.lua, plan.keys, plan.args)


async def _take_async(client: Any, plan: _Plan, wait_ms: int, retry_ms: int) -> int:
    """_take for a redis.asyncio client."""
    deadline = time.monotonic() + wait_ms / 1000
    while not (taken := int(await _send_async(client, plan))):
        if time.monotonic() >= deadline:
            raise LockBusyError(plan.keys[0], wait_ms, plan.kind.holders)
        await asyncio.sleep(_pause(deadline, retry_ms, int(await client.pttl(plan.keys[0]))))
    return taken
«kinds:async-code»


async def acquire_async(
    client: Any, key: str, *, ttl_ms: int, wait_ms: int = 10_000, fence_key: Optional[str] = None,
    renew: bool = False, kind: str = "lock", retry_ms: int = 500, **options: Any,
) -> AsyncLease:
    """acquire() for a redis.asyncio client: renewal runs in a task."""
    plan = _plan(key, kind, ttl_ms, wait_ms, retry_ms, fence_key, options)
    taken = await _take_async(client, plan, wait_ms, retry_ms)
    fence = taken if plan.fenced else None
    return AsyncLease(client, key, plan.token, ttl_ms, fence, renew, plan.kind, plan.release_keys)


async def try_acquire_async(client: Any, key: str, *, ttl_ms: int, fence_key: Optional[str] = None,
                            renew: bool = False, **options: Any) -> Optional[AsyncLease]:
    """try_acquire() for a redis.asyncio client."""
    with contextlib.suppress(LockBusyError):
        return await acquire_async(client, key, ttl_ms=ttl_ms, wait_ms=0, fence_key=fence_key, renew=renew, **options)
    return None


__all__ += ["acquire_async", "try_acquire_async", "AsyncLease"]

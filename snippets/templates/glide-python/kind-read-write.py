«section:scripts»
READ_ACQUIRE = """«lua:read_acquire»"""
WRITE_ACQUIRE = """«lua:write_acquire»"""
RW_EXTEND = """«lua:rw_extend»"""
RW_RELEASE = """«lua:rw_release»"""
«section:code»


# The read-write lock: ``async with read_lock(client, key, ttl_ms=...)`` (or acquire(..., kind="read"))
# is held with other readers, never with a writer; ``write_lock`` alone.
_READ = _Kind(RW_EXTEND, RW_RELEASE, "a writer")
_WRITE = _Kind(RW_EXTEND, RW_RELEASE, "readers or another writer")


def _plan_read(key: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
               options: Dict[str, Any]) -> _Plan:
    if fence_key is not None:
        raise ValueError("fence_key works with a plain lock, not a read lock")
    token = _token()
    return _Plan(_READ, READ_ACQUIRE, [key], [token, ttl_ms], token, False)


def _plan_write(key: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
                options: Dict[str, Any]) -> _Plan:
    if fence_key is not None:
        raise ValueError("fence_key works with a plain lock, not a write lock")
    token = _token()
    # While it waits, its intent keeps new readers out, renewed by every try: no starving writer.
    intent_ms = 2 * retry_ms if wait_ms > 0 else 1
    return _Plan(_WRITE, WRITE_ACQUIRE, [key], [token, ttl_ms, intent_ms], token, False)


def read_lock(client: LockClient, key: str, *, ttl_ms: int, wait_ms: int = 10_000, renew: bool = False,
              retry_ms: int = 500) -> contextlib.AbstractAsyncContextManager[Lease]:
    """``async with read_lock(client, key, ttl_ms=...)``: held with other readers, never with a writer."""
    return lock(client, key, ttl_ms=ttl_ms, wait_ms=wait_ms, renew=renew, retry_ms=retry_ms, kind="read")


def write_lock(client: LockClient, key: str, *, ttl_ms: int, wait_ms: int = 10_000, renew: bool = False,
               retry_ms: int = 500) -> contextlib.AbstractAsyncContextManager[Lease]:
    """``async with write_lock(client, key, ttl_ms=...)``: held alone, with no reader; while it waits,
    new readers wait behind it."""
    return lock(client, key, ttl_ms=ttl_ms, wait_ms=wait_ms, renew=renew, retry_ms=retry_ms, kind="write")


_PLANNERS.update(read=_plan_read, write=_plan_write)
__all__ += ["read_lock", "write_lock"]

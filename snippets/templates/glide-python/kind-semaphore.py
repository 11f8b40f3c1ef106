«section:scripts»
SEMAPHORE_ACQUIRE = """«lua:semaphore_acquire»"""
SEMAPHORE_EXTEND = """«lua:semaphore_extend»"""
SEMAPHORE_RELEASE = """«lua:semaphore_release»"""
«section:code»


# The semaphore: ``async with semaphore(client, key, permits=3, ttl_ms=...)`` (or acquire(...,
# kind="semaphore", permits=3)); one of permits holders at once, each with its own lease.
_SEMAPHORE = _Kind(SEMAPHORE_EXTEND, SEMAPHORE_RELEASE, "the other holders of its permits")


def _plan_semaphore(key: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
                    options: Dict[str, Any]) -> _Plan:
    permits = options.pop("permits", None)
    if fence_key is not None:
        raise ValueError("fence_key works with a plain lock, not a semaphore")
    if not isinstance(permits, int) or isinstance(permits, bool) or not 1 <= permits <= 999_999_999:
        raise ValueError(f"permits must be an integer from 1 to 999999999, got {permits!r}")
    token = _token()
    return _Plan(_SEMAPHORE, SEMAPHORE_ACQUIRE, [key], [token, ttl_ms, permits], token, False)


def semaphore(client: LockClient, key: str, *, permits: int, ttl_ms: int, wait_ms: int = 10_000,
              renew: bool = False, retry_ms: int = 500) -> contextlib.AbstractAsyncContextManager[Lease]:
    """``async with semaphore(client, key, permits=3, ttl_ms=...)``: one of permits holders at once,
    each with its own lease (a holder that dies gives its permit back when its lease ends)."""
    return lock(client, key, ttl_ms=ttl_ms, wait_ms=wait_ms, renew=renew, retry_ms=retry_ms, kind="semaphore",
                permits=permits)


_PLANNERS["semaphore"] = _plan_semaphore
__all__ += ["semaphore"]

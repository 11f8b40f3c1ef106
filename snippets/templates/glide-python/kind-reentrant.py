«section:imports»
import contextvars
«section:scripts»
REENTRANT_ACQUIRE = """«lua:reentrant_acquire»"""
REENTRANT_EXTEND = """«lua:reentrant_extend»"""
REENTRANT_RELEASE = """«lua:reentrant_release»"""
«section:code»


# The reentrant lock: ``async with lock(client, key, ttl_ms=..., reentrant=True)``; a nested one on
# the same key in the same task re-enters it (each take needs its release).
_REENTRANT = _Kind(REENTRANT_EXTEND, REENTRANT_RELEASE, "another owner")
#: The owner tokens of the reentrant locks held around the current code, by key (per task).
_REENTRANT_HOLDS: contextvars.ContextVar[Dict[str, str]] = contextvars.ContextVar("locksmith_reentrant", default={})


def _plan_reentrant(key: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
                    options: Dict[str, Any]) -> _Plan:
    if not options.pop("reentrant", False):
        return _plain(key, ttl_ms, wait_ms, retry_ms, fence_key, options)
    if fence_key is not None:
        raise ValueError("a reentrant lock takes no fence_key: fence a plain lock")
    token = _REENTRANT_HOLDS.get().get(key, _token())
    return _Plan(_REENTRANT, REENTRANT_ACQUIRE, [key], [token, ttl_ms], token, False)


def _reentrant_scope(lease: Any, options: Dict[str, Any]) -> Optional[Callable[[], None]]:
    if not options.get("reentrant"):
        return None
    held = _REENTRANT_HOLDS.set({**_REENTRANT_HOLDS.get(), lease.key: lease.token})
    return lambda: _REENTRANT_HOLDS.reset(held)


_PLANNERS["lock"] = _plan_reentrant
_SCOPES.append(_reentrant_scope)

«section:imports»
import contextvars
«section:entered»
        if self._options.get("reentrant"):
            held = _REENTRANT_HOLDS.set({**_REENTRANT_HOLDS.get(), lease.key: lease.token})
            self._undo.append(lambda: _REENTRANT_HOLDS.reset(held))
«section:scripts»
REENTRANT_ACQUIRE = """«lua:reentrant_acquire»"""
REENTRANT_EXTEND = """«lua:reentrant_extend»"""
REENTRANT_RELEASE = """«lua:reentrant_release»"""
«section:code»


# The reentrant lock: ``with lock(r, key, ttl_ms=..., reentrant=True)``; a nested one on the same
# key in the same thread or task re-enters it (each take needs its release).
_REENTRANT = _Kind(REENTRANT_EXTEND, REENTRANT_RELEASE, "another owner")
#: The owner tokens of the reentrant locks held around the current code, by key (per thread and task).
_REENTRANT_HOLDS: contextvars.ContextVar[Dict[str, str]] = contextvars.ContextVar("locksmith_reentrant", default={})


def _plan_reentrant(key: str, kind: str, ttl_ms: int, wait_ms: int, retry_ms: int, fence_key: Optional[str],
                    options: Dict[str, Any]) -> Optional[_Plan]:
    if not options.pop("reentrant", False):
        return None
    if fence_key is not None or kind != "lock":
        raise ValueError("reentrant works with a plain lock: no fence_key, no other kind")
    token = _REENTRANT_HOLDS.get().get(key, _token())
    return _Plan(_REENTRANT, REENTRANT_ACQUIRE, [key], [token, ttl_ms], token)


_PLANNERS.append(_plan_reentrant)

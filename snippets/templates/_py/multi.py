def _multi_plan(keys: Any, ttl_ms: int, wait_ms: int, retry_ms: int,
                slot_of: Optional[Callable[[str], int]]) -> List[List[str]]:
    """The lock keys in the one order every caller takes them in: by hash slot (slot_of, a
    cluster's), then by bytes; one group per slot, each taken in one call (one group without
    slot_of). Bad input is refused here, before anything is sent."""
    if not isinstance(keys, (list, tuple)) or not all(isinstance(key, str) and key for key in keys):
        raise TypeError(f"keys must be a list of non-empty strings (the lock keys), got {keys!r}")
    if not keys:
        raise ValueError("keys is empty: a multi-key lock takes one or more lock keys")
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"keys names {repeated[0]!r} more than once: give each lock key once")
    _check_ms("ttl_ms", ttl_ms, True)
    _check_ms("wait_ms", wait_ms, False)
    _check_ms("retry_ms", retry_ms, True)
    groups: Dict[int, List[str]] = {}
    for key in sorted(keys, key=lambda key: key.encode()):
        groups.setdefault(0 if slot_of is None else slot_of(key), []).append(key)
    return [groups[slot] for slot in sorted(groups)]


def _multi_busy(group: List[str], reply: Any) -> Optional[Tuple[str, Optional[float]]]:
    """None when multi_acquire took the group; else its busy key and when that key's lease ends (s;
    None: it has no TTL, nothing to wait for but a wake-up)."""
    taken, at, pttl = (int(part) for part in reply)
    if taken == 1:
        return None
    return group[at - 1], (None if pttl == -1 else max(pttl, 0) / 1000)

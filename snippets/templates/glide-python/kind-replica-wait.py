«section:imports»
import hashlib
import inspect

from glide import Batch, BatchOptions, ClusterBatch, ClusterBatchOptions, SlotKeyRoute, SlotType
from glide_shared.exceptions import ClosingError
from glide_shared.exceptions import ConnectionError as GlideConnectionError
from glide_shared.exceptions import TimeoutError as GlideTimeoutError
«section:plan-fields»
    #: With wait_for_replicas: the WAIT (or WAITAOF) that follows the acquire in its batch.
    replicas: Optional["WaitForReplicas"] = None
«section:plan»
    replicas = _replica_wait(options.pop("wait_for_replicas", None), ttl_ms)
«section:planned»
    if replicas is not None:
        if plan.kind is not _PLAIN:
            raise ValueError("wait_for_replicas works with the plain lock, not a reentrant, read-write or semaphore one")
        plan = plan._replace(replicas=replicas)
«section:send»
    if plan.replicas is not None:
        return await _send_replicated(client, plan, args)
«section:code»


# wait_for_replicas: ``await acquire(client, key, ttl_ms=..., wait_for_replicas=WaitForReplicas(replicas=1))``
# (or a dict of the same names) holds the lock only once replicas have it, so a failover cannot
# lose it. The acquire and WAIT go in one non-atomic batch on one connection, as WAIT counts the
# replicas that have this connection's writes (on a GlideClusterClient: the lock's master). Only
# the acquire waits, not extends or releases; a replica that acknowledged may still not be the one
# promoted. WAIT blocks GLIDE's one connection to that node: the client's other commands to it
# wait behind it, up to timeout_ms.
class WaitForReplicas(NamedTuple):
    #: Replicas that must acknowledge the acquire: WAIT replicas timeout_ms.
    replicas: int = 1
    #: How long the server waits for them; shorter than the lease, which it spends.
    timeout_ms: int = 100
    #: Wait for the disk instead: WAITAOF 1 replicas timeout_ms (needs appendonly yes, Redis or Valkey 7.2+).
    fsync: bool = False
    #: "release": a shortfall gives the lock back and raises ReplicaShortfallError; a function (or
    #: coroutine function) keeps the lock and is called with the ReplicaShortfall.
    on_shortfall: Union[str, Callable[["ReplicaShortfall"], Any]] = "release"


class ReplicaShortfall(NamedTuple):
    """Why an acquire was not acknowledged: reason is 'timeout', 'connection-lost', 'no-waitaof' or 'aof-off'."""

    lock: str
    reason: str
    required: int
    timeout_ms: int
    #: What WAIT answered (WAITAOF: its replicas); None without a count.
    acknowledged: Optional[int] = None
    #: With fsync: whether the master's AOF has it.
    fsynced_locally: Optional[bool] = None


_SHORTFALL_FIXES = {
    "timeout": "Check the replicas (INFO replication: connected_slaves, their lag), or pass on_shortfall to keep "
               "such locks",
    "connection-lost": "The master may be failing over: try again once the client has reconnected",
    "no-waitaof": "Turn fsync off (WAIT alone covers a failover) or enable the AOF",
    "aof-off": "Turn fsync off (WAIT alone covers a failover) or enable the AOF",
}


def _describe(shortfall: ReplicaShortfall) -> str:
    lock, reason, required = shortfall.lock, shortfall.reason, shortfall.required
    of = f"{shortfall.acknowledged or 0} of {required} replica{'' if required == 1 else 's'}"
    if reason == "timeout" and shortfall.fsynced_locally is None:
        return f"{lock} was acknowledged by {of} within {shortfall.timeout_ms} ms (WAIT)"
    if reason == "timeout":
        master = "" if shortfall.fsynced_locally else " and not by the master"
        return f"{lock} was fsynced by {of}{master} within {shortfall.timeout_ms} ms (WAITAOF)"
    if reason == "connection-lost":
        return f"{lock}: the connection closed before the replicas acknowledged the acquire (it may not have reached any)"
    if reason == "no-waitaof":
        return f"{lock}: wait_for_replicas.fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)"
    return f"{lock}: wait_for_replicas.fsync needs appendonly yes on the master, which has it off"


class ReplicaShortfallError(RuntimeError):
    """The replicas did not acknowledge the acquire: the lock was given back (released: False when
    the compare-and-delete could not run, and the lock ends with its lease)."""

    def __init__(self, shortfall: ReplicaShortfall, released: bool):
        given_back = "released" if released else "could not be released (it ends with its lease)"
        super().__init__(f"{_describe(shortfall)}: {given_back}, not held. {_SHORTFALL_FIXES[shortfall.reason]}")
        self.shortfall = shortfall
        self.released = released


def _replica_wait(option: Any, ttl_ms: int) -> Optional[WaitForReplicas]:
    """wait_for_replicas with its defaults, checked against the lease before anything is sent."""
    if option is None or isinstance(option, WaitForReplicas):
        wait = option
    elif isinstance(option, dict) and set(option) <= set(WaitForReplicas._fields):
        wait = WaitForReplicas(**option)
    else:
        raise ValueError(f"wait_for_replicas must be a WaitForReplicas or a dict of {', '.join(WaitForReplicas._fields)}"
                         f", got {option!r}")
    if wait is None:
        return None
    if not isinstance(wait.replicas, int) or isinstance(wait.replicas, bool) or wait.replicas < 1:
        raise ValueError(f"wait_for_replicas.replicas must be a positive integer, got {wait.replicas!r}")
    _check_ms("wait_for_replicas.timeout_ms", wait.timeout_ms, True)
    if wait.timeout_ms >= ttl_ms:
        raise ValueError(f"wait_for_replicas.timeout_ms ({wait.timeout_ms}) must be shorter than the lease "
                         f"({ttl_ms} ms): the wait spends it")
    if not isinstance(wait.fsync, bool):
        raise ValueError(f"wait_for_replicas.fsync must be True or False, got {wait.fsync!r}")
    if wait.on_shortfall != "release" and not callable(wait.on_shortfall):
        raise ValueError(f"wait_for_replicas.on_shortfall must be 'release' or a function, got {wait.on_shortfall!r}")
    return wait


def _pair(client: LockClient, plan: _Plan, args: List[Any], with_source: bool) -> Tuple[Any, Any]:
    """The acquire (EVALSHA; EVAL for the first pair or after NOSCRIPT) and its wait in one
    non-atomic batch, and the options that send it whole to the lock's master in time."""
    wait = plan.replicas
    assert wait is not None
    cluster = isinstance(client, GlideClusterClient)
    batch = ClusterBatch(is_atomic=False) if cluster else Batch(is_atomic=False)
    script = ["EVAL", plan.lua] if with_source else ["EVALSHA", hashlib.sha1(plan.lua.encode()).hexdigest()]
    batch.custom_command([*script, str(len(plan.keys)), *plan.keys, *map(str, args)])
    if wait.fsync:
        batch.custom_command(["WAITAOF", "1", str(wait.replicas), str(wait.timeout_ms)])
    else:
        batch.custom_command(["WAIT", str(wait.replicas), str(wait.timeout_ms)])
    # The batch may take the wait on top of what the client allows a request (GLIDE's default: 250 ms).
    timeout = wait.timeout_ms + (client.config.request_timeout or 250)
    if cluster:
        return batch, ClusterBatchOptions(timeout=timeout, route=SlotKeyRoute(SlotType.PRIMARY, plan.keys[0]))
    return batch, BatchOptions(timeout=timeout)


def _taken(acquired: Any) -> bool:
    """Whether the acquire took the lock (a queued acquire replies an array, led by that)."""
    return int(acquired[0] if isinstance(acquired, list) else acquired) != 0


async def _verdict(plan: _Plan, acquired: Any, waited: Any) -> Union[ReplicaShortfall, Exception, None]:
    """None when the acquire's reply stands (busy, acknowledged, or a shortfall on_shortfall
    keeps); else what to raise once the lock is given back: the shortfall, or the wait's error."""
    wait = plan.replicas
    assert wait is not None
    if not _taken(acquired):
        return None  # busy: nothing of ours to wait for
    base = dict(lock=plan.keys[0], required=wait.replicas, timeout_ms=wait.timeout_ms)
    if isinstance(waited, RequestError) and "unknown command" in str(waited).lower():
        return ReplicaShortfall(reason="no-waitaof", **base)
    if isinstance(waited, RequestError) and "appendonly is disabled" in str(waited):
        return ReplicaShortfall(reason="aof-off", **base)
    if isinstance(waited, Exception):
        return waited
    if wait.fsync:
        if not (isinstance(waited, list) and len(waited) == 2 and all(isinstance(n, int) for n in waited)):
            return TypeError(f"WAITAOF replied {waited!r}, not [numlocal, numreplicas]")
        if waited[0] >= 1 and waited[1] >= wait.replicas:
            return None
        shortfall = ReplicaShortfall(reason="timeout", acknowledged=waited[1], fsynced_locally=waited[0] >= 1, **base)
    else:
        if not isinstance(waited, int):
            return TypeError(f"WAIT replied {waited!r}, not a count of replicas")
        if waited >= wait.replicas:
            return None
        shortfall = ReplicaShortfall(reason="timeout", acknowledged=waited, **base)
    if callable(wait.on_shortfall):
        kept = wait.on_shortfall(shortfall)
        if inspect.isawaitable(kept):
            await kept
        return None
    return shortfall


#: The pair goes again after NOSCRIPT, with the source, at most this many times.
_RESENDS = 3
#: The scripts this process has sent in a pair: the first pair sends the source, as a WAIT behind a
#: NOSCRIPT would wait its timeout out for a write that never happened.
_SENT_IN_PAIRS: set = set()
#: What exec raises when the batch's connection is lost or it ran out of time: the acquire's reply is lost with it.
_CONNECTION_LOST = (GlideConnectionError, GlideTimeoutError, ClosingError)


async def _send_replicated(client: LockClient, plan: _Plan, args: List[Any]) -> Any:
    """_send under wait_for_replicas: the acquire's reply once the replicas acknowledged it (or
    on_shortfall kept it), else the lock given back and ReplicaShortfallError. A connection lost
    during the pair loses the acquire's reply too: given back and raised whatever on_shortfall says."""
    for resend in range(_RESENDS + 1):
        batch, options = _pair(client, plan, args, resend > 0 or plan.lua not in _SENT_IN_PAIRS)
        try:
            replies = await client.exec(batch, raise_on_error=False, options=options)
        except _CONNECTION_LOST:
            raise _failure(_lost(plan), await _give_back(client, plan)) from None
        if replies is None or len(replies) != 2:
            raise TypeError(f"the acquire and its wait replied {replies!r}, not two replies")
        acquired, waited = replies
        if not isinstance(acquired, RequestError):
            _SENT_IN_PAIRS.add(plan.lua)
            break
        if resend == _RESENDS or "noscript" not in str(acquired).lower():
            raise acquired
    failed = await _verdict(plan, acquired, waited)
    if failed is None:
        return acquired
    raise _failure(failed, await _give_back(client, plan))


def _failure(failed: Union[ReplicaShortfall, Exception], released: bool) -> Exception:
    return failed if isinstance(failed, Exception) else ReplicaShortfallError(failed, released)


def _lost(plan: _Plan) -> ReplicaShortfall:
    assert plan.replicas is not None
    return ReplicaShortfall(plan.keys[0], "connection-lost", plan.replicas.replicas, plan.replicas.timeout_ms)


async def _give_back(client: LockClient, plan: _Plan) -> bool:
    """Compare-and-delete (a queued acquire's second key is its queue, whose next waiter the release wakes);
    False when it could not run."""
    try:
        await _call(client, RELEASE, plan.keys[:1] if plan.lua is ACQUIRE else plan.keys[:2], [plan.token])
        return True
    except GlideError:
        return False


__all__ += ["WaitForReplicas", "ReplicaShortfall", "ReplicaShortfallError"]

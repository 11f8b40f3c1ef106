«section:imports»
import hashlib

import redis.exceptions
«section:plan-fields»
    #: With wait_for_replicas: the WAIT (or WAITAOF) that follows the acquire in its pipeline.
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
        return _send_replicated(client, plan)
«section:send-async»
    if plan.replicas is not None:
        return await _send_replicated_async(client, plan)
«section:async-code»


async def _send_replicated_async(client: Any, plan: _Plan) -> Any:
    """_send_replicated for a redis.asyncio client (not its RedisCluster: use the sync one)."""
    if hasattr(client, "get_node_from_key"):
        raise ValueError("wait_for_replicas needs a redis.asyncio.Redis here, not a RedisCluster: use redis.RedisCluster")
    for resend in range(_RESENDS + 1):
        pipeline = _pair(client.pipeline(transaction=False), plan, resend > 0 or plan.lua not in _SENT_IN_PAIRS)
        try:
            acquired, waited = await pipeline.execute(raise_on_error=False)
        except _CONNECTION_LOST:
            raise _failure(_lost(plan), await _give_back_async(client, plan)) from None
        if not _resend(client, acquired, resend):
            _SENT_IN_PAIRS.add(plan.lua)
            break
    failed = _verdict(plan, acquired, waited)
    if failed is None:
        return acquired
    raise _failure(failed, await _give_back_async(client, plan))


async def _give_back_async(client: Any, plan: _Plan) -> bool:
    try:
        await _call_async(client, RELEASE, plan.release_keys or plan.keys[:1], [plan.token])
        return True
    except RedisError:
        return False
«section:code»


# wait_for_replicas: ``acquire(r, key, ttl_ms=..., wait_for_replicas=WaitForReplicas(replicas=1))``
# (or a dict of the same names) holds the lock only once replicas have it, so a failover cannot
# lose it. The acquire and WAIT go in one pipeline on one connection, as WAIT counts the replicas
# that have this connection's writes (in a RedisCluster: the lock's master). Only the acquire
# waits, not extends or releases; a replica that acknowledged may still not be the one promoted.
class WaitForReplicas(NamedTuple):
    #: Replicas that must acknowledge the acquire: WAIT replicas timeout_ms.
    replicas: int = 1
    #: How long the server waits for them; shorter than the lease, which it spends.
    timeout_ms: int = 100
    #: Wait for the disk instead: WAITAOF 1 replicas timeout_ms (needs appendonly yes, Redis or Valkey 7.2+).
    fsync: bool = False
    #: "release": a shortfall gives the lock back and raises ReplicaShortfallError; a function keeps
    #: the lock and is called with the ReplicaShortfall.
    on_shortfall: Union[str, Callable[["ReplicaShortfall"], None]] = "release"


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


def _pair(pipeline: Any, plan: _Plan, with_source: bool) -> Any:
    """The acquire (EVALSHA; EVAL for the first pair or after NOSCRIPT) and its wait, on one pipeline."""
    keys, args, wait = plan.keys, plan.args, plan.replicas
    assert wait is not None
    if with_source:
        pipeline.eval(plan.lua, len(keys), *keys, *args)
    else:
        pipeline.evalsha(hashlib.sha1(plan.lua.encode()).hexdigest(), len(keys), *keys, *args)
    if wait.fsync:
        pipeline.execute_command("WAITAOF", 1, wait.replicas, wait.timeout_ms)
    else:
        pipeline.execute_command("WAIT", wait.replicas, wait.timeout_ms)
    return pipeline


def _verdict(plan: _Plan, acquired: Any, waited: Any) -> Union[ReplicaShortfall, Exception, None]:
    """None when the acquire's reply stands (busy, acknowledged, or a shortfall on_shortfall
    keeps); else what to raise once the lock is given back: the shortfall, or the wait's error."""
    wait = plan.replicas
    assert wait is not None
    if (int(acquired[0]) if isinstance(acquired, list) else int(acquired)) == 0:
        return None  # busy: nothing of ours to wait for
    base = dict(lock=plan.keys[0], required=wait.replicas, timeout_ms=wait.timeout_ms)
    if isinstance(waited, redis.exceptions.ResponseError) and "unknown command" in str(waited).lower():
        return ReplicaShortfall(reason="no-waitaof", **base)
    if isinstance(waited, redis.exceptions.ResponseError) and "appendonly is disabled" in str(waited):
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
        wait.on_shortfall(shortfall)
        return None
    return shortfall


def _failure(failed: Union[ReplicaShortfall, Exception], released: bool) -> Exception:
    return failed if isinstance(failed, Exception) else ReplicaShortfallError(failed, released)


#: The pair goes again after NOSCRIPT (with the source), and in a RedisCluster after a redirection
#: (nothing was written where it went), at most this many times.
_RESENDS = 3
#: The scripts this process has sent in a pair: the first pair sends the source, as a WAIT behind a
#: NOSCRIPT would wait its timeout out for a write that never happened.
_SENT_IN_PAIRS: set = set()
_REDIRECTIONS = ("MOVED ", "ASK ", "TRYAGAIN ", "CLUSTERDOWN ")
#: What a pipeline raises when its connection is lost: the acquire's reply is lost with it.
_CONNECTION_LOST = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


def _resend(client: Any, acquired: Any, resend: int) -> bool:
    """Whether the acquire's error sends the pair again (NOSCRIPT, a cluster redirection); other errors raise."""
    if not isinstance(acquired, Exception):
        return False
    if resend < _RESENDS and isinstance(acquired, NoScriptError):
        return True
    if resend < _RESENDS and hasattr(client, "nodes_manager") and str(acquired).startswith(_REDIRECTIONS):
        client.nodes_manager.initialize()
        return True
    raise acquired


def _send_replicated(client: Any, plan: _Plan) -> Any:
    """_send under wait_for_replicas: the acquire's reply once the replicas acknowledged it (or
    on_shortfall kept it), else the lock given back and ReplicaShortfallError. A connection lost
    during the pair loses the acquire's reply too: given back and raised whatever on_shortfall says."""
    cluster = hasattr(client, "get_node_from_key")
    for resend in range(_RESENDS + 1):
        node = client.get_redis_connection(client.get_node_from_key(plan.keys[0])) if cluster else client
        try:
            pipeline = _pair(node.pipeline(transaction=False), plan, resend > 0 or plan.lua not in _SENT_IN_PAIRS)
            acquired, waited = pipeline.execute(raise_on_error=False)
        except _CONNECTION_LOST:
            raise _failure(_lost(plan), _give_back(client, plan)) from None
        if not _resend(client, acquired, resend):
            _SENT_IN_PAIRS.add(plan.lua)
            break
    failed = _verdict(plan, acquired, waited)
    if failed is None:
        return acquired
    raise _failure(failed, _give_back(client, plan))


def _lost(plan: _Plan) -> ReplicaShortfall:
    assert plan.replicas is not None
    return ReplicaShortfall(plan.keys[0], "connection-lost", plan.replicas.replicas, plan.replicas.timeout_ms)


def _give_back(client: Any, plan: _Plan) -> bool:
    """Compare-and-delete (the queue's release wakes the next waiter); False when it could not run."""
    try:
        _call(client, RELEASE, plan.release_keys or plan.keys[:1], [plan.token])
        return True
    except RedisError:
        return False


__all__ += ["WaitForReplicas", "ReplicaShortfall", "ReplicaShortfallError"]

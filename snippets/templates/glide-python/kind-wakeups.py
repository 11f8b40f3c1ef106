«section:imports»
import copy
import weakref

from glide import GlideClusterClientConfiguration
«section:scripts»
ACQUIRE_QUEUED = """«lua:acquire_queued»"""
«section:wakeups»
    configuration = _configurations.get(client)
    if configuration is not None:
        hub = _hubs.get(client)
        if hub is None:
            hub = _hubs[client] = _Hub(configuration)
        woken = await hub.join(key, token, patience_s)
        woken.set()  # try again at once: a release may have gone out before the subscription
        try:
            yield woken
        finally:
            if hub.leave(key, token):
                if _hubs.get(client) is hub:
                    del _hubs[client]  # before closing: a waiter that comes meanwhile opens another
                await hub.close()
            elif key not in hub.channels:
                await hub.unsubscribe(key)
        return
«section:planned»
    queue = _waiters_key(key) if plan.kind is _PLAIN and wait_ms > 0 else None
    if queue is not None:
        plan = plan._replace(lua=ACQUIRE_QUEUED, keys=[key, queue, *plan.keys[1:]])
«section:acquire»
    if plan.lua is ACQUIRE_QUEUED:
        return await _acquire_in_line(client, key, plan, ttl_ms, wait_ms, retry_ms, renew)
«section:code»


# Wake-ups: a plain lock's waiters wait in line (first come, first served: the release takes the
# first waiter off the queue and wakes that one), and on a GlideClusterClient given to
# enable_wakeups() sleep until the release wakes them (SSUBSCRIBE on the lock key). GLIDE has
# sharded pub/sub in cluster mode only, and a standalone SUBSCRIBE never receives the release's
# SPUBLISH: on a GlideClient waiters poll, in line.
def _waiters_key(key: str) -> Optional[str]:
    """The waiter queue of a lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
    lock:order:42 -> {lock:order:42}:waiters; None for a key with '}' but no hash tag."""
    opening = key.find("{")
    if opening >= 0 and key.find("}", opening + 1) > opening + 1:
        return f"{key}:waiters"
    return None if "}" in key else f"{{{key}}}:waiters"


async def _acquire_in_line(client: LockClient, key: str, plan: _Plan, ttl_ms: int, wait_ms: int, retry_ms: int,
                           renew: bool) -> Lease:
    """acquire() of a plain lock in line: acquire_queued queues the waiter and answers the holder's PTTL."""
    queue = plan.keys[1]
    deadline = time.monotonic() + wait_ms / 1000

    async def attempt() -> _Attempt:
        # The queue lives at least as long as this waiter may still wait.
        queue_ms = max(1, int((deadline - time.monotonic()) * 1000)) + 2 * retry_ms
        taken, pttl, _waiting = map(int, await _send(client, plan, [*plan.args, queue_ms]))
        return taken, _lease_left(pttl)

    reply = 0
    try:
        reply = await _take(client, key, plan.token, wait_ms, retry_ms, attempt)
    finally:
        if reply == 0:
            with contextlib.suppress(GlideError):  # else the queue ends by itself, soon after the wait would have
                await client.zrem(queue, [plan.token])  # leave the line
    if reply == 0:
        raise LockBusyError(key, wait_ms, plan.kind.holders)
    lease = Lease(client, key, plan.token, ttl_ms, reply if plan.fenced else None, renew)
    lease._release_keys.append(queue)  # its release wakes the first in line
    return lease


#: The configurations enable_wakeups was given, per cluster client.
_configurations: "weakref.WeakKeyDictionary[Any, GlideClusterClientConfiguration]" = weakref.WeakKeyDictionary()


def enable_wakeups(client: GlideClusterClient, configuration: GlideClusterClientConfiguration) -> None:
    """Lets the waiters of a GlideClusterClient be woken by the release: GLIDE cannot duplicate a
    client and sets a client's message callback when it creates it, so the helper opens its
    subscriber (one per client, while it has waiters) from the configuration client was created with."""
    if not isinstance(client, GlideClusterClient):
        raise TypeError("enable_wakeups takes a GlideClusterClient: GLIDE has sharded pub/sub in cluster mode only")
    _configurations[client] = configuration


class _Hub:
    """A cluster client's wake-ups: a second client made from its configuration, SSUBSCRIBEd to the
    keys its waiters wait on. The scripts that free a lock SPUBLISH on its key's name, with an empty
    payload (wake one waiter), '*' (wake all) or the token of the waiter to wake."""

    def __init__(self, configuration: GlideClusterClientConfiguration):
        self._loop = asyncio.get_running_loop()
        #: Per key, its waiters' tokens and events, first come first.
        self.channels: Dict[str, Dict[str, asyncio.Event]] = {}
        self._subscribed: Dict[str, "asyncio.Future[Any]"] = {}
        opened = copy.copy(configuration)
        opened.pubsub_subscriptions = GlideClusterClientConfiguration.PubSubSubscriptions(
            channels_and_patterns={}, callback=self._message, context=None
        )
        self._subscriber = asyncio.ensure_future(GlideClusterClient.create(opened))

    def _message(self, message: Any, _context: Any) -> None:
        # GLIDE may call this from its own thread: the events are set on the waiters' loop.
        self._loop.call_soon_threadsafe(self._wake, _text(message.channel), _text(message.message))

    def _wake(self, channel: str, payload: str) -> None:
        waiters = self.channels.get(channel, {})
        if payload == "*":
            events = list(waiters.values())
        elif payload == "":
            events = list(waiters.values())[:1]
        else:
            events = [waiters[payload]] if payload in waiters else []
        for event in events:
            event.set()

    async def join(self, key: str, token: str, patience_s: float) -> asyncio.Event:
        """A waiter's event, once subscribed or after patience_s: a waiter whose subscription stalls
        or fails (a server before 7.0, an ACL without channel rights) still wakes by its timer."""
        event = asyncio.Event()
        self.channels.setdefault(key, {})[token] = event
        if key not in self._subscribed:
            self._subscribed[key] = asyncio.ensure_future(self._subscribe(key))
        await asyncio.wait([self._subscribed[key]], timeout=patience_s)
        return event

    async def _subscribe(self, key: str) -> None:
        try:
            await (await self._subscriber).ssubscribe({key}, timeout_ms=10_000)
        except (GlideError, OSError):
            pass  # its waiters wake by their timers

    def leave(self, key: str, token: str) -> bool:
        """Leaves key's waiters; True when the hub has none left (then close it)."""
        waiters = self.channels.get(key, {})
        waiters.pop(token, None)
        if not waiters:
            self.channels.pop(key, None)
            self._subscribed.pop(key, None)
        return not self.channels

    async def unsubscribe(self, key: str) -> None:
        try:
            await (await self._subscriber).sunsubscribe_lazy({key})
        except (GlideError, OSError):
            pass  # a stray wake-up costs one try

    async def close(self) -> None:
        try:
            await (await self._subscriber).close()
        except (GlideError, OSError):
            pass


_hubs: "weakref.WeakKeyDictionary[Any, _Hub]" = weakref.WeakKeyDictionary()


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


__all__ += ["enable_wakeups"]

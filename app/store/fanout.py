"""Pub/sub fan-out: subscriber connections per instance, channels joined on demand.

An instance joins a table's channel only while it has sockets on that table.

Two kinds of channel (``is_shard_channel``):

- A table's channel (``keys.channel``, named after the table's hash tag) is a *shard channel*:
  the commit script publishes it with SPUBLISH, in the table's slot, and it is joined with
  SSUBSCRIBE. On Redis Cluster only the node that owns the slot (and its replicas) carries
  its messages: the tables' pub/sub traffic is spread over the masters like their keys,
  instead of every message crossing every node's cluster bus.
- The global channels (lobby changed, sessions changed, the instance channel, friends) use
  PUBLISH / SUBSCRIBE: on Cluster a PUBLISH reaches the subscribers on every node.

Three backends, one surface:

- One real Redis (``direct``): one connection, a small asyncio protocol (``subscriber``); each
  message is parsed where it arrives and handed to its callbacks at once (redis-py's
  ``PubSub.get_message`` loop cost about 40 us of CPU per message, one message per move on
  every instance). SUBSCRIBE and SSUBSCRIBE share the connection, so a table's and the
  lobby's messages keep their order.
- Redis Cluster (``redis`` is a ``redis.asyncio.RedisCluster``): the same protocol, one
  connection per master. A table channel is joined on the master that owns its slot (the slot
  map is the cluster client's), the global channels on one master. The map is read again and
  the channels joined where they now live when a node is lost (failover), stops answering
  PINGs, refuses a SSUBSCRIBE (MOVED after a slot migration) or drops a channel itself
  (SUNSUBSCRIBE when its slot moved away); then the ``on_reconnect`` callbacks run, since
  messages published meanwhile are lost.
- The stand-in (fakeredis) and a Redis with no direct address (TLS): redis-py's PubSub; after
  a drop it subscribes again by itself, and ``on_reconnect`` runs once all are confirmed.

``subscribe`` returns once Redis has confirmed the channel (app.store.subscriber's
``Confirmations``; on redis-py's PubSub, the confirmation it reads): a message published
after it returns is delivered, so a listener that subscribes and then reads the state misses
no change. The wait is bounded; when the connection fails meanwhile, the channel is joined
again with the others and the ``on_reconnect`` callbacks run, as after any loss.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import zlib
from collections.abc import Callable

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from app.stopping import STOP_SECONDS, cancel_until_done
from app.store.pipelined import PipelinedRedis
from app.store.subscriber import Confirmations, Handler, Subscriber, ssl_context

log = logging.getLogger(__name__)

# How long a SUBSCRIBE may go unconfirmed (a cluster connection's connect timeout; one
# Redis's is its client's): longer, the connection is taken for broken.
CONFIRM_SECONDS = 5.0


def is_shard_channel(channel: str) -> bool:
    """A channel in a hash tag (a table's channel, ``keys.channel``) lives in one slot: it is
    published with SPUBLISH and joined with SSUBSCRIBE. Global channels carry no hash tag."""
    return channel.startswith("{")


class Fanout:
    """Route messages of subscribed channels to plain (non-async) callbacks, in order.

    Callbacks must not block: they hand work to a queue of their own.
    """

    def __init__(
        self,
        redis: aioredis.Redis | RedisCluster,
        home_channel: str,
        *,
        direct: PipelinedRedis | None = None,
        health_seconds: float = 1.0,
    ) -> None:
        self._redis = redis
        self._home = home_channel
        self._handlers: dict[str, list[Handler]] = {}
        self._lock = asyncio.Lock()
        # The channels whose SUBSCRIBE is not confirmed yet: their next subscribers wait too.
        self._joining: dict[str, asyncio.Future[bool]] = {}
        self._confirm_seconds = direct.connect_timeout if direct is not None else CONFIRM_SECONDS
        # redis-py backend
        self._pubsub: aioredis.client.PubSub | None = None
        self._task: asyncio.Task[None] | None = None
        self._confirmations = Confirmations()  # what its listener has not read yet
        # direct backend: the address to connect to (a PipelinedRedis only carries it)
        self._direct = direct
        self._proto: Subscriber | None = None
        # cluster backend
        self._cluster = (
            _ClusterLinks(self, redis, health_seconds) if isinstance(redis, RedisCluster) else None
        )
        self._stopping = False
        # Called after the subscriber reconnected: what was published meanwhile is lost, so
        # the listeners read the current state once (app/realtime/hub.py resyncs its hubs).
        self._on_reconnect: list[Callable[[], None]] = []

    async def start(self) -> None:
        if self._cluster is not None:
            await self._cluster.start()
            return
        if self._direct is not None:
            await self._connect()
            self._task = asyncio.create_task(self._keep_connected(), name="fanout")
            return
        assert isinstance(self._redis, aioredis.Redis)
        self._pubsub = self._redis.pubsub()
        # A pub/sub connection needs one channel before it can be read from.
        joined = self._confirmations.expect(b"subscribe", self._home.encode())
        await self._pubsub.subscribe(self._home)
        self._task = asyncio.create_task(self._listen(), name="fanout")
        await self._confirmed(self._home, joined, None)

    async def stop(self) -> None:
        self._stopping = True
        if self._cluster is not None:
            await self._cluster.stop()
        if self._task is not None:
            await cancel_until_done(self._task, STOP_SECONDS, "the pub/sub listener")
            self._task = None
        if self._proto is not None and self._proto.transport is not None:
            self._proto.transport.close()
            self._proto = None
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = None

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (not async, must not block) each time the subscriber has
        reconnected and joined its channels again."""
        self._on_reconnect.append(callback)

    def _reconnected(self) -> None:
        log.warning("pub/sub connection back; channels joined again")
        for callback in list(self._on_reconnect):
            try:
                callback()
            except Exception:
                log.exception("pub/sub reconnect callback failed")

    async def subscribe(self, channel: str, handler: Handler) -> None:
        """Call ``handler`` with each message of ``channel``, from one published once this
        returns. It returns when Redis has confirmed the channel or, within
        ``CONFIRM_SECONDS`` (one Redis: its connect timeout), when the connection failed:
        then it is joined again with the others and the ``on_reconnect`` callbacks run."""
        async with self._lock:
            handlers = self._handlers.setdefault(channel, [])
            handlers.append(handler)
            if len(handlers) == 1:
                joined = await self._join(channel)
                if joined is not None:
                    self._joining[channel] = joined
                    joined.add_done_callback(functools.partial(self._joined, channel))
            joined = self._joining.get(channel)
            link = self._proto
        # Waited for outside the lock: the reconnect and repair paths take it, and other
        # channels are joined meanwhile.
        if joined is not None:
            await self._confirmed(channel, joined, link)

    def _joined(self, channel: str, joined: asyncio.Future[bool]) -> None:
        if self._joining.get(channel) is joined:
            del self._joining[channel]

    async def _confirmed(
        self, channel: str, joined: asyncio.Future[bool], link: Subscriber | None
    ) -> None:
        """Wait (bounded) until ``joined`` says Redis answered the SUBSCRIBE of ``channel``
        (sent on ``link`` on the direct backend). Unanswered in time, the connection is taken
        for broken: dropped on one Redis (the reconnect joins every channel again), repaired
        on Cluster; then the on_reconnect callbacks run, for what was published meanwhile."""
        try:
            await asyncio.wait_for(asyncio.shield(joined), self._confirm_seconds)
            return  # confirmed, or the connection failed: its repair is under way
        except TimeoutError:
            pass
        log.warning(
            "pub/sub: %s not confirmed within %.1f s; joining again", channel, self._confirm_seconds
        )
        if self._cluster is not None:
            self._cluster.trouble(refresh=True)
        elif link is not None and link.transport is not None:
            link.transport.abort()  # _keep_connected connects again

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        async with self._lock:
            handlers = self._handlers.get(channel)
            if not handlers:
                return
            with contextlib.suppress(ValueError):
                handlers.remove(handler)
            if not handlers:
                del self._handlers[channel]
                await self._leave(channel)

    async def _join(self, channel: str) -> asyncio.Future[bool] | None:
        """Start receiving ``channel`` on this fan-out's connection: a shard channel by
        SSUBSCRIBE, any other by SUBSCRIBE. Returns the confirmation's future (None when
        the connection is away: the reconnect or repair joins it with the others)."""
        shard = is_shard_channel(channel)
        if self._cluster is not None:
            return self._cluster.join(channel, shard)
        if self._proto is not None:
            return self._proto.join("SSUBSCRIBE" if shard else "SUBSCRIBE", channel)
        if self._pubsub is not None:
            pubsub = self._pubsub
            joined = self._confirmations.expect(
                b"ssubscribe" if shard else b"subscribe", channel.encode()
            )
            try:
                await (pubsub.ssubscribe if shard else pubsub.subscribe)(channel)
            except BaseException:
                joined.set_result(False)
                raise
            return joined
        return None

    async def _leave(self, channel: str) -> None:
        """Stop receiving ``channel``: SUNSUBSCRIBE or UNSUBSCRIBE (not waited for: a message
        that still comes finds no handler)."""
        shard = is_shard_channel(channel)
        if self._cluster is not None:
            self._cluster.leave(channel, shard)
        elif self._proto is not None:
            self._proto.command("SUNSUBSCRIBE" if shard else "UNSUBSCRIBE", channel)
        elif self._pubsub is not None:
            pubsub = self._pubsub
            await (pubsub.sunsubscribe if shard else pubsub.unsubscribe)(channel)

    def _dispatch(self, channel: str, data: bytes) -> None:
        for handler in list(self._handlers.get(channel, ())):
            try:
                handler(channel, data)
            except Exception:
                log.exception("pub/sub handler failed for %s", channel)

    # -- direct backend ----------------------------------------------------------------------

    async def _connect(self) -> None:
        """Connect and join every channel; return once Redis confirmed them (the
        on_reconnect callbacks that follow read the state after that)."""
        direct = self._direct
        assert direct is not None
        loop = asyncio.get_running_loop()
        _, proto = await asyncio.wait_for(
            loop.create_connection(lambda: Subscriber(self._dispatch), direct.host, direct.port),
            direct.connect_timeout,
        )
        try:
            if direct.password is not None:
                if direct.username:
                    proto.command("AUTH", direct.username, direct.password)
                else:
                    proto.command("AUTH", direct.password)
            shard = [c for c in self._handlers if is_shard_channel(c)]
            plain = [c for c in self._handlers if c not in shard]
            joined = [proto.join("SUBSCRIBE", self._home, *plain)]
            if shard:  # one Redis takes channels of any slots in one SSUBSCRIBE
                joined.append(proto.join("SSUBSCRIBE", *shard))
            confirmed = await asyncio.wait_for(asyncio.gather(*joined), direct.connect_timeout)
            if not all(confirmed):
                raise ConnectionError("Redis refused the channels or closed the connection")
        except BaseException:
            proto.retire()
            raise
        self._proto = proto

    async def _keep_connected(self) -> None:
        """Reconnect (and subscribe again) when the connection drops, trying every 0.2 s to
        2 s (Redis restarting, or away a while). Messages published meanwhile are lost, as with
        any pub/sub client: the on_reconnect callbacks then resync the listeners."""
        delay = 0.2
        while not self._stopping:
            proto = self._proto
            if proto is not None:
                await proto.closed
                delay = 0.2
            if self._stopping:
                return
            log.warning("pub/sub connection lost; reconnecting")
            self._proto = None
            try:
                async with self._lock:
                    await self._connect()
            except Exception as exc:
                log.warning("pub/sub reconnect failed: %s", exc)
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)
                continue
            self._reconnected()

    # -- redis-py backend --------------------------------------------------------------------

    async def _listen(self) -> None:
        assert self._pubsub is not None
        # After a failed read redis-py reconnects and subscribes again: the channels not yet
        # confirmed again (None while the connection holds); on_reconnect runs after the last.
        rejoining: set[bytes] | None = None
        # The flag ends the loop too: get_message can swallow a cancellation (app/stopping.py).
        while not self._stopping:
            try:
                msg = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub read failed; retrying")
                rejoining = {self._home.encode(), *(c.encode() for c in self._handlers)}
                await asyncio.sleep(0.5)
                continue
            kind = msg.get("type") if msg is not None else None
            if kind == "subscribe" or kind == "ssubscribe":
                assert msg is not None
                raw_channel = msg["channel"]
                if not isinstance(raw_channel, bytes):
                    raw_channel = str(raw_channel).encode()
                self._confirmations.confirm(kind.encode(), raw_channel)
                if rejoining is not None:
                    rejoining.discard(raw_channel)
                    if not rejoining:
                        rejoining = None
                        self._reconnected()
                continue
            if msg is None or kind not in ("message", "smessage"):
                continue
            raw_channel = msg["channel"]
            channel = raw_channel.decode() if isinstance(raw_channel, bytes) else str(raw_channel)
            data = msg["data"]
            self._dispatch(channel, data if isinstance(data, bytes) else str(data).encode())


class _ClusterLinks:
    """The cluster backend (the module doc). Every change of place goes through ``reconcile``
    (under the fanout's lock), run by ``_repair`` whenever something went wrong (retrying
    every 0.05 s to 1 s, then the on_reconnect callbacks); ``_watch`` PINGs every connection
    (a hung master is dropped) and follows the cluster client's own map refreshes."""

    REFRESH_EVERY = 5  # health ticks between two reads of the slot map

    def __init__(self, fanout: Fanout, cluster: RedisCluster, health_seconds: float) -> None:
        self.fanout = fanout
        self.cluster = cluster
        self.health_seconds = health_seconds
        self.links: dict[str, Subscriber] = {}  # node name -> connection
        self.joined: dict[str, str] = {}  # shard channel -> node it is joined on
        self.global_node: str | None = None
        self.wanted = asyncio.Event()  # a reconcile is needed
        self.refresh = False  # read the slot map first
        self.missed = False  # messages may have been lost: on_reconnect once repaired
        self.epoch = -1  # the cluster client's map version seen by the last reconcile
        self.suspect: str | None = None  # the node lost last: asked for the map last
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await self.cluster.initialize()
        async with self.fanout._lock:
            await self.reconcile()
        self.tasks = [
            asyncio.create_task(self._repair(), name="fanout-repair"),
            asyncio.create_task(self._watch(), name="fanout-health"),
        ]

    async def stop(self) -> None:
        for task in self.tasks:
            await cancel_until_done(
                task, STOP_SECONDS, f"the cluster subscriber ({task.get_name()})"
            )
        self.tasks = []
        for link in self.links.values():
            link.retire()
        self.links.clear()
        self.joined.clear()

    # -- what the fanout asks (under its lock) ------------------------------------------------

    def join(self, channel: str, shard: bool) -> asyncio.Future[bool] | None:
        """Join ``channel`` where it lives: the confirmation's future, or None when that
        connection is away (the repair joins it, then the on_reconnect callbacks run)."""
        if not shard:
            link = self.links.get(self.global_node or "")
            if link is not None and link.alive and link.globals_joined:
                return link.join("SUBSCRIBE", channel)
            self.trouble()
            return None
        try:
            name = self._owner(channel)
        except Exception:
            self.trouble(refresh=True)
            return None
        link = self.links.get(name)
        if link is None or not link.alive:
            self.trouble()
            return None
        self.joined[channel] = name
        return link.join("SSUBSCRIBE", channel)

    def leave(self, channel: str, shard: bool) -> None:
        if not shard:
            link = self.links.get(self.global_node or "")
            if link is not None and link.alive:
                link.command("UNSUBSCRIBE", channel)
            return
        name = self.joined.pop(channel, None)
        link = self.links.get(name or "")
        if link is not None and link.alive:
            link.leave_shard(channel)

    # -- what the connections report ----------------------------------------------------------

    def trouble(self, *, refresh: bool = False) -> None:
        self.missed = True
        self.refresh = self.refresh or refresh
        self.wanted.set()

    def dropped(self, link: Subscriber, channel: str) -> None:
        """The server left ``channel`` by itself: its slot moved to another master."""
        if self.joined.get(channel) == link.name:
            del self.joined[channel]
            log.warning("pub/sub: %s left %s (its slot moved); joining again", link.name, channel)
            self.trouble(refresh=True)

    def refused(self, link: Subscriber) -> None:
        """An error reply (MOVED, TRYAGAIN, CLUSTERDOWN): join all of its channels again
        once the map is read again (joining a channel twice does no harm)."""
        for channel, name in list(self.joined.items()):
            if name == link.name:
                del self.joined[channel]
        link.globals_joined = False
        self.trouble(refresh=True)

    def lost(self, link: Subscriber) -> None:
        if self.links.get(link.name) is link:
            del self.links[link.name]
        for channel, name in list(self.joined.items()):
            if name == link.name:
                del self.joined[channel]
        if self.global_node == link.name:
            self.global_node = None
        self.suspect = link.name
        log.warning("pub/sub connection to %s lost; joining its channels again", link.name)
        self.trouble(refresh=True)

    # -- repairs ------------------------------------------------------------------------------

    def _owner(self, channel: str) -> str:
        node = self.cluster.nodes_manager.get_node_from_slot(key_slot(channel.encode()))
        name: str = node.name
        return name

    async def reconcile(self) -> None:
        """Join every channel where it lives now; return once the masters confirmed what
        was sent (or refused it, or were lost: another repair is then wanted already)."""
        manager = self.cluster.nodes_manager
        if self.refresh:
            self.refresh = False
            # Bounded, and the node just lost asked last: a master that stopped without
            # closing its connections answers nothing.
            await asyncio.wait_for(manager.initialize(last_failed_node_name=self.suspect), 3)
        self.epoch = manager._epoch
        masters = {nodes[0].name: nodes[0] for nodes in manager.slots_cache.values() if nodes}
        if not masters:
            raise ConnectionError("the cluster's slot map is empty")
        want: dict[str, list[str]] = {}
        for channel in self.fanout._handlers:
            if is_shard_channel(channel):
                want.setdefault(self._owner(channel), []).append(channel)
        global_node = self.global_node
        current = self.links.get(global_node or "")
        if global_node not in masters or current is None or not current.alive:
            # Spread the instances' global channels over the masters (any master will do).
            names = sorted(masters)
            global_node = names[zlib.crc32(self.fanout._home.encode()) % len(names)]
        needed = {*want, global_node}
        confirmations: list[asyncio.Future[bool]] = []
        for name in sorted({*masters, *needed}):
            link = self.links.get(name)
            if link is not None and link.alive:
                continue
            node = masters[name]
            try:
                link = await self._open(node.host, int(node.port), name)
            except Exception:
                if name in needed:
                    raise
                log.warning("pub/sub: cannot reach master %s (no channel there yet)", name)
                continue
            self.links[name] = link
            for channel, joined_on in list(self.joined.items()):
                if joined_on == name:
                    del self.joined[channel]
        # The global channels.
        link = self.links[global_node]
        if self.global_node != global_node or not link.globals_joined:
            old = self.links.get(self.global_node or "")
            if old is not None and old is not link and old.alive:
                old.command("UNSUBSCRIBE")
                old.globals_joined = False
            globals_ = [c for c in self.fanout._handlers if not is_shard_channel(c)]
            confirmations.append(link.join("SUBSCRIBE", self.fanout._home, *globals_))
            link.globals_joined = True
            self.global_node = global_node
        # The shard channels, one SSUBSCRIBE per slot (a node refuses one across slots).
        for name, channels in want.items():
            link = self.links[name]
            by_slot: dict[int, list[str]] = {}
            for channel in channels:
                was = self.joined.get(channel)
                if was == name:
                    continue
                old = self.links.get(was or "")
                if old is not None and old.alive:
                    old.leave_shard(channel)
                by_slot.setdefault(key_slot(channel.encode()), []).append(channel)
            for group in by_slot.values():
                confirmations.append(link.join("SSUBSCRIBE", *group))
                for channel in group:
                    self.joined[channel] = name
        # Connections to nodes that are no longer masters (a demoted master, a removed node).
        for name, link in list(self.links.items()):
            if name not in masters and name not in needed:
                del self.links[name]
                link.retire()
        if confirmations:
            await asyncio.wait_for(asyncio.gather(*confirmations), CONFIRM_SECONDS)

    async def _open(self, host: str, port: int, name: str) -> Subscriber:
        settings = self.cluster.nodes_manager.connection_kwargs
        loop = asyncio.get_running_loop()
        _, link = await asyncio.wait_for(
            loop.create_connection(
                lambda: Subscriber(self.fanout._dispatch, self, name),
                host,
                port,
                ssl=ssl_context(settings),
            ),
            5,
        )
        password = settings.get("password")
        if password is not None:
            username = settings.get("username")
            if username:
                link.command("AUTH", username, password)
            else:
                link.command("AUTH", password)
        return link

    async def _repair(self) -> None:
        loop = asyncio.get_running_loop()
        delay = 0.05
        last = 0.0
        while True:
            await self.wanted.wait()
            # A trouble that comes back at once (a slot still moving, CLUSTERDOWN) is retried
            # less and less often, up to once a second.
            if loop.time() - last < 1.0:
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
            else:
                delay = 0.05
            self.wanted.clear()
            try:
                async with self.fanout._lock:
                    await self.reconcile()
            except Exception as exc:
                log.warning("pub/sub: cannot join the channels yet: %s", exc or type(exc).__name__)
                self.refresh = True
                self.wanted.set()
                last = loop.time()
                continue
            last = loop.time()
            if self.missed and not self.wanted.is_set():
                self.missed = False
                self.fanout._reconnected()

    async def _watch(self) -> None:
        tick = 0
        while True:
            await asyncio.sleep(self.health_seconds)
            tick += 1
            if self.cluster.nodes_manager._epoch != self.epoch:
                self.wanted.set()  # the cluster client read a new map (MOVED, failover)
            if tick % self.REFRESH_EVERY == 0:
                self.refresh = True
                self.wanted.set()
            for link in list(self.links.values()):
                if link.unanswered >= 3:
                    log.warning("pub/sub: %s does not answer; dropping it", link.name)
                    if link.transport is not None:
                        link.transport.abort()  # connection_lost follows: a failover
                else:
                    link.unanswered += 1
                    link.command("PING")

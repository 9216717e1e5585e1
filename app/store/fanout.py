"""Pub/sub fan-out: one subscriber connection per instance, channels joined on demand.

An instance subscribes to a table's channel only while it has sockets on that table, so
each process pays for the messages of its own tables only.

On a real Redis the subscriber is a small asyncio protocol: each message is parsed where it
arrives and handed to its callbacks at once (redis-py's ``PubSub.get_message`` loop cost about
40 us of CPU per message, one message per move on every instance). On the in-process stand-in
(fakeredis) redis-py's PubSub is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

from app.store.pipelined import PipelinedRedis, _encode, _parse

log = logging.getLogger(__name__)

Handler = Callable[[str, bytes], None]


class Fanout:
    """Route messages of subscribed channels to plain (non-async) callbacks, in order.

    Callbacks must not block: they hand work to a queue of their own.
    """

    def __init__(
        self, redis: aioredis.Redis, home_channel: str, *, direct: PipelinedRedis | None = None
    ) -> None:
        self._redis = redis
        self._home = home_channel
        self._handlers: dict[str, list[Handler]] = {}
        self._lock = asyncio.Lock()
        # redis-py backend
        self._pubsub: aioredis.client.PubSub | None = None
        self._task: asyncio.Task[None] | None = None
        # direct backend: the address to connect to (a PipelinedRedis only carries it)
        self._direct = direct
        self._proto: _Subscriber | None = None
        self._stopping = False
        # Called after the subscriber reconnected: what was published meanwhile is lost, so
        # the listeners read the current state once (app/realtime/hub.py resyncs its hubs).
        self._on_reconnect: list[Callable[[], None]] = []

    async def start(self) -> None:
        if self._direct is not None:
            await self._connect()
            self._task = asyncio.create_task(self._keep_connected(), name="fanout")
            return
        self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        # A pub/sub connection needs one channel before it can be read from.
        await self._pubsub.subscribe(self._home)
        self._task = asyncio.create_task(self._listen(), name="fanout")

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
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
        async with self._lock:
            handlers = self._handlers.setdefault(channel, [])
            handlers.append(handler)
            if len(handlers) == 1:
                if self._proto is not None:
                    self._proto.command("SUBSCRIBE", channel)
                elif self._pubsub is not None:
                    await self._pubsub.subscribe(channel)

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        async with self._lock:
            handlers = self._handlers.get(channel)
            if not handlers:
                return
            with contextlib.suppress(ValueError):
                handlers.remove(handler)
            if not handlers:
                del self._handlers[channel]
                if self._proto is not None:
                    self._proto.command("UNSUBSCRIBE", channel)
                elif self._pubsub is not None:
                    await self._pubsub.unsubscribe(channel)

    def _dispatch(self, channel: str, data: bytes) -> None:
        for handler in list(self._handlers.get(channel, ())):
            try:
                handler(channel, data)
            except Exception:
                log.exception("pub/sub handler failed for %s", channel)

    # -- direct backend ----------------------------------------------------------------------

    async def _connect(self) -> None:
        direct = self._direct
        assert direct is not None
        loop = asyncio.get_running_loop()
        _, proto = await asyncio.wait_for(
            loop.create_connection(lambda: _Subscriber(self._dispatch), direct.host, direct.port),
            direct.connect_timeout,
        )
        if direct.password is not None:
            if direct.username:
                proto.command("AUTH", direct.username, direct.password)
            else:
                proto.command("AUTH", direct.password)
        proto.command("SUBSCRIBE", self._home, *self._handlers)
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
        while True:
            try:
                msg = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub read failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if msg is None or msg.get("type") != "message":
                continue
            raw_channel = msg["channel"]
            channel = raw_channel.decode() if isinstance(raw_channel, bytes) else str(raw_channel)
            data = msg["data"]
            self._dispatch(channel, data if isinstance(data, bytes) else str(data).encode())


class _Subscriber(asyncio.Protocol):
    """A subscribed connection: every "message" push goes to ``dispatch`` as it arrives."""

    def __init__(self, dispatch: Handler) -> None:
        self.dispatch = dispatch
        self.buf = bytearray()
        self.transport: Any = None
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def command(self, *args: Any) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_encode(args))

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        pos = 0
        while True:
            parsed = _parse(buf, pos)
            if parsed is None:
                break
            value, pos = parsed
            if isinstance(value, list) and len(value) == 3 and value[0] == b"message":
                self.dispatch(value[1].decode(), value[2])
            elif isinstance(value, Exception):
                log.error("pub/sub error reply: %s", value)
        if pos:
            del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

"""Pub/sub fan-out: one subscriber connection per instance, channels joined on demand.

An instance subscribes to a table's channel only while it has sockets on that table, so
each process pays for the messages of its own tables only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import redis.asyncio as aioredis

log = logging.getLogger(__name__)

Handler = Callable[[str, bytes], None]


class Fanout:
    """Route messages of subscribed channels to plain (non-async) callbacks, in order.

    Callbacks must not block: they hand work to a queue of their own.
    """

    def __init__(self, redis: aioredis.Redis, home_channel: str) -> None:
        self._redis = redis
        self._home = home_channel
        self._pubsub: aioredis.client.PubSub | None = None
        self._handlers: dict[str, list[Handler]] = {}
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        # A pub/sub connection needs one channel before it can be read from.
        await self._pubsub.subscribe(self._home)
        self._task = asyncio.create_task(self._listen(), name="fanout")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = None

    async def subscribe(self, channel: str, handler: Handler) -> None:
        async with self._lock:
            handlers = self._handlers.setdefault(channel, [])
            handlers.append(handler)
            if len(handlers) == 1 and self._pubsub is not None:
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
                if self._pubsub is not None:
                    await self._pubsub.unsubscribe(channel)

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
            for handler in list(self._handlers.get(channel, ())):
                try:
                    handler(channel, data if isinstance(data, bytes) else str(data).encode())
                except Exception:
                    log.exception("pub/sub handler failed for %s", channel)

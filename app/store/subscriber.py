"""One subscribed pub/sub connection (a small asyncio protocol over RESP), and the TLS
context of the cluster client's connections.

``Subscriber`` hands each "message" / "smessage" push to its callback where it arrives; on
Redis Cluster it also tells its owner (``LinkEvents``: app.store.fanout's cluster links)
what makes a channel move. app.store.fanout builds the subscriptions on it.

A SUBSCRIBE takes effect when Redis processes it, not when it is written: a message
published on another connection in between is not delivered (Redis may be busy, or read
this connection's earlier commands first). ``Confirmations`` tells when Redis has answered
one, so that whoever subscribes and then reads the state misses nothing.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import ssl
from collections.abc import Callable
from typing import Any, Protocol

from redis.asyncio.connection import SSLConnection

from app.store.pipelined import _encode, _parse

log = logging.getLogger(__name__)

Handler = Callable[[str, bytes], None]


class LinkEvents(Protocol):
    """What a cluster connection reports to its owner."""

    def dropped(self, link: Subscriber, channel: str) -> None: ...

    def refused(self, link: Subscriber) -> None: ...

    def lost(self, link: Subscriber) -> None: ...


class Confirmations:
    """SUBSCRIBE / SSUBSCRIBE commands sent on one connection and not yet answered: a future
    per command, True once Redis confirmed it (a message published from then on is
    delivered), False if the connection failed first (an error reply, the connection lost).

    Redis confirms each channel of a command in turn, and a connection's commands in order:
    a command is confirmed with its last channel, and two commands ending with the same
    channel are confirmed first come, first served."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[bytes, bytes], collections.deque[asyncio.Future[bool]]] = {}

    def expect(self, kind: bytes, channel: bytes) -> asyncio.Future[bool]:
        """The future of a command whose last channel is ``channel``, confirmed by a ``kind``
        push (b"subscribe" or b"ssubscribe")."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault((kind, channel), collections.deque()).append(future)
        return future

    def confirm(self, kind: bytes, channel: bytes) -> None:
        queue = self._waiting.get((kind, channel))
        if not queue:
            return  # an earlier channel of a command, or one nobody waits for
        future = queue.popleft()
        if not queue:
            del self._waiting[(kind, channel)]
        if not future.done():
            future.set_result(True)

    def release(self) -> None:
        """The connection failed: nothing more will be confirmed in order on it."""
        waiting, self._waiting = self._waiting, {}
        for queue in waiting.values():
            for future in queue:
                if not future.done():
                    future.set_result(False)


class Subscriber(asyncio.Protocol):
    """A subscribed connection: every "message" / "smessage" push goes to ``dispatch`` as it
    arrives. On Cluster (``links`` set) it also reports what makes a channel move: a
    SUNSUBSCRIBE it did not ask for, an error reply (MOVED, CLUSTERDOWN), the connection lost."""

    def __init__(self, dispatch: Handler, links: LinkEvents | None = None, name: str = "") -> None:
        self.dispatch = dispatch
        self.links = links
        self.name = name  # the node, "host:port"
        self.buf = bytearray()
        self.transport: Any = None
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # SUNSUBSCRIBEs sent and not yet confirmed, by channel: any other confirmation is the
        # server dropping the channel (its slot left this node).
        self.leaving: dict[bytes, int] = {}
        self.unanswered = 0  # PINGs sent since the connection last said anything
        self.globals_joined = False  # the global channels are subscribed on this connection
        self.retired = False  # closed on purpose: not a loss
        self.confirmations = Confirmations()

    @property
    def alive(self) -> bool:
        return not self.closed.done() and not self.retired

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def command(self, *args: Any) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_encode(args))

    def join(self, verb: str, *channels: str) -> asyncio.Future[bool]:
        """Send ``verb`` (SUBSCRIBE or SSUBSCRIBE) for ``channels``: the future says when
        Redis has confirmed them all (``Confirmations``)."""
        if self.transport is None or self.transport.is_closing():
            future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            future.set_result(False)
            return future
        future = self.confirmations.expect(verb.lower().encode(), channels[-1].encode())
        self.command(verb, *channels)
        return future

    def leave_shard(self, channel: str) -> None:
        raw = channel.encode()
        self.leaving[raw] = self.leaving.get(raw, 0) + 1
        self.command("SUNSUBSCRIBE", channel)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        self.unanswered = 0
        pos = 0
        while True:
            parsed = _parse(buf, pos)
            if parsed is None:
                break
            value, pos = parsed
            if isinstance(value, list) and len(value) == 3:
                kind = value[0]
                if kind == b"message" or kind == b"smessage":
                    self.dispatch(value[1].decode(), value[2])
                elif kind == b"subscribe" or kind == b"ssubscribe":
                    self.confirmations.confirm(kind, value[1])
                elif kind == b"sunsubscribe" and self.links is not None:
                    left = self.leaving.get(value[1], 0)
                    if left > 1:
                        self.leaving[value[1]] = left - 1
                    elif left == 1:
                        del self.leaving[value[1]]
                    else:
                        self.links.dropped(self, value[1].decode())
            elif isinstance(value, Exception):
                log.warning("pub/sub error reply from %s: %s", self.name or "Redis", value)
                # Which command it answers is not told: none of those waiting is confirmed
                # (the cluster's owner joins them again; one Redis logs it).
                self.confirmations.release()
                if self.links is not None:
                    self.links.refused(self)
        if pos:
            del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        self.confirmations.release()
        if not self.closed.done():
            self.closed.set_result(None)
        if self.links is not None and not self.retired:
            self.links.lost(self)

    def retire(self) -> None:
        self.retired = True
        if self.transport is not None:
            self.transport.close()


def ssl_context(settings: dict[str, Any]) -> ssl.SSLContext | None:
    """The TLS context of the cluster client's connections (``rediss+cluster://``), if any."""
    connection_class = settings.get("connection_class")
    if not (isinstance(connection_class, type) and issubclass(connection_class, SSLConnection)):
        return None
    context = ssl.create_default_context(cafile=settings.get("ssl_ca_certs"))
    if settings.get("ssl_certfile"):
        context.load_cert_chain(settings["ssl_certfile"], settings.get("ssl_keyfile"))
    if settings.get("ssl_cert_reqs") in ("none", ssl.CERT_NONE):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif settings.get("ssl_check_hostname") is False:
        context.check_hostname = False
    return context

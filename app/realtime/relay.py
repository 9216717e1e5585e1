"""Table sockets relayed to their table's home instance.

When a table's sockets sit on two instances, each change costs both of them: each reads and
parses the table and builds its views (docs/scaling.md, "A move seen on two instances"). So
one instance serves every socket of a table: its *home*, named in the table's socket hash
(``app.store.sockets``, field ``home``) by the first instance that opened a socket there while
no live home was named. A table socket the load balancer sends to another instance (an
*edge*) is accepted there and its frames are passed both ways, unread, over the two
instances' relay channels (``keys.relay_channel``): the home runs the table endpoint
unchanged over an ASGI socket whose ``receive`` and ``send`` are the relay. The edge reads
no table, parses no frame and builds no view.

A relay channel is a shard channel that only its own instance joins: it carries one seat's
frames, hidden cards included, from one instance to one other, never on a channel every
instance shares (DESIGN.md). A message is a run of records, ``kind`` (one byte), the socket's
id (16 bytes), the payload's length (4 bytes) and the payload:

- edge to home: ``O`` a socket opened (JSON: the edge's instance, the table, the handshake's
  path, query and headers, the client's address as the edge reads it), ``T`` / ``B`` a text
  / binary frame from the client, ``X`` the client left (the close code);
- home to edge: ``T`` a frame for the client, ``C`` close the socket (code and reason).

Each instance sends to each other one in order (one publish in flight per channel; what
queues meanwhile goes in the next, in one message). A publish that fails (Redis down) ends
the sockets it concerned, on both sides: the page reconnects and resyncs from its last
version, as after any drop, so no frame is silently lost.

Failures: every instance renews a short-lived key (``keys.instance_alive_key``). An edge whose
home's key ran out closes that home's sockets with 1012 (the page reconnects at once; its
next edge finds the home dead and claims the table); a home whose edge's key ran out ends
those sockets. An instance that stops closes its relayed sockets with 1012 and deletes its
key first, so nobody relays to it meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import struct
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import orjson
from starlette.types import Message
from starlette.websockets import WebSocket

from app.realtime.hub import Connection
from app.realtime.wire import wire_of
from app.stopping import STOP_SECONDS, cancel_until_done
from app.store import keys
from app.store.homes import Homes
from app.store.table_store import TableStore

log = logging.getLogger(__name__)

OPEN, TEXT, BYTES, GONE, CLOSE = b"O", b"T", b"B", b"X", b"C"
_HEAD = struct.Struct("!c16sI")
_CODE = struct.Struct("!H")

ALIVE_EVERY_SECONDS = 2.0  # an instance renews its alive key this often (it lives 7 s)
HOME_QUEUE = 1024  # client frames waiting at the home before the socket is dropped
RETRY_SECONDS = 30.0  # a message that cannot be published is tried again this long
REPLAY_MESSAGES = 8  # client messages an edge keeps until the home's first answer

CLOSE_SERVICE_RESTART = 1012  # RFC 6455: the page reconnects at once
CLOSE_POLICY = 4008

TableHandler = Callable[[WebSocket, str], Awaitable[None]]


def record(kind: bytes, sid: bytes, payload: bytes) -> bytes:
    return _HEAD.pack(kind, sid, len(payload)) + payload


def records(data: bytes) -> Iterator[tuple[bytes, bytes, bytes]]:
    """The records of one message; ValueError for a message cut short."""
    pos, size = 0, len(data)
    while pos < size:
        if pos + _HEAD.size > size:
            raise ValueError("a relay record's head is cut short")
        kind, sid, length = _HEAD.unpack_from(data, pos)
        pos += _HEAD.size
        if pos + length > size:
            raise ValueError("a relay record's payload is cut short")
        yield kind, sid, data[pos : pos + length]
        pos += length


class _Outbox:
    """The records waiting for one other instance: one publish in flight, the rest next."""

    def __init__(self, relay: Relay, instance: str) -> None:
        self.relay = relay
        self.instance = instance
        self.channel = keys.relay_channel(relay.namespace, instance)
        self.parts: list[bytes] = []
        self.task: asyncio.Task[None] | None = None

    def put(self, data: bytes) -> None:
        self.parts.append(data)
        if self.task is None:
            self.task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.parts:
                parts, self.parts = self.parts, []
                await self._publish(b"".join(parts))
        finally:
            self.task = None

    async def _publish(self, data: bytes) -> None:
        """Publish ``data``; on a failure, end the sockets it concerned (their close goes in
        the next message) and try again, for a while: a failover or a restart is over
        within seconds, and the other side must hear of the close."""
        delay, failed_at = 0.05, 0.0
        while True:
            try:
                await self.relay.publish(self.channel, data)
                return
            except Exception as exc:
                now = time.monotonic()
                if not failed_at:
                    failed_at = now
                    log.warning("relay to %s failed (%s): its sockets end", self.instance, exc)
                    self.relay.peer_lost(self.instance, CLOSE_SERVICE_RESTART)
                elif now - failed_at > RETRY_SECONDS:
                    log.warning("relay to %s: gave up after %.0f s", self.instance, now - failed_at)
                    return
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)


class _Edge:
    """A client socket here whose table's home is another instance."""

    def __init__(self, sid: bytes, home: str, conn: Connection) -> None:
        self.sid = sid
        self.home = home
        self.conn = conn
        self.close: tuple[int, str] | None = None  # the home closed it: with this
        # The client's messages until the home's first answer (None after it): read again
        # here if the home turns the socket away unanswered (``refused``).
        self.sent: list[Message] | None = []
        self.refused = False


class _Home:
    """A socket relayed here from an edge: the ASGI side the table endpoint runs over."""

    def __init__(self, relay: Relay, sid: bytes, edge: str) -> None:
        self.relay = relay
        self.sid = sid
        self.edge = edge
        self.inbox: asyncio.Queue[Message] = asyncio.Queue(HOME_QUEUE)
        self.connected = False
        self.closed = False  # this side closed it: nothing more goes to the edge
        self.ended = False  # the client (or its edge) left: the endpoint reads a disconnect
        self.task: asyncio.Task[None] | None = None

    async def receive(self) -> Message:
        if not self.connected:
            self.connected = True
            return {"type": "websocket.connect"}
        return await self.inbox.get()

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "websocket.send":
            if self.closed or self.ended:
                return
            text = message.get("text")
            data = text.encode() if text is not None else bytes(message.get("bytes") or b"")
            self.relay.to(self.edge).put(record(TEXT, self.sid, data))
        elif kind == "websocket.close":
            self.close(int(message.get("code") or 1000), str(message.get("reason") or ""))

    def close(self, code: int, reason: str = "") -> None:
        """Close the client's socket (its edge closes it with ``code``)."""
        if self.closed or self.ended:
            return
        self.closed = True
        payload = _CODE.pack(code) + reason.encode()[:120]
        self.relay.to(self.edge).put(record(CLOSE, self.sid, payload))

    def left(self, code: int) -> None:
        """The client is gone: the endpoint reads a disconnect next."""
        if self.ended:
            return
        self.ended = True
        msg: Message = {"type": "websocket.disconnect", "code": code}
        try:
            self.inbox.put_nowait(msg)
        except asyncio.QueueFull:
            # Full of frames the endpoint has not read: the disconnect takes the place of
            # the oldest (the socket ends either way).
            with contextlib.suppress(asyncio.QueueEmpty):
                self.inbox.get_nowait()
            self.inbox.put_nowait(msg)


class Relay:
    """This instance's relay: the sockets it passes on to their table's home, and those it
    serves for other instances' edges."""

    def __init__(
        self,
        store: TableStore,
        fanout: Any,
        namespace: str,
        instance_id: str,
        lease_ms: float,
        *,
        max_message_bytes: int,
    ) -> None:
        self.redis = store.redis
        self.fast = store.fast
        self.fanout = fanout
        self.namespace = namespace
        self.instance = instance_id.replace("|", "_")  # as app.store.sockets names it
        self.max_message_bytes = max_message_bytes
        self.channel = keys.relay_channel(namespace, self.instance)
        self.homes_store = Homes(store, namespace, self.instance, lease_ms)
        self.edges: dict[bytes, _Edge] = {}
        self.homes: dict[bytes, _Home] = {}
        self._outboxes: dict[str, _Outbox] = {}
        # What runs a relayed socket here (the table endpoint) and the app it belongs to:
        # set by app.main once both exist.
        self.handler: TableHandler | None = None
        self.app: Any = None
        self._watch: asyncio.Task[None] | None = None
        self._going: asyncio.Task[None] | None = None
        self.stopping = False

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        await self._renew()
        await self.fanout.subscribe(self.channel, self.on_message)
        self.fanout.on_reconnect(self.messages_lost)
        self._watch = asyncio.create_task(self._watch_peers(), name="relay-watch")

    def going(self) -> None:
        """This instance is stopping (SIGTERM): it takes no relayed socket from now on, and
        says so at once (its key deleted), so the pages it sends away land elsewhere."""
        if self.stopping:
            return
        self.stopping = True
        # Called from a signal handler: scheduled thread-safely, which wakes the loop.
        loop = asyncio.get_running_loop()
        loop.call_soon_threadsafe(
            lambda: setattr(self, "_going", loop.create_task(self._say_gone()))
        )

    async def _say_gone(self) -> None:
        with contextlib.suppress(Exception):
            await self.homes_store.gone()

    async def stop(self) -> None:
        """Say this instance is gone, close the sockets relayed here (1012: their pages
        reconnect and another instance takes the table) and tell the homes of the sockets
        relayed from here."""
        self.stopping = True
        with contextlib.suppress(Exception):
            await self.homes_store.gone()
        if self._watch is not None:
            await cancel_until_done(self._watch, STOP_SECONDS, "the relay's watch")
        for home in list(self.homes.values()):
            home.close(CLOSE_SERVICE_RESTART)
            home.left(CLOSE_SERVICE_RESTART)
        for edge in list(self.edges.values()):
            self.to(edge.home).put(record(GONE, edge.sid, _CODE.pack(CLOSE_SERVICE_RESTART)))
            edge.close = (CLOSE_SERVICE_RESTART, "")
            edge.conn.end()
        tasks = [h.task for h in self.homes.values() if h.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)
        drains = [o.task for o in self._outboxes.values() if o.task is not None]
        if drains:
            await asyncio.wait(drains, timeout=STOP_SECONDS)
        with contextlib.suppress(Exception):
            await self.fanout.unsubscribe(self.channel, self.on_message)

    async def _renew(self) -> None:
        await self.homes_store.renew()

    async def _watch_peers(self) -> None:
        """Renew this instance's key; end the sockets whose other side died."""
        while True:
            await asyncio.sleep(ALIVE_EVERY_SECONDS)
            try:
                await self._renew()
                peers = sorted(
                    {e.home for e in self.edges.values()} | {h.edge for h in self.homes.values()}
                )
                if peers:
                    found = await asyncio.gather(
                        *(self.alive(peer) for peer in peers), return_exceptions=True
                    )
                    for peer, alive in zip(peers, found, strict=True):
                        if alive is False:
                            log.warning("relay: instance %s is gone; its sockets end", peer)
                            self.peer_lost(peer, CLOSE_SERVICE_RESTART)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("relay: could not renew or check instances (%s)", exc)

    async def alive(self, instance: str) -> bool:
        return await self.homes_store.alive(instance)

    def messages_lost(self) -> None:
        """This instance's pub/sub connection came back (Redis restarted, a failover): what
        was relayed to it meanwhile is lost, so every relayed socket here ends with 1012 and
        its page comes back at once, resynced from the version it last saw."""
        for instance in {e.home for e in self.edges.values()} | {
            h.edge for h in self.homes.values()
        }:
            self.peer_lost(instance, CLOSE_SERVICE_RESTART)

    def peer_lost(self, instance: str, code: int) -> None:
        """End every socket relayed to or from ``instance``."""
        for edge in [e for e in self.edges.values() if e.home == instance]:
            edge.close = (code, "")
            edge.conn.end()
        for home in [h for h in self.homes.values() if h.edge == instance]:
            home.close(code)  # if its edge still lives, it closes the client's socket
            home.left(1006)

    # -- which instance serves a table ---------------------------------------------------

    async def home_of(self, table_id: str) -> str | None:
        """The instance a new socket of ``table_id`` is relayed to, or None: this one."""
        home = await self.homes_store.claim(table_id)
        if home != self.instance and not await self.alive(home):
            # Its lease has not run out yet, but it no longer renews its key.
            home = await self.homes_store.claim(table_id, dead=home)
        return None if home == self.instance else home

    async def release(self, table_id: str) -> None:
        """This instance no longer serves ``table_id``'s sockets."""
        await self.homes_store.release(table_id)

    # -- the edge ------------------------------------------------------------------------

    async def serve_edge(self, ws: WebSocket, table_id: str, home: str, address: str) -> None:
        """Pass an accepted socket's frames to ``home`` and back until either side ends."""
        sid = secrets.token_hex(8).encode()
        conn = Connection(ws.send_text, "relay:" + sid.decode(), None, wire=wire_of(ws))
        conn.start()
        edge = _Edge(sid, home, conn)
        self.edges[sid] = edge
        headers = [
            [k.decode("latin-1"), v.decode("latin-1")]
            for k, v in ws.scope.get("headers", [])
            if not k.lower().startswith(b"x-forwarded") and k.lower() != b"forwarded"
        ]
        opened = {
            "edge": self.instance,
            "table": table_id,
            "path": ws.scope.get("path", ""),
            "query": bytes(ws.scope.get("query_string", b"")).decode("latin-1"),
            "headers": headers,
            "client": address,
        }
        outbox = self.to(home)
        outbox.put(record(OPEN, sid, orjson.dumps(opened)))
        code = 1000
        limit = self.max_message_bytes + 1  # enough for the home to refuse it as too large
        try:
            while not conn.closed.is_set():
                msg = await conn.read(ws.receive)
                if msg is None:  # ended from this side (the home closed it, a peer lost)
                    break
                if msg["type"] == "websocket.disconnect":
                    code = int(msg.get("code") or 1000)
                    break
                if edge.sent is not None:
                    if len(edge.sent) < REPLAY_MESSAGES:
                        edge.sent.append(msg)
                    else:
                        edge.sent = None
                text = msg.get("text")
                if text is not None:
                    outbox.put(record(TEXT, sid, str(text)[:limit].encode()))
                else:
                    outbox.put(record(BYTES, sid, bytes(msg.get("bytes") or b"")[:limit]))
        finally:
            self.edges.pop(sid, None)
            if edge.close is None:
                self.to(home).put(record(GONE, sid, _CODE.pack(code)))
            await conn.stop()
            close = edge.close or ((4408, "") if conn.too_slow else None)
            if close is not None and not edge.refused:
                with contextlib.suppress(Exception):
                    await ws.close(close[0], close[1] or None)
        if edge.refused:
            await self._serve_here(ws, table_id, home, edge.sent or [])

    async def _serve_here(
        self, ws: WebSocket, table_id: str, home: str, sent: list[Message]
    ) -> None:
        """The home turned the socket away before answering it (it is stopping): this
        instance names itself the table's home and serves the socket, the client's first
        messages read again (it never learns it was relayed)."""
        assert self.handler is not None
        with contextlib.suppress(Exception):
            await self.homes_store.claim(table_id, dead=home)
        first: list[Message] = [{"type": "websocket.connect"}, *sent]
        receive, send = ws._receive, ws._send

        async def again() -> Message:
            return first.pop(0) if first else await receive()

        async def accepted(message: Message) -> None:
            if message["type"] != "websocket.accept":  # it was, by the relay
                await send(message)

        await self.handler(WebSocket(ws.scope, again, accepted), table_id)

    # -- the home ------------------------------------------------------------------------

    def _open_home(self, sid: bytes, payload: bytes) -> None:
        info = orjson.loads(payload)
        edge, table_id = str(info["edge"]), str(info["table"])
        home = _Home(self, sid, edge)
        if self.stopping or self.handler is None or self.app is None:
            home.close(CLOSE_SERVICE_RESTART)  # the page reconnects, elsewhere
            return
        path = str(info["path"])
        scope: dict[str, Any] = {
            "type": "websocket",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "scheme": "ws",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": str(info["query"]).encode("latin-1"),
            "headers": [
                (str(k).encode("latin-1"), str(v).encode("latin-1")) for k, v in info["headers"]
            ],
            "client": (str(info["client"]), 0),
            "server": None,
            "subprotocols": [],
            "state": {},
            "extensions": {},
            "app": self.app,
            "path_params": {"table_id": table_id},
        }
        ws = WebSocket(scope, home.receive, home.send)
        self.homes[sid] = home
        home.task = asyncio.create_task(self._serve_home(home, ws, table_id), name="relayed")

    async def _serve_home(self, home: _Home, ws: WebSocket, table_id: str) -> None:
        assert self.handler is not None
        try:
            await self.handler(ws, table_id)
        except Exception:
            log.exception("a relayed socket of table %s failed", table_id)
        finally:
            self.homes.pop(home.sid, None)
            home.close(1000)

    # -- messages ------------------------------------------------------------------------

    def to(self, instance: str) -> _Outbox:
        outbox = self._outboxes.get(instance)
        if outbox is None:
            outbox = self._outboxes[instance] = _Outbox(self, instance)
        return outbox

    async def publish(self, channel: str, data: bytes) -> None:
        if self.fast is not None:
            await self.fast.call_at(channel, "SPUBLISH", channel, data)
        else:
            await self.redis.spublish(channel, data)

    def on_message(self, _channel: str, data: bytes) -> None:
        try:
            items = list(records(data))
        except ValueError:
            log.error("relay: a message cut short (%d bytes) was dropped", len(data))
            return
        for kind, sid, payload in items:
            try:
                self._on_record(kind, sid, payload)
            except Exception:  # one socket's record: the others in the message still go
                log.exception("relay: a bad %r record", kind)

    def _on_record(self, kind: bytes, sid: bytes, payload: bytes) -> None:
        if kind == TEXT:
            edge = self.edges.get(sid)
            if edge is not None:
                edge.sent = None  # the home answered: it serves this socket
                edge.conn.send(payload)
                return
            home = self.homes.get(sid)
            if home is not None and not home.ended:
                text = payload.decode(errors="replace")
                self._to_home(home, {"type": "websocket.receive", "text": text})
        elif kind == BYTES:
            home = self.homes.get(sid)
            if home is not None and not home.ended:
                self._to_home(home, {"type": "websocket.receive", "bytes": payload})
        elif kind == OPEN:
            self._open_home(sid, payload)
        elif kind == GONE:
            home = self.homes.get(sid)
            if home is not None:
                home.left(_CODE.unpack_from(payload)[0] if len(payload) >= 2 else 1006)
        elif kind == CLOSE:
            edge = self.edges.get(sid)
            if edge is not None:
                code = _CODE.unpack_from(payload)[0] if len(payload) >= 2 else 1000
                edge.close = (code, payload[2:].decode(errors="replace"))
                # Turned away unanswered (the home is stopping): served here instead.
                edge.refused = code == CLOSE_SERVICE_RESTART and edge.sent is not None
                edge.conn.end()

    def _to_home(self, home: _Home, message: Message) -> None:
        try:
            home.inbox.put_nowait(message)
        except asyncio.QueueFull:
            # The client sends faster than the endpoint reads (it rate-limits and closes
            # such a socket itself; this bounds what waits meanwhile).
            home.close(CLOSE_POLICY, "policy")
            home.left(CLOSE_POLICY)

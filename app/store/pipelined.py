"""A small pipelined Redis client for the move path (one connection, replies in order).

redis-py spends about 100 us of the server's CPU on one EVALSHA under load (a pooled
connection per call, command objects, retries, its parser); the move path makes one per move.
This client writes each command straight to one shared connection and matches the replies in
order (Redis answers a connection's commands in the order they came), about 20 us a call.
It speaks only what the store needs: commands in, RESP2 integers, strings, arrays and errors
out. The rest of the server keeps using redis-py (pub/sub, streams, admin commands).
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.exceptions import ResponseError

from app.store.errors import StoreUnavailable

Reply = Any


# Error replies of a Redis that cannot serve now: restarting and reading its data back
# (LOADING), a replica cut from its master (MASTERDOWN), a master demoted to a replica while
# this connection stayed open (READONLY). A cluster's TRYAGAIN/CLUSTERDOWN/MOVED/ASK stay
# ReplyErrors: the cluster client follows them (app/store/cluster.py).
_AWAY = ("LOADING", "MASTERDOWN", "READONLY")


class ReplyError(ResponseError):
    """An error reply from Redis (``-ERR ...``, ``-NOSCRIPT ...``), as redis-py raises it."""


class ConnectFailed(StoreUnavailable):
    """No connection could be made (refused, unreachable, timed out): the command was never
    sent, so trying it again elsewhere is safe (the cluster client does, app/store/cluster.py)."""


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.buf = bytearray()
        self.waiters: collections.deque[asyncio.Future[Reply]] = collections.deque()
        self.transport: Any = None
        self.lost: BaseException | None = None
        # Commands written in one turn of the event loop leave in one write (one system call
        # for all the moves that commit together under load).
        self.out: list[bytes] = []
        # When Redis last answered, or the connection last went from idle to waiting: a
        # watchdog (PipelinedRedis stall_seconds) drops a connection that stopped answering.
        self.progress = time.monotonic()

    def write(self, data: bytes) -> None:
        if not self.out:
            asyncio.get_running_loop().call_soon(self.flush)
        self.out.append(data)

    def flush(self) -> None:
        out, self.out = self.out, []
        if out and self.lost is None:
            self.transport.write(b"".join(out))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.progress = time.monotonic()
        buf = self.buf
        buf += data
        pos = 0
        while self.waiters:
            parsed = _parse(buf, pos)
            if parsed is None:
                break
            value, pos = parsed
            waiter = self.waiters.popleft()
            if waiter.done():
                continue
            if isinstance(value, ReplyError):
                if str(value).startswith(_AWAY):
                    waiter.set_exception(StoreUnavailable(f"Redis is not serving: {value}"))
                else:
                    waiter.set_exception(value)
            else:
                waiter.set_result(value)
        if pos:
            del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or ConnectionError("Redis closed the connection")
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_exception(StoreUnavailable(f"lost the Redis connection: {self.lost}"))


def _parse(buf: bytearray, pos: int) -> tuple[Reply, int] | None:
    """One RESP2 reply from ``buf`` at ``pos``: (value, next position), or None if incomplete."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return None
    kind = buf[pos]
    line = bytes(buf[pos + 1 : end])
    pos = end + 2
    if kind == 0x3A:  # ':' integer
        return int(line), pos
    if kind == 0x24:  # '$' bulk string
        size = int(line)
        if size < 0:
            return None, pos
        if len(buf) < pos + size + 2:
            return None
        return bytes(buf[pos : pos + size]), pos + size + 2
    if kind == 0x2A:  # '*' array
        count = int(line)
        if count < 0:
            return None, pos
        items = []
        for _ in range(count):
            parsed = _parse(buf, pos)
            if parsed is None:
                return None
            item, pos = parsed
            items.append(item)
        return items, pos
    if kind == 0x2B:  # '+' simple string
        return line, pos
    if kind == 0x2D:  # '-' error
        return ReplyError(line.decode(errors="replace")), pos
    raise ConnectionError(f"unexpected Redis reply type {chr(kind)!r}")


def _encode(args: tuple[Any, ...]) -> bytes:
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode()
        elif isinstance(arg, int | float) and not isinstance(arg, bool):
            data = repr(arg).encode()
        else:
            raise TypeError(f"cannot send {type(arg).__name__} to Redis")
        parts += (b"$%d\r\n" % len(data), data, b"\r\n")
    return b"".join(parts)


class PipelinedRedis:
    """One connection, every command pipelined on it; reconnects on the next call after a
    failure (the commands in flight then fail with StoreUnavailable, a ConnectionError, as
    does a call while Redis cannot be reached)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 6379,
        *,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        connect_timeout: float = 5.0,
        stall_seconds: float | None = None,
    ) -> None:
        # The connection's parameters kept as given, as in other services' constructors (alike in
        # form only).
        self.host = host
        self.port = port
        self.db = db
        self.username = username
        self.password = password
        self.connect_timeout = connect_timeout
        # A connection with replies owed and no byte from Redis for this long is dropped (its
        # commands fail with StoreUnavailable): a master that hangs (a stopped process, a
        # partition) while the cluster promotes its replica. None: wait as long as it takes.
        self.stall_seconds = stall_seconds
        self._watchdog: asyncio.Task[None] | None = None
        self._proto: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None
        self._on_reconnect: list[Callable[[], None]] = []
        # The WAIT this event-loop turn's callers share, by (replicas, timeout).
        self._waits: dict[tuple[int, int], asyncio.Future[Reply]] = {}

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (not async) when a new connection replaces a lost one, before
        the command that made it is sent: Redis may have restarted, and lost its newest
        writes if it crashed, so copies of what it held are no longer to be trusted."""
        self._on_reconnect.append(callback)

    @classmethod
    def from_url(cls, url: str) -> PipelinedRedis | None:
        """A client for a plain ``redis://`` URL; None for anything else (TLS, sockets, a
        cluster: ``app.store.connection.make_fast`` picks the cluster's own client): the store
        then sends everything through redis-py."""
        parts = urlsplit(url)
        if parts.scheme != "redis" or not parts.hostname:
            return None
        db = 0
        path = parts.path.strip("/")
        if path:
            try:
                db = int(path)
            except ValueError:
                return None
        return cls(
            parts.hostname,
            parts.port or 6379,
            db=db,
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
        )

    async def _connection(self) -> _Protocol:
        proto = self._proto
        if proto is not None and proto.lost is None:
            return proto
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            proto = self._proto
            if proto is not None and proto.lost is None:
                return proto
            loop = asyncio.get_running_loop()
            try:
                _, made = await asyncio.wait_for(
                    loop.create_connection(_Protocol, self.host, self.port), self.connect_timeout
                )
            except OSError as exc:  # refused, unreachable, timed out
                raise ConnectFailed(f"cannot reach Redis at {self.host}:{self.port}") from exc
            proto = made
            setup: list[tuple[Any, ...]] = []
            if self.password is not None:
                auth = ("AUTH", self.username, self.password) if self.username else None
                setup.append(auth or ("AUTH", self.password))
            if self.db:
                setup.append(("SELECT", self.db))
            for command in setup:
                await self._send(proto, command)
            replaced, self._proto = self._proto, proto
            if self.stall_seconds is not None and self._watchdog is None:
                self._watchdog = asyncio.ensure_future(self._watch(self.stall_seconds))
            if replaced is not None:
                for callback in list(self._on_reconnect):
                    callback()
            return proto

    @staticmethod
    def _send(proto: _Protocol, args: tuple[Any, ...]) -> asyncio.Future[Reply]:
        waiter: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        if not proto.waiters:
            proto.progress = time.monotonic()
        proto.waiters.append(waiter)
        proto.write(_encode(args))
        return waiter

    async def call(self, *args: Any) -> Reply:
        """Send one command and wait for its reply (ReplyError for an error reply)."""
        proto = self._proto
        if proto is None or proto.lost is not None:
            proto = await self._connection()
        return await self._send(proto, args)

    async def call_at(self, key: str | bytes, *args: Any) -> Reply:
        """Send one command about ``key``: on Redis Cluster it goes to the master of the key's
        slot (ClusterPipelinedRedis); on one Redis this is ``call(*args)``. Use it for every
        command that names a key; ``call`` is for keyless ones."""
        proto = self._proto
        if proto is None or proto.lost is not None:
            proto = await self._connection()
        return await self._send(proto, args)

    async def call_asking(self, *args: Any) -> Reply:
        """ASKING then the command, back to back on this connection (a cluster's ASK
        redirect: the key's slot is being migrated here)."""
        proto = self._proto
        if proto is None or proto.lost is not None:
            proto = await self._connection()
        asking = self._send(proto, ("ASKING",))
        reply = self._send(proto, args)
        await asking
        return await reply

    async def wait_replicas(self, key: str | bytes, replicas: int, timeout_ms: int) -> int:
        """``WAIT replicas timeout_ms`` after the writes this client made about ``key`` (on a
        cluster: on the master of its slot): how many replicas have them, at most
        ``timeout_ms`` later. The callers of one event-loop turn share one WAIT per
        connection (a group commit): a WAIT covers every write its connection sent before
        it, and each caller's write got its reply, so was sent, before the WAIT was."""
        waiting = self._waits.get((replicas, timeout_ms))
        if waiting is None:
            waiting = asyncio.ensure_future(self.call("WAIT", replicas, timeout_ms))
            self._waits[(replicas, timeout_ms)] = waiting
            asyncio.get_running_loop().call_soon(self._waits.pop, (replicas, timeout_ms), None)
        return int(await asyncio.shield(waiting))

    async def _watch(self, stall: float) -> None:
        while True:
            await asyncio.sleep(stall / 4)
            proto = self._proto
            if (
                proto is not None
                and proto.lost is None
                and proto.waiters
                and time.monotonic() - proto.progress > stall
            ):
                proto.transport.abort()  # connection_lost fails what was owed

    async def aclose(self) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.cancel()
        proto, self._proto = self._proto, None
        if proto is not None and proto.transport is not None:
            proto.transport.close()

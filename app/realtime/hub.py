"""Per-instance fan-out: one hub per table with sockets here, fed by the table's channel.

The channel says only "version n changed" plus public events. On a state change each hub
reads the table once, builds one view per seat (and one for spectators), encodes each once,
and queues it to its own sockets. No hidden card ever crosses the shared channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import orjson

from app.realtime.limits import Limits
from app.realtime.lobby import LobbyHub
from app.realtime.state_messages import StateMessages, commit_time, time_of
from app.realtime.wire import closing, text_frame, writable
from app.stopping import STOP_SECONDS, cancel_until_done
from app.store import Fanout, TableStore, keys
from app.store.errors import STORE_DOWN
from app.tables import TableError, TableService

log = logging.getLogger(__name__)

# A hub that could not read its table reads it again after this, doubling up to the max.
RETRY_FIRST_SECONDS = 0.25
RETRY_MAX_SECONDS = 5.0

OUTBOX_LIMIT = 256  # queued messages per socket before it is dropped as too slow

SendText = Callable[[str], Coroutine[Any, Any, None]]
T = TypeVar("T")


class Connection:
    """One client socket on one table: an ordered outgoing queue and what it has seen."""

    def __init__(
        self,
        send_text: SendText,
        player_key: str,
        player_id: str | None,
        compact: bool = False,
        wire: Any = None,
    ) -> None:
        self._send_text = send_text
        # The server's protocol object when frames may be written to its transport directly
        # (app/realtime/wire.py), and the frames waiting for this turn of the loop to end.
        self._wire = wire
        self._out: list[bytes] = []
        self._loop = asyncio.get_running_loop() if wire is not None else None
        self.player_key = player_key  # player id, or "anon:<socket id>"
        self.player_id = player_id
        self.state_version = 0  # last version whose state this socket was sent
        self.event_version = 0  # last version whose events this socket was sent
        # Compact states (hello "compact": true): the score sheet only when a hand ended, the
        # table only when it changed since what this socket was last sent.
        self.compact = compact
        self.sheet_hands = -1  # view.hands_played of the last sheet sent
        self.table_json: bytes | None = None  # the last "table" sent
        self.queue: asyncio.Queue[bytes | _Suspended | None] = asyncio.Queue(OUTBOX_LIMIT)
        self.closed = asyncio.Event()
        self.too_slow = False
        self.session_ended = False  # the player signed out (or changed password) meanwhile
        self._writer: asyncio.Task[None] | None = None
        self._queued = False  # sends wait in the queue (one could not finish at once)
        # Called once when the socket is closed from this side: set while ``read`` waits.
        self.on_close: Callable[[], Any] | None = None

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write())

    def send(self, data: bytes) -> None:
        """Send now if the socket takes it (the usual case: the ASGI send does not wait unless
        the client is slow to read), else queue it behind the sends that wait. On uvicorn's
        protocol (``wire``), a send the transport takes is framed here and written with the
        socket's other sends of this turn of the event loop, in one write (app/realtime/wire.py)."""
        if self.closed.is_set():
            return
        wire = self._wire
        if wire is not None and not self._queued and writable(wire):
            # Framed here and written at the end of this turn of the loop, with whatever else
            # this socket is sent meanwhile (the mover's ack and its new state: one write).
            if not self._out:
                assert self._loop is not None
                self._loop.call_soon(self._flush)
            self._out.append(text_frame(data))
            return
        if self._out:
            self._flush()  # what was framed goes first
        if not self._queued:
            # Run the send to its end here, saving a task switch per message per socket.
            coro = self._send_text(data.decode())
            try:
                waiting = coro.send(None)
            except StopIteration:
                return
            except Exception:
                self._close()
                return
            # The transport pushed back: the writer task finishes this send, and later ones
            # queue behind it, in order.
            self._queued = True
            self.queue.put_nowait(_Suspended(coro, waiting))
            return
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:
            # The client reads too slowly: drop it; it reconnects with its last version.
            self.too_slow = True
            self._close()

    def _flush(self) -> None:
        """Write the frames waiting for this socket, in one write."""
        out = self._out
        if not out:
            return
        data = out[0] if len(out) == 1 else b"".join(out)
        out.clear()
        wire = self._wire
        if closing(wire):
            return
        try:
            wire.transport.write(data)
        except Exception:
            self._close()

    def end_session(self) -> None:
        """The token this socket signed in with is no longer valid: close it (4401)."""
        self.session_ended = True
        self._close()

    def end(self) -> None:
        """Close the socket from this side (what was sent before goes first)."""
        self._close()

    async def read(self, receive: Callable[[], Awaitable[T]]) -> T | None:
        """The client's next message (``await receive()``), or None once the socket is
        closed from this side (writer failed, too slow, session ended, the relay ended it):
        the wait is cancelled then, so the reader stops waiting for the client."""
        if self.closed.is_set():
            return None
        task = asyncio.current_task()
        assert task is not None
        self.on_close = task.cancel
        try:
            return await receive()
        except asyncio.CancelledError:
            if self.closed.is_set():
                task.uncancel()
                return None
            raise
        finally:
            self.on_close = None

    def _close(self) -> None:
        if not self.closed.is_set():
            self.closed.set()
            callback, self.on_close = self.on_close, None
            if callback is not None:
                callback()

    async def _write(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if item is None:
                    return
                if isinstance(item, _Suspended):
                    await item.finish()
                else:
                    await self._send_text(item.decode())
                if self.queue.empty():
                    self._queued = False
        except Exception:
            self._close()

    async def stop(self) -> None:
        self._flush()  # what was sent before the socket closes goes out before its close
        self._close()
        if self._writer is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
            await cancel_until_done(self._writer, STOP_SECONDS, "a socket's writer")


class _Suspended:
    """A send that had to wait (the transport paused writing): driven on to its end."""

    def __init__(self, coro: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.coro = coro
        self.waiting = waiting

    async def finish(self) -> None:
        coro, waiting = self.coro, self.waiting
        try:
            while True:
                if waiting is None:
                    await asyncio.sleep(0)
                else:
                    # Do what a task does with a future its coroutine yields: take it off
                    # "blocking" and wait for it; the coroutine reads the outcome on resuming.
                    waiting._asyncio_future_blocking = False
                    with contextlib.suppress(Exception):
                        await waiting
                waiting = coro.send(None)
        except StopIteration:
            return
        finally:
            coro.close()


class _Join:
    """A socket joining: handled in the hub's own queue, so it is ordered with notices."""

    def __init__(self, conn: Connection, last_version: int | None) -> None:
        self.conn = conn
        self.last_version = last_version
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class TableHub:
    def __init__(self, hubs: Hubs, table_id: str) -> None:
        self.hubs = hubs
        self.table_id = table_id
        self.conns: set[Connection] = set()
        self.state_version = 0
        # The newest change notice queued here. Notices come in commit order from the table's
        # channel; a change this instance committed is also queued at once (no wait for the
        # channel), but only when it is the very next version, so the order always holds.
        self.note_version = 0
        # When the newest notice's change was committed (its "t", ms). A notice of a version
        # seen already but committed later than that means the table went back (Redis lost
        # its last writes, a failover to a replica behind, a restored backup): its sockets
        # are resynced, whatever made it go back (``went_back``).
        self.note_t = -math.inf
        self._went_back = False  # a resync for a table that went back is queued
        self._notes: asyncio.Queue[dict[str, Any] | _Join] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        # A notice whose table could not be read (Redis down, a failover under way) is read
        # again later: else its change reaches these sockets only with the table's next one,
        # and a table waiting for one of them would wait for ever.
        self._retry: asyncio.TimerHandle | None = None
        self._retry_delay = RETRY_FIRST_SECONDS
        self.pending = 0  # joins queued or running
        # Spectators: the newest count known here (sequence number orders the counts that
        # come from the channel and from this instance's own sockets), the count last sent to
        # the sockets and when; sent batched, at most every spectators_every_seconds.
        self.spectators = 0
        self.spectators_seq = -1
        self._spectators_sent: int | None = None
        self._spectators_at = -math.inf
        self._spectators_task: asyncio.Task[None] | None = None

    def enqueue_join(self, conn: Connection, last_version: int | None) -> _Join:
        """Add a socket: replay what it missed since ``last_version`` (or send a snapshot)."""
        join = _Join(conn, last_version)
        self.pending += 1
        self._notes.put_nowait(join)
        return join

    async def _join(self, join: _Join) -> None:
        conn = join.conn
        table, state = await self.hubs.service.read(self.table_id)
        last = join.last_version
        resync = False
        if last is not None and last < table.version:
            entries = [orjson.loads(e) for e in await self.hubs.store.read_log(self.table_id)]
            if entries and int(entries[0]["v"]) <= last + 1:
                for entry in entries:
                    version = int(entry["v"])
                    if version > last and entry.get("events"):
                        conn.send(
                            orjson.dumps(
                                {
                                    "type": "events",
                                    "version": version,
                                    "events": entry["events"],
                                    "replay": True,
                                }
                            )
                        )
                    conn.event_version = max(conn.event_version, version)
            else:
                resync = True
        conn.event_version = max(conn.event_version, table.version)
        if last is None or last < table.version or last > table.version:
            seat = table.seat_of(conn.player_id) if conn.player_id else None
            conn.sheet_hands, conn.table_json = -1, None  # a join gets everything
            now_ms = self.hubs.service.clock()
            msg = StateMessages(table, state, None, now_ms).for_socket(conn, seat, False)
            if resync or (last is not None and last > table.version):
                msg = msg[:-1] + b',"resync":true}'
            conn.send(msg)
        # Only this socket saw that version: the hub's ``state_version`` (what every socket
        # was sent) stays, or a change committed before this join read the table, whose notice
        # is still queued, would reach none of the other sockets.
        conn.state_version = table.version
        self.conns.add(conn)

    def on_message(self, _channel: str, data: bytes) -> None:
        if data.startswith(b'{"sp":'):  # a spectator count (app/store/sockets.py), no version
            try:
                note = orjson.loads(data)
                self.note_spectators(int(note["sp"]), int(note["q"]))
            except Exception:
                log.error("hub %s: bad spectator notice %r", self.table_id, data[:100])
            return
        # A notice begins {"v":N, (the service writes it so): one this instance has queued
        # already (it committed the change) is dropped without parsing it.
        if data.startswith(b'{"v":'):
            end = data.find(b",", 5)
            if 5 < end < 25 and data[5:end].isdigit() and int(data[5:end]) <= self.note_version:
                self._seen_again(commit_time(data))
                return
        try:
            note = orjson.loads(data)
            version = int(note["v"])
        except Exception:
            log.error("hub %s: bad notice %r", self.table_id, data[:100])
            return
        if version > self.note_version:  # else this instance queued it already
            self.note_version = version
            self.note_t = max(self.note_t, time_of(note))
            self._notes.put_nowait(note)
        else:
            self._seen_again(time_of(note))

    def _seen_again(self, committed_ms: float) -> None:
        """A notice of a version this hub has queued already: the same change again (this
        instance's own commit coming back from the channel), unless it was committed after
        the newest notice, when the table went back."""
        if committed_ms > self.note_t:
            self.note_t = committed_ms
            self.went_back()

    def went_back(self) -> None:
        """The table's version went back: read it afresh, and every socket that saw more
        gets the state Redis holds, marked ``resync`` (once, however many notices say so)."""
        if not self._went_back:
            self._went_back = True
            log.warning("hub %s: the table's version went back; resyncing", self.table_id)
            self.resync()

    def resync(self) -> None:
        """Read the table afresh and send each socket the newer state, if any (after the
        pub/sub subscriber reconnected: the notices published meanwhile never came)."""
        self._notes.put_nowait({"resync": True})

    def committed_here(self, note: dict[str, Any]) -> None:
        """This instance just committed the change ``note`` describes."""
        version = int(note["v"])
        if version == self.note_version + 1:
            self.note_version = version
            self.note_t = max(self.note_t, time_of(note))
            self._notes.put_nowait(note)
        elif version <= self.note_version:
            self._seen_again(time_of(note))

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"hub:{self.table_id}")
        await self.hubs.fanout.subscribe(keys.channel(self.table_id), self.on_message)

    def note_spectators(self, count: int, seq: int) -> None:
        """A newer spectator count: sent to this hub's sockets batched (one message per
        ``spectators_every_seconds`` at most, however many come and go)."""
        if seq < self.spectators_seq:
            return
        self.spectators_seq, self.spectators = seq, max(0, count)
        if self._spectators_task is None or self._spectators_task.done():
            self._spectators_task = asyncio.create_task(self._send_spectators())

    def spectators_message(self) -> bytes:
        return orjson.dumps(
            {"type": "spectators", "table_id": self.table_id, "count": self.spectators}
        )

    async def _send_spectators(self) -> None:
        every = self.hubs.service.settings.spectators_every_seconds
        wait = self._spectators_at + every - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        if self.spectators == self._spectators_sent:
            return
        self._spectators_sent = self.spectators
        self._spectators_at = time.monotonic()
        msg = self.spectators_message()
        for conn in list(self.conns):
            conn.send(msg)

    async def stop(self) -> None:
        await self.hubs.fanout.unsubscribe(keys.channel(self.table_id), self.on_message)
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._spectators_task is not None:
            self._spectators_task.cancel()
        if self._task is not None:
            # A cancellation can be swallowed by a library the task was awaiting (seen with
            # the Redis clients under load): cancelled until done, within a bound, so closing
            # the last socket never hangs (app/stopping.py).
            await cancel_until_done(self._task, STOP_SECONDS, f"table {self.table_id}'s hub")

    async def _run(self) -> None:
        while True:
            data = await self._notes.get()
            if isinstance(data, _Join):
                try:
                    await self._join(data)
                    data.done.set_result(None)
                except Exception as exc:
                    data.done.set_exception(exc)
                finally:
                    self.pending -= 1
                continue
            try:
                await self._handle(data)
                self._retry_delay = RETRY_FIRST_SECONDS
            except STORE_DOWN as exc:
                log.warning(
                    "hub %s: table not read (%s); again in %.2f s",
                    self.table_id,
                    exc,
                    self._retry_delay,
                )
                self._read_again_later()
            except TableError as exc:
                if exc.code == "unknown_table":
                    gone = orjson.dumps(
                        {"type": "error", "code": "unknown_table", "message": exc.message}
                    )
                    for conn in list(self.conns):
                        conn.send(gone)
            except Exception:
                log.exception("hub %s failed on a notice", self.table_id)

    def _read_again_later(self) -> None:
        if self._retry is not None:
            return
        delay = self._retry_delay
        self._retry_delay = min(delay * 2, RETRY_MAX_SECONDS)

        def again() -> None:
            self._retry = None
            self.resync()

        self._retry = asyncio.get_running_loop().call_later(delay, again)

    async def _resync(self) -> None:
        """After the subscriber reconnected: send what the sockets missed. If Redis came back
        behind what was announced (a crash lost its last writes), start again from what it
        holds: its next changes reuse those version numbers, and each socket that saw more
        gets a full state marked ``resync`` (the page takes it over its newer one)."""
        self._went_back = False
        self.hubs.service.forget(self.table_id)
        table, state = await self.hubs.service.read(self.table_id)
        if table.version < max(self.note_version, self.state_version):
            self.note_version = self.state_version = table.version
            messages = StateMessages(table, state, None, self.hubs.service.clock())
            for conn in list(self.conns):
                if conn.state_version <= table.version:
                    continue
                conn.sheet_hands, conn.table_json = -1, None  # it gets everything
                conn.state_version = conn.event_version = table.version
                seat = table.seat_of(conn.player_id) if conn.player_id else None
                conn.send(messages.for_socket(conn, seat, False)[:-1] + b',"resync":true}')
        await self.push_state()

    async def _handle(self, note: dict[str, Any]) -> None:
        if note.get("resync"):
            await self._resync()
            return
        version = int(note["v"])
        events = note.get("events") or []
        if note.get("s") and version > self.state_version:
            # The events ride in the state message: one send per socket per change.
            await self.push_state(events=(version, events) if events else None, at_least=version)
            delivered, committed_ms = self.hubs.delivered, note.get("t")
            if delivered is not None and isinstance(committed_ms, float | int):
                delivered((self.hubs.service.clock() - committed_ms) / 1000)
        if events:
            msg = orjson.dumps({"type": "events", "version": version, "events": events})
            for conn in list(self.conns):
                if version > conn.event_version:
                    conn.event_version = version
                    conn.send(msg)

    async def push_state(
        self,
        only: Connection | None = None,
        events: tuple[int, list[Any]] | None = None,
        at_least: int | None = None,
    ) -> None:
        """Send each socket its view of the newest state (once per version per socket)."""
        table, state = await self.hubs.service.read(self.table_id, at_least)
        self.state_version = max(self.state_version, table.version)
        targets = [only] if only is not None else list(self.conns)
        messages: StateMessages | None = None
        for conn in targets:
            if conn.state_version >= table.version:
                continue
            if messages is None:
                messages = StateMessages(table, state, events, self.hubs.service.clock())
            seat = table.seat_of(conn.player_id) if conn.player_id else None
            with_events = events is not None and events[0] > conn.event_version
            conn.state_version = table.version
            if with_events and events is not None:
                conn.event_version = events[0]
            conn.send(messages.for_socket(conn, seat, with_events))


class Hubs:
    """This instance's table hubs, created on the first socket and dropped with the last."""

    def __init__(self, service: TableService, fanout: Fanout, store: TableStore) -> None:
        self.service = service
        self.fanout = fanout
        self.store = store
        self.tables: dict[str, TableHub] = {}
        self._lock = asyncio.Lock()
        self.lobby = LobbyHub(store, fanout, service.settings)
        service.committed = self.committed_here
        service.lobby_changed = self.lobby.feed.changed_here
        # Sockets and messages per player, address and table (app/realtime/limits.py).
        self.limits = Limits(store.redis, service.sockets, service.settings)
        # Told each change's commit-to-send time in seconds (app/metrics.py).
        self.delivered: Callable[[float], None] | None = None
        # Set when the server is shutting down: new sockets are told to go elsewhere (1012).
        self.closing = False
        # Changes published while the pub/sub subscriber was away (Redis restarted) are lost:
        # each hub then reads its table once and sends what its sockets have not seen.
        fanout.on_reconnect(self.resync_all)

    def resync_all(self) -> None:
        for hub in self.tables.values():
            hub.resync()

    def committed_here(self, table_id: str, note: dict[str, Any]) -> None:
        hub = self.tables.get(table_id)
        if hub is not None:
            hub.committed_here(note)

    async def join(self, table_id: str, conn: Connection, last_version: int | None) -> TableHub:
        async with self._lock:
            hub = self.tables.get(table_id)
            if hub is None:
                hub = TableHub(self, table_id)
                self.tables[table_id] = hub
                await hub.start()
            join = hub.enqueue_join(conn, last_version)
        await join.done
        return hub

    async def leave(self, table_id: str, conn: Connection) -> None:
        async with self._lock:
            hub = self.tables.get(table_id)
            if hub is None:
                return
            hub.conns.discard(conn)
            if not hub.conns and hub.pending == 0:
                del self.tables[table_id]
                await hub.stop()
                self.service.forget(table_id)

    async def close(self) -> None:
        await self.limits.stop()
        for table_id in list(self.tables):
            hub = self.tables.pop(table_id)
            await hub.stop()
        await self.lobby.stop()

    @property
    def sockets(self) -> int:
        return sum(len(h.conns) for h in self.tables.values()) + len(self.lobby.conns)

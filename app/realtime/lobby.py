"""The public lobby: an in-memory index on each instance, read in filtered pages.

Each instance keeps the public tables' lobby lines (the Redis hashes
``{s:K.N}:<namespace>:lobby``, one per shard, written by the table commit) in memory: loaded
once, in chunks (HSCAN, shard after shard), on its first lobby read; then kept current from the
lobby channel (each message names a table whose line changed; the changed lines of a quarter of
a second are read in one round trip, an HMGET per shard); and compared
with Redis every ``lobby_resync_seconds``, so a lost pub/sub message cannot leave it wrong for
longer. That sweep also drops the lines of tables that expired.

The index itself (filters, cursors, entries, pages) is app.realtime.lobby_index.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from app.realtime import messages as m
from app.realtime.lobby_index import (
    ListKey,
    LobbyEntry,
    LobbyError,
    LobbyFilter,
    LobbyIndex,
    SortKey,
    encode_cursor,
    join_lines,
    page_json,
    parse_filter,
    parse_limit,
)
from app.settings import Settings
from app.stopping import STOP_SECONDS, cancel_until_done
from app.store import Fanout, TableStore

log = logging.getLogger(__name__)

Listener = Callable[[set[str], set[ListKey]], None]


class LobbyFeed:
    """Keeps one LobbyIndex current with Redis (see the module's docstring)."""

    BATCH_SECONDS = 0.25
    SCAN_COUNT = 500

    def __init__(
        self,
        store: TableStore,
        fanout: Fanout,
        *,
        resync_seconds: float = 60.0,
        clock: Callable[[], float] = lambda: time.time() * 1000,
    ) -> None:
        self.store = store
        self.fanout = fanout
        self.resync_seconds = resync_seconds
        self.clock = clock
        self.index = LobbyIndex()
        # Called after each applied batch with the tables whose line changed and the filters
        # whose lists they were or are in.
        self.listeners: list[Listener] = []
        self.pending: set[str] = set()  # tables whose line changed, not yet read
        self._loading: asyncio.Task[None] | None = None
        self._loaded = False
        self._stopped = False
        self._flush_task: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        # The lobby channel's messages published while the pub/sub subscriber was away (Redis
        # restarted) are lost: compare with Redis as soon as it is back, not at the next sweep.
        self._catch_up: asyncio.Task[None] | None = None
        fanout.on_reconnect(self._reconnected)

    def _reconnected(self) -> None:
        if self._loaded and not self._stopped:
            self._catch_up = asyncio.create_task(self._resync_logged(), name="lobby-catch-up")

    async def _resync_logged(self) -> None:
        try:
            await self.resync()
        except Exception:
            log.exception("lobby resync failed")

    async def ready(self) -> LobbyIndex:
        """The index, loaded (the first call loads it; later ones return at once)."""
        if not self._loaded:
            if self._loading is None or (self._loading.done() and self._loading.exception()):
                self._loading = asyncio.create_task(self._load(), name="lobby-load")
            await asyncio.shield(self._loading)
        return self.index

    async def _load(self) -> None:
        # Subscribe first: a change made while the hash is read is applied after it.
        await self.fanout.subscribe(self.store.lobby_channel, self.on_message)
        try:
            cursor = 0
            while True:
                cursor, lines = await self.store.scan_lobby(cursor, self.SCAN_COUNT)
                for table_id, raw in lines.items():
                    self.index.put(table_id, raw)
                if cursor == 0:
                    break
            await self._drop_expired()
        except BaseException:
            await self.fanout.unsubscribe(self.store.lobby_channel, self.on_message)
            self.index = LobbyIndex()
            raise
        self._loaded = True
        self._sweeper = asyncio.create_task(self._sweep(), name="lobby-resync")
        if self.pending:
            self._schedule()

    def on_message(self, _channel: str, data: bytes) -> None:
        if self._stopped:
            return
        self.pending.add(data.decode())
        if self._loaded:
            self._schedule()

    def changed_here(self, table_id: str) -> None:
        """This instance just committed a change of the table's lobby line: the next page
        read here includes it (the channel's message may come later)."""
        if self._loaded and not self._stopped:
            self.pending.add(table_id)
            self._schedule()

    def _schedule(self) -> None:
        if self._flush_task is None or self._flush_task.done():
            self._flush_task = asyncio.create_task(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(self.BATCH_SECONDS)
        await self.flush()

    async def flush(self) -> None:
        """Read the changed tables' lines (one round trip) and apply them."""
        async with self._lock:
            if not self.pending:
                return
            ids = sorted(self.pending)
            self.pending = set()
            try:
                lines = await self.store.lobby_lines(ids)
            except Exception:
                log.exception("lobby: could not read %d changed lines; retrying", len(ids))
                self.pending.update(ids)
                self._schedule()
                return
            self._apply(zip(ids, lines, strict=True))

    def _apply(self, items: Iterable[tuple[str, bytes | None]]) -> None:
        changed: set[str] = set()
        touched: set[ListKey] = set()
        for table_id, raw in items:
            old, new = self.index.put(table_id, raw)
            if old is new:
                continue
            changed.add(table_id)
            for entry in (old, new):
                if entry is not None:
                    touched.update(entry.list_keys())
        if changed:
            for listener in self.listeners:
                try:
                    listener(changed, touched)
                except Exception:
                    log.exception("lobby listener failed")

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.resync_seconds)
            await self._resync_logged()

    async def resync(self) -> None:
        """Compare the index with Redis and drop expired tables' lines. Whatever differs is
        read again through the batch path (so the newest line wins, whatever the order of
        the replies)."""
        known = set(self.index.entries)
        seen: set[str] = set()
        cursor = 0
        while True:
            cursor, lines = await self.store.scan_lobby(cursor, self.SCAN_COUNT)
            for table_id, raw in lines.items():
                seen.add(table_id)
                entry = self.index.entries.get(table_id)
                if entry is None or entry.raw != raw:
                    self.pending.add(table_id)
            if cursor == 0:
                break
            await asyncio.sleep(0)  # a large lobby is compared in slices
        # A complete HSCAN (of every shard) returns every line present throughout: one known
        # but not returned was removed meanwhile (the HMGET confirms).
        self.pending.update(known - seen)
        await self._drop_expired()
        await self.flush()

    async def _drop_expired(self) -> None:
        """A line's expiry time is the table's when the line was written; a table that
        changed since lives longer. Tables past it are looked up; lines of gone ones are
        removed from Redis (every instance hears of it) and from here."""
        now = self.clock()
        due = [e.id for e in self.index.entries.values() if e.expires_ms < now]
        if not due:
            return
        alive = await self.store.tables_alive(due)
        dead = [t for t in due if t not in alive]
        if dead:
            await self.store.drop_lobby_entries(dead)
            self._apply((t, None) for t in dead)

    async def stop(self) -> None:
        # The channel's handler stays with the fanout, which stops right after (Hubs.close):
        # unsubscribing redis-py's PubSub while its reader waits made that stop hang.
        self._stopped = True
        self._loaded = False
        for task in (self._flush_task, self._sweeper, self._loading, self._catch_up):
            if task is not None and not task.done():
                await cancel_until_done(task, STOP_SECONDS, f"the lobby's {task.get_name()}")


class Sender(Protocol):
    def send(self, data: bytes) -> None: ...


@dataclass(slots=True)
class _View:
    """What one lobby socket shows: the first ``window`` tables of its filter."""

    filter: LobbyFilter
    page: int  # tables a "more" adds
    window: int
    shown: tuple[str, ...]  # ids sent, newest first
    total: int


class LobbyHub:
    """The lobby sockets of this instance and the HTTP lobby reads, over one LobbyFeed.

    A socket shows the newest ``window`` tables of its filter (its first page, grown by
    ``more``). After each batch of changes it gets only what changed in that window, and the
    filter's new count: a ``lobby_update`` of at most ``page_max`` lines (more lines are split
    over several messages), and only when a changed table is or was under its filter.
    """

    def __init__(self, store: TableStore, fanout: Fanout, settings: Settings) -> None:
        self.feed = LobbyFeed(store, fanout, resync_seconds=settings.lobby_resync_seconds)
        self.feed.listeners.append(self._changed)
        self.page_size = settings.lobby_page_size
        self.page_max = settings.lobby_page_max
        self.max_tables = settings.lobby_socket_max_tables
        self.conns: dict[Sender, _View] = {}

    # -- HTTP ----------------------------------------------------------------------------

    def parse_query(
        self, variant: object, free_seats: object, limit: object, pace: object = None
    ) -> tuple[LobbyFilter, int]:
        return (
            parse_filter(variant, free_seats, pace),
            parse_limit(limit, self.page_size, self.page_max),
        )

    async def read_page(
        self,
        f: LobbyFilter,
        cursor: SortKey | None,
        limit: int,
        players: Collection[str] = (),
    ) -> bytes:
        """One page of the filter after ``cursor`` as JSON. ``players``: the hook for
        "friends' tables first" (their tables come first in ``first`` on the first page);
        nobody passes it until friends exist."""
        index = await self.feed.ready()
        if self.feed.pending:
            await self.feed.flush()  # changes already announced: read them before answering
        entries = index.page(f, cursor, limit)
        next_cursor = None
        if entries and index.has_after(f, entries[-1].key):
            next_cursor = encode_cursor(entries[-1].key)
        first = index.of_players(f, players, limit) if players and cursor is None else None
        return page_json(f, entries, index.count(f), next_cursor, first)

    def line(self, table_id: str) -> dict[str, Any] | None:
        """A listed table's lobby line, or None (app.friends: can a friend's table be joined)."""
        entry = self.feed.index.entries.get(table_id)
        return None if entry is None else dict(orjson.loads(entry.raw))

    # -- sockets -------------------------------------------------------------------------

    async def join(self, conn: Sender, f: LobbyFilter, limit: int) -> None:
        """A new lobby socket: its first page now, then its updates."""
        await self.feed.ready()
        self.subscribe(conn, f, limit)

    def subscribe(self, conn: Sender, f: LobbyFilter, limit: int) -> None:
        """Show the first ``limit`` tables of ``f`` (a ``lobby`` message replaces the list)."""
        index = self.feed.index
        entries = index.page(f, None, limit)
        total = index.count(f)
        self.conns[conn] = _View(f, limit, limit, tuple(e.id for e in entries), total)
        conn.send(
            b"".join(
                (
                    b'{"type":"lobby","filter":',
                    orjson.dumps(f.to_json()),
                    b',"limit":',
                    str(limit).encode(),
                    b',"total":',
                    str(total).encode(),
                    b',"more":',
                    b"true" if total > len(entries) else b"false",
                    b',"tables":',
                    join_lines(entries),
                    b"}",
                )
            )
        )

    def more(self, conn: Sender) -> None:
        """Follow the next page of the socket's filter too (a ``lobby_update`` adds it)."""
        view = self.conns.get(conn)
        if view is None:
            return
        room = self.max_tables - view.window
        if room <= 0:
            raise LobbyError(
                "lobby_list_full",
                f"a lobby socket follows at most {self.max_tables} tables: narrow the filter "
                "or page with GET /api/tables",
                {"limit": self.max_tables},
            )
        index = self.feed.index
        after = index.entries[view.shown[-1]].key if view.shown else None
        if after is None or len(view.shown) < view.window:
            entries = []  # the socket shows every table of its filter already
        else:
            entries = index.page(view.filter, after, min(view.page, room))
        view.window += min(view.page, room)
        view.shown += tuple(e.id for e in entries)
        view.total = index.count(view.filter)
        for msg in self._update_messages(entries, [], view.total, view):
            conn.send(msg)

    def leave(self, conn: Sender) -> None:
        self.conns.pop(conn, None)

    def _update_messages(
        self, sent: list[LobbyEntry], removed: list[str], total: int, view: _View
    ) -> list[bytes]:
        more = b"true" if total > len(view.shown) else b"false"
        tail = b',"total":' + str(total).encode() + b',"more":' + more + b"}"
        chunks = [sent[i : i + self.page_max] for i in range(0, len(sent), self.page_max)] or [[]]
        out = []
        for i, chunk in enumerate(chunks):
            out.append(
                b'{"type":"lobby_update","tables":'
                + join_lines(chunk)
                + b',"removed":'
                + orjson.dumps(removed if i == 0 else [])
                + tail
            )
        return out

    def _changed(self, changed: set[str], touched: set[ListKey]) -> None:
        index = self.feed.index
        done: dict[tuple[LobbyFilter, int, tuple[str, ...], int], tuple[Any, ...]] = {}
        for conn, view in list(self.conns.items()):
            if view.filter.list_key not in touched:
                continue
            key = (view.filter, view.window, view.shown, view.total)
            result = done.get(key)
            if result is None:
                entries = index.page(view.filter, None, view.window)
                ids = tuple(e.id for e in entries)
                total = index.count(view.filter)
                had = set(view.shown)
                now = set(ids)
                removed = [i for i in view.shown if i not in now]
                sent = [e for e in entries if e.id not in had or e.id in changed]
                msgs: list[bytes] = []
                if removed or sent or total != view.total:
                    view.shown = ids  # _update_messages reads "more" from it
                    msgs = self._update_messages(sent, removed, total, view)
                result = done[key] = (ids, total, msgs)
            view.shown, view.total = result[0], result[1]
            for msg in result[2]:
                conn.send(msg)

    async def stop(self) -> None:
        self.conns.clear()
        await self.feed.stop()


def parse_lobby_message(raw: str | bytes, max_bytes: int) -> dict[str, Any]:
    """A lobby socket's message: ``ping``, ``subscribe`` or ``more``; ``hello`` (sign in with
    a token) and ``away`` are app.friends'."""
    if len(raw) > max_bytes:
        raise m.ProtocolError("too_large", f"messages are limited to {max_bytes} bytes")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise m.ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise m.ProtocolError("bad_message", "a message is a JSON object with a 'type'")
    if data.get("type") not in LOBBY_CLIENT_TYPES:
        raise m.ProtocolError(
            "unknown_type",
            f"the lobby socket answers {', '.join(LOBBY_CLIENT_TYPES)}",
        )
    return data


LOBBY_CLIENT_TYPES = ("ping", "subscribe", "more", "hello", "away")

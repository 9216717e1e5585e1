"""The public lobby: an in-memory index on each instance, read in filtered pages.

Each instance keeps the public tables' lobby lines (the Redis hashes
``{s:K.N}:<namespace>:lobby``, one per shard, written by the table commit) in memory: loaded
once, in chunks (HSCAN, shard after shard), on its first lobby read; then kept current from the
lobby channel (each message names a table whose line changed; the changed lines of a quarter of
a second are read in one round trip, an HMGET per shard); and compared
with Redis every ``lobby_resync_seconds``, so a lost pub/sub message cannot leave it wrong for
longer. That sweep also drops the lines of tables that expired.

The index keeps one sorted list of keys per filter (variant, at least k free seats), newest
table first, so a page is a bisection and a slice: what a lobby read costs depends on the page
size, not on the number of tables. A cursor names the position after the last table of a page
(its creation time and id), so a walk of pages sees every table that stays listed exactly once,
whatever is created or removed meanwhile.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import re
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from app import engine
from app.realtime import messages as m
from app.settings import Settings
from app.store import Fanout, TableStore
from app.tables.model import lobby_listed

log = logging.getLogger(__name__)

# The variant filter is the game family, as the lobby page groups presets.
PRESET_GAME: dict[str, str] = {name: rules.game for name, rules in engine.PRESETS.items()}
VARIANTS: tuple[str, ...] = tuple(sorted(set(PRESET_GAME.values())))
MAX_FREE_SEATS = 8  # more than any table has

SortKey = tuple[int, str]  # (-created_ms, table id): ascending order is newest first
ListKey = tuple[str | None, int]  # (variant or None for all, at least this many free seats)

_CURSOR = re.compile(r"^(\d{1,16})\.([A-Za-z0-9_-]{1,64})$")
_SMALL_INT = re.compile(r"^\d{1,4}$")


class LobbyError(ValueError):
    """A filter, limit or cursor the lobby refuses (HTTP 422, a socket ``error``); nothing
    changes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class LobbyFilter:
    variant: str | None = None  # a game family (VARIANTS), None: every table
    free_seats: int = 0  # at least this many seats a newcomer can take (0: any table)

    @property
    def list_key(self) -> ListKey:
        return (self.variant, self.free_seats)

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "free_seats": self.free_seats}


def _small_int(value: object) -> int | None:
    """An int from JSON (not a bool) or from a query string of digits, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _SMALL_INT.match(value):
        return int(value)
    return None


def parse_filter(variant: object = None, free_seats: object = None) -> LobbyFilter:
    if variant == "":
        variant = None
    if variant is not None and (not isinstance(variant, str) or variant not in VARIANTS):
        raise LobbyError("bad_filter", f"variant must be one of {', '.join(VARIANTS)}")
    seats = 0 if free_seats is None or free_seats == "" else _small_int(free_seats)
    if seats is None or not 0 <= seats <= MAX_FREE_SEATS:
        raise LobbyError("bad_filter", f"free_seats must be a number from 0 to {MAX_FREE_SEATS}")
    return LobbyFilter(variant, seats)


def parse_limit(value: object, default: int, maximum: int) -> int:
    if value is None or value == "":
        return default
    limit = _small_int(value)
    if limit is None or not 1 <= limit <= maximum:
        raise LobbyError("bad_filter", f"limit must be a number from 1 to {maximum}")
    return limit


def encode_cursor(key: SortKey) -> str:
    return f"{-key[0]}.{key[1]}"


def decode_cursor(text: object) -> SortKey | None:
    if text is None or text == "":
        return None
    found = _CURSOR.match(text) if isinstance(text, str) else None
    if found is None:
        raise LobbyError("bad_cursor", "cursor must be the 'next' value of an earlier page")
    return (-int(found.group(1)), found.group(2))


@dataclass(slots=True)
class LobbyEntry:
    id: str
    raw: bytes  # the line as Redis holds it; sent to clients as it is
    key: SortKey
    variant: str
    free: int
    players: frozenset[str]  # the people seated (the "their tables first" hook)
    expires_ms: float

    def list_keys(self) -> list[ListKey]:
        """The filters this table is listed under."""
        return [(v, k) for v in (None, self.variant) for k in range(self.free + 1)]

    def matches(self, f: LobbyFilter) -> bool:
        return (f.variant is None or f.variant == self.variant) and self.free >= f.free_seats


def parse_entry(table_id: str, raw: bytes) -> LobbyEntry | None:
    """The index entry of a stored line; None for a line that is not listed (a finished table,
    one without people, or one written by an older server that listed those) or is unreadable."""
    try:
        line = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(line, dict) or not lobby_listed(line):
        return None
    preset = str(line.get("preset"))
    try:
        free = max(0, min(MAX_FREE_SEATS, int(line.get("open_seats") or 0)))
        created = int(float(line.get("created_ms") or 0))
        expires = float(line.get("expires_ms") or 0)
    except (TypeError, ValueError):
        return None
    players = frozenset(
        s["player_id"]
        for s in line.get("seats") or ()
        if isinstance(s, dict) and s.get("kind") == "human" and isinstance(s.get("player_id"), str)
    )
    return LobbyEntry(
        table_id, raw, (-created, table_id), PRESET_GAME.get(preset, preset), free, players, expires
    )


class LobbyIndex:
    """The listed tables, and one sorted key list per filter. No I/O."""

    def __init__(self) -> None:
        self.entries: dict[str, LobbyEntry] = {}
        self._lists: dict[ListKey, list[SortKey]] = {}
        self._by_player: dict[str, set[str]] = {}

    def put(self, table_id: str, raw: bytes | None) -> tuple[LobbyEntry | None, LobbyEntry | None]:
        """Set a table's line (None: it has none): (the entry before, the entry now); the same
        object twice when nothing changed."""
        old = self.entries.get(table_id)
        if old is not None and old.raw == raw:
            return old, old
        new = parse_entry(table_id, raw) if raw is not None else None
        if old is not None:
            self._unlink(old)
        if new is not None:
            self._link(new)
        return old, new

    def _link(self, entry: LobbyEntry) -> None:
        self.entries[entry.id] = entry
        for list_key in entry.list_keys():
            bisect.insort(self._lists.setdefault(list_key, []), entry.key)
        for player in entry.players:
            self._by_player.setdefault(player, set()).add(entry.id)

    def _unlink(self, entry: LobbyEntry) -> None:
        del self.entries[entry.id]
        for list_key in entry.list_keys():
            keys = self._lists[list_key]
            i = bisect.bisect_left(keys, entry.key)
            if i < len(keys) and keys[i] == entry.key:
                del keys[i]
            if not keys:
                del self._lists[list_key]
        for player in entry.players:
            tables = self._by_player.get(player)
            if tables is not None:
                tables.discard(entry.id)
                if not tables:
                    del self._by_player[player]

    def count(self, f: LobbyFilter) -> int:
        return len(self._lists.get(f.list_key, ()))

    def page(self, f: LobbyFilter, after: SortKey | None, limit: int) -> list[LobbyEntry]:
        """Up to ``limit`` tables of the filter after the position ``after``, newest first."""
        keys = self._lists.get(f.list_key)
        if not keys:
            return []
        start = 0 if after is None else bisect.bisect_right(keys, after)
        return [self.entries[k[1]] for k in keys[start : start + limit]]

    def has_after(self, f: LobbyFilter, key: SortKey) -> bool:
        keys = self._lists.get(f.list_key, [])
        return bisect.bisect_right(keys, key) < len(keys)

    def of_players(self, f: LobbyFilter, players: Collection[str], limit: int) -> list[LobbyEntry]:
        """The tables of the filter at which any of ``players`` sits, newest first: the hook
        for "friends' tables first" (cost: the players and their tables, not the lobby)."""
        ids: set[str] = set()
        for player in players:
            ids.update(self._by_player.get(player, ()))
        found = [e for e in (self.entries[i] for i in ids) if e.matches(f)]
        found.sort(key=lambda e: e.key)
        return found[:limit]


def _join_lines(entries: Iterable[LobbyEntry]) -> bytes:
    return b"[" + b",".join(e.raw for e in entries) + b"]"


def page_json(
    f: LobbyFilter,
    entries: list[LobbyEntry],
    total: int,
    next_cursor: str | None,
    first: list[LobbyEntry] | None = None,
) -> bytes:
    """An HTTP page: the stored lines joined as they are (nothing is encoded again)."""
    parts = [
        b'{"filter":',
        orjson.dumps(f.to_json()),
        b',"total":',
        str(total).encode(),
        b',"next":',
        orjson.dumps(next_cursor),
        b',"tables":',
        _join_lines(entries),
    ]
    if first is not None:
        parts += (b',"first":', _join_lines(first))
    parts.append(b"}")
    return b"".join(parts)


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
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


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
        self, variant: object, free_seats: object, limit: object
    ) -> tuple[LobbyFilter, int]:
        return parse_filter(variant, free_seats), parse_limit(limit, self.page_size, self.page_max)

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
                    _join_lines(entries),
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
                + _join_lines(chunk)
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

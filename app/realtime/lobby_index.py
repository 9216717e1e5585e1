"""The lobby's in-memory index: the filters a lobby read takes (variant, pace, free seats), the
cursors of its pages, one entry per listed table, and the pages themselves.

The index keeps one sorted list of keys per filter (variant, pace, at least k free seats), newest
table first, so a page is a bisection and a slice: what a lobby read costs depends on the page
size, not on the number of tables. A cursor names the position after the last table of a page
(its creation time and id), so a walk of pages sees every table that stays listed exactly once,
whatever is created or removed meanwhile. app.realtime.lobby keeps it current from Redis.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from app import engine
from app.tables.model import lobby_listed

# The variant filter is the game family, as the lobby page groups presets.
PRESET_GAME: dict[str, str] = {name: rules.game for name, rules in engine.PRESETS.items()}
VARIANTS: tuple[str, ...] = tuple(sorted(set(PRESET_GAME.values())))
MAX_FREE_SEATS = 8  # more than any table has

SortKey = tuple[int, str]  # (-created_ms, table id): ascending order is newest first
# (variant or None for all, pace or None for both, at least this many free seats)
ListKey = tuple[str | None, str | None, int]
PACES = ("live", "turn")  # app.tables.pace: a live table, or a turn-based one (days)

_CURSOR = re.compile(r"^(\d{1,16})\.([A-Za-z0-9_-]{1,64})$")
_SMALL_INT = re.compile(r"^\d{1,4}$")


class LobbyError(ValueError):
    """A filter, limit or cursor the lobby refuses (HTTP 422, a socket ``error``); nothing
    changes."""

    def __init__(self, code: str, message: str, values: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.values = dict(values or {})  # the named values the page words the code with


@dataclass(frozen=True, slots=True)
class LobbyFilter:
    variant: str | None = None  # a game family (VARIANTS), None: every table
    free_seats: int = 0  # at least this many seats a newcomer can take (0: any table)
    pace: str | None = None  # "live" or "turn" (PACES), None: both

    @property
    def list_key(self) -> ListKey:
        return (self.variant, self.pace, self.free_seats)

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "free_seats": self.free_seats, "pace": self.pace}


def _small_int(value: object) -> int | None:
    """An int from JSON (not a bool) or from a query string of digits, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _SMALL_INT.match(value):
        return int(value)
    return None


def parse_filter(
    variant: object = None, free_seats: object = None, pace: object = None
) -> LobbyFilter:
    if variant == "":
        variant = None
    if variant is not None and (not isinstance(variant, str) or variant not in VARIANTS):
        raise LobbyError("bad_filter", f"variant must be one of {', '.join(VARIANTS)}")
    seats = 0 if free_seats is None or free_seats == "" else _small_int(free_seats)
    if seats is None or not 0 <= seats <= MAX_FREE_SEATS:
        raise LobbyError("bad_filter", f"free_seats must be a number from 0 to {MAX_FREE_SEATS}")
    if pace == "":
        pace = None
    if pace is not None and (not isinstance(pace, str) or pace not in PACES):
        raise LobbyError("bad_filter", f"pace must be one of {', '.join(PACES)}")
    return LobbyFilter(variant, seats, pace)


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
    raw: bytes  # the line as Redis holds it, less the players' ids; sent as it is
    key: SortKey
    variant: str
    free: int
    players: frozenset[str]  # the people seated (the "their tables first" hook)
    expires_ms: float
    pace: str = "live"

    def list_keys(self) -> list[ListKey]:
        """The filters this table is listed under."""
        return [
            (v, p, k)
            for v in (None, self.variant)
            for p in (None, self.pace)
            for k in range(self.free + 1)
        ]

    def matches(self, f: LobbyFilter) -> bool:
        return (
            (f.variant is None or f.variant == self.variant)
            and (f.pace is None or f.pace == self.pace)
            and self.free >= f.free_seats
        )


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
    # The seated players' ids stay in this index (the "their tables first" hook) and are not
    # sent: the lobby is everyone's, and an id would find a player where a name alone does
    # not (one who appears offline, or who blocked the viewer). Encoded once per change.
    if players:
        for seat in line.get("seats") or ():
            if isinstance(seat, dict):
                seat.pop("player_id", None)
        raw = orjson.dumps(line)
    pace = "turn" if line.get("pace") == "turn" else "live"
    return LobbyEntry(
        table_id,
        raw,
        (-created, table_id),
        PRESET_GAME.get(preset, preset),
        free,
        players,
        expires,
        pace,
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


def join_lines(entries: Iterable[LobbyEntry]) -> bytes:
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
        join_lines(entries),
    ]
    if first is not None:
        parts += (b',"first":', join_lines(first))
    parts.append(b"}")
    return b"".join(parts)

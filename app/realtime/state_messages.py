"""What a table hub sends and reads: the state messages of one table version, built once per
version for all the sockets of an instance (``StateMessages``), and the commit time of a
change notice (its "t"), by which a hub sees its table's version go back."""

from __future__ import annotations

import math
from typing import Any, Protocol

import orjson

from app import engine
from app.engine.view import private_view
from app.tables.model import Table


class Socket(Protocol):
    """What a state message notes of the socket it is for (app.realtime.hub.Connection)."""

    compact: bool
    sheet_hands: int
    table_json: bytes | None


class StateMessages:
    """The state messages of one table version: the common part of the views is built and
    encoded once (``engine.view(state, None)``), then what each seat that has a socket here sees
    beyond it (``private_view``), and each distinct message is encoded once, whatever the
    number of sockets that get it."""

    SHEET_KEYS = ("history", "previous_tricks")

    def __init__(
        self,
        table: Table,
        state: Any,
        events: tuple[int, list[Any]] | None,
        now_ms: float,
    ) -> None:
        self.state = state
        self.head = b"".join(
            (
                b'{"type":"state","table_id":',
                orjson.dumps(table.id),
                b',"version":',
                str(table.version).encode(),
                b',"server_ms":',
                str(int(now_ms)).encode(),
                b',"seat":',
            )
        )
        self.table_json = orjson.dumps(table.public_json())
        self.events_json = orjson.dumps(events[1]) if events else b"[]"
        self.hands = len(state.history) if state is not None else 0
        # Between hands (table.pause_until_ms) nobody may act: no seat is offered a move.
        self.paused = table.pause_until_ms is not None
        self._common: dict[bool, bytes] = {}
        self._view_json: dict[tuple[int | None, bool], bytes] = {}
        self._messages: dict[tuple[int | None, bool, bool, bool], bytes] = {}

    def _view(self, seat: int | None, sheet: bool) -> bytes:
        if self.state is None:
            return b"null"
        key = (seat, sheet)
        encoded = self._view_json.get(key)
        if encoded is None:
            # The common part is encoded once (without "seat" and its closing brace); a view
            # is that, then the spectator's "seat":null or the keys only its seat sees.
            common = self._common.get(sheet)
            if common is None:
                public = engine.view(self.state, None, sheet)
                del public["seat"]
                common = self._common[sheet] = orjson.dumps(public)[:-1]
            if seat is None:
                encoded = common + b',"seat":null}'
            else:
                private = private_view(self.state, seat)
                if self.paused:
                    private["legal"] = None
                encoded = common + b"," + orjson.dumps(private)[1:]
            self._view_json[key] = encoded
        return encoded

    def for_socket(self, conn: Socket, seat: int | None, with_events: bool) -> bytes:
        """The message for one socket (and, for a compact one, note what it now has)."""
        sheet = not conn.compact or conn.sheet_hands != self.hands
        with_table = not conn.compact or conn.table_json != self.table_json
        key = (seat, sheet, with_table, with_events)
        msg = self._messages.get(key)
        if msg is None:
            parts = [self.head, b"null" if seat is None else str(seat).encode()]
            if with_table:
                parts += (b',"table":', self.table_json)
            parts += (b',"view":', self._view(seat, sheet))
            if with_events:
                parts += (b',"events":', self.events_json)
            parts.append(b"}")
            msg = self._messages[key] = b"".join(parts)
        if conn.compact:
            if sheet and self.state is not None:
                conn.sheet_hands = self.hands
            if with_table:
                conn.table_json = self.table_json
        return msg


def time_of(note: dict[str, Any]) -> float:
    """A change notice's commit time (ms), or -inf when it has none."""
    t = note.get("t")
    return float(t) if isinstance(t, int | float) and not isinstance(t, bool) else -math.inf


def commit_time(data: bytes) -> float:
    """The commit time of an encoded notice without parsing all of it: its last key, "t"."""
    at = data.rfind(b'"t":')
    if at < 0:
        return -math.inf
    end = data.find(b"}", at)
    try:
        return float(data[at + 4 : end])
    except ValueError:
        return -math.inf

"""A player's games: the index of the tables they sat down at (one sorted set per player in
Redis), the lines of their "My games" page built from the tables themselves, and the limit on
turn-based games one player may be in at once.

The index is a hint: a line is shown only while the table says the player sits there, and
entries of tables that are gone or that the player left are dropped when read.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from app import engine
from app.engine import GameState
from app.store import keys
from app.tables.errors import TableError
from app.tables.model import Table
from app.tables.pace import clock_running

# An index lives this long after the player last sat down somewhere (a backstop).
INDEX_LIFETIME_MS = 90 * 24 * 3600 * 1000
# Tables read for one page of My games, at most (the newest the player sat at).
MAX_LISTED = 100
# The games lock (GameIndex.holding): held at most this long, waited for at most this long.
LOCK_MS = 10_000
LOCK_WAIT_S = 3.0
# Free the lock only if it is still ours (it may have run out and been taken by another).
UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

Read = Callable[[str], Awaitable[tuple[Table, GameState | None]]]


class TooManyGames(TableError):
    """The player is already in as many turn-based games as allowed (HTTP 429)."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            "too_many_games",
            f"you are already in {limit} turn-based games, the most one player may be in at "
            "once: finish or leave one first",
            {"limit": limit},
        )
        self.limit = limit
        self.retry_after = 3600


class GameIndex:
    """The tables each player sat down at (``games_key``)."""

    def __init__(self, redis: Any, namespace: str) -> None:
        self.redis = redis
        self.namespace = namespace
        self._unlock = redis.register_script(UNLOCK)

    @contextlib.asynccontextmanager
    async def holding(self, player_id: str) -> AsyncIterator[None]:
        """The player's games lock, across instances: checking the turn-based limit and
        taking the seat happen under it, so two creations or joins at once cannot both pass
        the check. Held at most LOCK_MS (an instance dying frees it then); waited for up to
        LOCK_WAIT_S, then ``busy``."""
        key = keys.games_lock_key(self.namespace, player_id)
        token = secrets.token_hex(8)
        deadline = time.monotonic() + LOCK_WAIT_S
        while not await self.redis.set(key, token, nx=True, px=LOCK_MS):
            if time.monotonic() > deadline:
                raise TableError("busy", "your games are being changed elsewhere; try again")
            await asyncio.sleep(0.02)
        try:
            yield
        finally:
            await self._unlock(keys=[key], args=[token])

    def _key(self, player_id: str) -> str:
        return keys.games_key(self.namespace, player_id)

    async def add(self, player_id: str, table_id: str, now: float) -> None:
        key = self._key(player_id)
        await self.redis.zadd(key, {table_id: now})
        await self.redis.pexpire(key, INDEX_LIFETIME_MS)

    async def drop(self, player_id: str, table_ids: list[str]) -> None:
        if table_ids:
            await self.redis.zrem(self._key(player_id), *table_ids)

    async def table_ids(self, player_id: str) -> list[str]:
        """Newest first."""
        got = await self.redis.zrevrange(self._key(player_id), 0, MAX_LISTED - 1)
        return [t.decode() if isinstance(t, bytes) else str(t) for t in got]


async def my_tables(
    index: GameIndex, read: Read, player_id: str
) -> list[tuple[Table, GameState | None]]:
    """Every table of the index where the player sits now (the others leave the index)."""
    found: list[tuple[Table, GameState | None]] = []
    stale: list[str] = []
    for table_id in await index.table_ids(player_id):
        try:
            table, state = await read(table_id)
        except TableError as exc:
            if exc.code == "unknown_table":
                stale.append(table_id)
                continue
            raise
        if table.seat_of(player_id) is None:
            stale.append(table_id)
            continue
        found.append((table, state))
    await index.drop(player_id, stale)
    return found


async def check_room(
    index: GameIndex, read: Read, player_id: str, limit: int, joining: str | None = None
) -> None:
    """TooManyGames when the player already plays ``limit`` unfinished turn-based games
    (other than ``joining``, the table they sit down at); 0 = no limit."""
    if limit <= 0:
        return
    tables = await my_tables(index, read, player_id)
    playing = [t for t, _ in tables if t.turn_based and t.status != "over" and t.id != joining]
    if len(playing) >= limit:
        raise TooManyGames(limit)


def game_line(table: Table, state: GameState | None, player_id: str, now: float) -> dict[str, Any]:
    """One line of My games: whose turn, the clock, the last move; only what the table's
    public view shows (no card, no seed)."""
    my_seat = table.seat_of(player_id)
    to_act: list[int] = []
    if table.status == "playing" and state is not None and table.pause_until_ms is None:
        to_act = list(engine.seats_to_act(state))
    # Not while the computer plays the seat (away): taking it back comes first.
    mine = my_seat is not None and my_seat in to_act and not table.seats[my_seat].computer_plays
    link = f"/?table={table.id}"
    if table.private and table.invite:
        link += f"&invite={table.invite}"
    return {
        "id": table.id,
        "link": link,
        "pace": table.pace,
        "move_seconds": table.move_seconds,
        "hours": table.hours,
        "time_zone": table.time_zone,
        "preset": table.preset,
        "status": table.status,
        "ended": table.ended,
        "game_no": table.game_no,
        "private": table.private,
        "my_seat": my_seat,
        "my_turn": mine,
        "to_act": to_act,
        "seats": [
            {"seat": i, "kind": s.kind, "name": s.name, "away": s.away}
            for i, s in enumerate(table.seats)
        ],
        "deadline_ms": table.deadline_ms,
        "clock_running": clock_running(now, table.hours_window(), table.time_zone),
        "last_move_ms": table.updated_ms,
    }


def sort_key(line: dict[str, Any]) -> tuple[int, float, float]:
    """What needs the player first: their turn (the nearest clock first), then the games
    being played, then those waiting for players, then the finished ones."""
    if line["my_turn"]:
        group = 0
    elif line["status"] == "playing":
        group = 1
    elif line["status"] == "waiting":
        group = 2
    else:
        group = 3
    deadline = line["deadline_ms"]
    return group, deadline if deadline is not None else math.inf, -float(line["last_move_ms"])


async def my_games(index: GameIndex, read: Read, player_id: str, now: float) -> dict[str, Any]:
    """The My games answer: the lines sorted by what needs the player first, and how many
    wait for their move (the badge and the title's count)."""
    lines = [game_line(t, s, player_id, now) for t, s in await my_tables(index, read, player_id)]
    lines.sort(key=sort_key)
    return {"games": lines, "my_turn": sum(1 for line in lines if line["my_turn"])}

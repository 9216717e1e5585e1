"""The scheduler's arena part (app.compete.events_runner mixes it in): each poll, for each
running arena, follow its tables still playing (scores recorded the moment a game ends),
seat the players waiting (app.compete.arena_store.seat_waiting, a compare-and-set: a player
is seated once whichever instances poll), make the new tables at once, and end the arena once
its window has closed and its last table is in.

Its settings: ``events_arena_fill_seconds`` (how long a player waits for others before
computers fill their table) and ``events_arena_last_call_seconds`` (no table starts when
fewer seconds than this are left in the window), from the table service's settings unless
set on the runner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool

from app.compete import arena_store, events_store
from app.db import Database
from app.db.models import utcnow

FILL_SECONDS = 20.0
LAST_CALL_SECONDS = 60.0


class RoundSteps(Protocol):
    """What the arena's steps use of the runner they are mixed into
    (app.compete.events_runner.EventRunner): its database and table service, and its way to
    make a round's table and to follow one to its end. The signatures repeat the runner's on
    purpose: the runner imports this module, so this one states them instead of importing it."""

    database: Database
    tables: Any  # app.tables.TableService

    async def _make(self, event_id: int, round_no: int, info: dict[str, Any]) -> None: ...

    async def _follow(
        self,
        event_id: int,
        round_no: int,
        info: dict[str, Any],
        record: Callable[..., bool] = events_store.record_table,
    ) -> bool: ...


class ArenaSteps(RoundSteps):
    arena_fill_seconds: float | None = None  # None: the settings'
    arena_last_call_seconds: float | None = None

    async def _to_tell(
        self, event_id: int, round_no: int, info: dict[str, Any], players: Sequence[str]
    ) -> list[str]:
        """Who hears ``event_started`` of a table just made: everyone at a Swiss or duplicate
        round's table; at an arena's, only those for whom it is their first game of the arena
        (their next tables reach them on the event's page and the game-over panel, not as the
        event starting again)."""
        if info["format"] != "arena":
            return list(players)
        return await run_in_threadpool(
            arena_store.first_games, self.database, event_id, round_no, players
        )

    def _arena_setting(self, mine: float | None, name: str, default: float) -> float:
        if mine is not None:
            return mine
        return float(getattr(getattr(self.tables, "settings", None), name, default))

    async def _look_after_arena(self, event_id: int) -> None:
        db = self.database
        for round_no in await run_in_threadpool(arena_store.open_rounds, db, event_id):
            await self._tables_of(event_id, round_no)
        fill = self._arena_setting(
            self.arena_fill_seconds, "events_arena_fill_seconds", FILL_SECONDS
        )
        last_call = self._arena_setting(
            self.arena_last_call_seconds, "events_arena_last_call_seconds", LAST_CALL_SECONDS
        )
        started = await run_in_threadpool(
            arena_store.seat_waiting, db, event_id, utcnow(), fill, last_call
        )
        for round_no in started:  # made at once, not at the next poll
            await self._tables_of(event_id, round_no)
        await run_in_threadpool(arena_store.finish_if_over, db, event_id, utcnow())

    async def _tables_of(self, event_id: int, round_no: int) -> None:
        """Make the game's table, or follow it to its end."""
        tables = await run_in_threadpool(
            events_store.round_tables, self.database, event_id, round_no
        )
        for info in tables:
            if info["scored"]:
                continue
            table_id = info["table_id"]
            if table_id is None or table_id.startswith("making:"):
                await self._make(event_id, round_no, info)
            else:
                await self._follow(event_id, round_no, info, arena_store.record_game)

"""The one writer of live tables: ``TableService``, put together from its parts.

- app.tables.writer: the service's state, reading, and the commit path every change takes
  (load, change a fresh copy, one compare-and-set EVALSHA, publish), once per command id;
- app.tables.presence: sockets on a table and the seats' connection;
- app.tables.seats: a new table, sitting, leaving, computer seats, the shared checks;
- app.tables.claims and app.tables.commands: claims, moves, chat, start and rematch;
- app.tables.hints: a player's hint at a table with hints;
- app.tables.compete: a competition's table, made and started with its own seed;
- app.tables.timers: deadlines, pauses, grace, idleness (pure functions of table and time);
- app.tables.computer: the computer's turn; app.tables.records: results records.

What is due at a table (``run_due``, called by the due loop of app.tables.due) uses all of
them, so it lives here.
"""

from __future__ import annotations

import logging

import app.tables.records as records
import app.tables.timers as timers
from app.tables.change import Actor, Change, FindGameId, MoveResult, Mutation, public_move
from app.tables.compete import CompeteCommands
from app.tables.computer import BOT_LEVELS, apply_computer_move, computer_move
from app.tables.errors import TableError
from app.tables.hints import HintCommands
from app.tables.model import Table
from app.tables.seats import DEFAULT_BOT_LEVEL
from app.tables.writer import MAX_ATTEMPTS, MOVE_IDS_KEPT

log = logging.getLogger(__name__)

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BOT_LEVEL",
    "MAX_ATTEMPTS",
    "MOVE_IDS_KEPT",
    "Actor",
    "Change",
    "FindGameId",
    "MoveResult",
    "Mutation",
    "TableService",
    "public_move",
]


class TableService(CompeteCommands, HintCommands):
    """Every command on live tables, and the due work of timers and computer players."""

    async def run_due(self, table_id: str) -> None:
        """Act on whatever is due at this table (called by the instance that claimed it).

        A computer's search runs before the compare-and-set, on the view of the version just
        read; its move is committed only if the table is still at that version. Otherwise
        the table is read again and, at a new position, the computer decides again.
        """
        try:
            for _attempt in range(MAX_ATTEMPTS):
                # Always what Redis holds: a search on a stale copy would be wasted.
                table, state, _cached = await self._load(table_id)
                before = table.lobby_json(0)
                now = self.clock()
                if table.status == "over":
                    change = await records.recorded_change(table, now, self.find_game_id)
                    seat_no = None
                else:
                    present = await self._present_after_grace(table, now)
                    change, seat_no = timers.due_change(table, state, now, self.settings, present)
                if seat_no is not None and state is not None:
                    move = await computer_move(self.computer, self._bot_memo, table, state, seat_no)
                    apply_computer_move(table, state, seat_no, move, change)
                if not change.commit:
                    if await self._page_out(table, now):
                        return
                    await self._fix_due(table, state, now)
                    return
                if await self._commit(table, before, state, change, expected=table.version):
                    return
            log.warning("table %s: due work lost %d races in a row", table_id, MAX_ATTEMPTS)
        except TableError as exc:
            if exc.code == "unknown_table":
                await self.store.drop_due(table_id)
                return
            raise

    async def _page_out(self, table: Table, now: float) -> bool:
        """An idle turn-based table nobody has open leaves Redis (app.tables.durable)."""
        if self.durable is None or not self.durable.idle(table, now):
            return False
        if (await self._count(table.id, "", 0, table=table, report=False)).sockets:
            return False
        if not await self.durable.page_out(table, now):
            return False
        self.forget(table.id)
        return True

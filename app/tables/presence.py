"""Presence: the sockets open on a table, and a seated player's connection as the seat shows it.

Sockets are counted in Redis outside the table (app/store/sockets.py), so a spectator coming or
going changes no version; only a seated player's coming and going changes the seat.
"""

from __future__ import annotations

import contextlib
import logging

from app.engine import GameState
from app.store import keys
from app.store.sockets import Counted, table_sockets_key
from app.tables.change import Change, Mutation
from app.tables.errors import TableError
from app.tables.model import Table
from app.tables.timers import grace_ran_out
from app.tables.writer import TableWriter

log = logging.getLogger(__name__)

# A turn-based turn this young when its player leaves the table is told to them as they go
# (its notice at the start found them there): see Presence._left_at_a_new_turn.
NEW_TURN_MS = 60_000


class Presence(TableWriter):
    async def attach(self, table_id: str, player_key: str, *, cap: int = 0) -> Counted:
        """A socket of ``player_key`` (a player id, or "anon:<socket id>") opened on this
        instance. It is counted outside the table (app/store/sockets.py): only a seated
        player's coming back changes the table (the seat is connected again, and no longer
        away). With ``cap``, a table that has that many sockets already refuses it
        (``too_many_sockets``) and nothing changes."""
        table, _ = await self.read(table_id)
        counted = await self._count(table_id, player_key, 1, cap=cap, table=table)
        if not counted.ok:
            raise TableError(
                "too_many_sockets",
                f"this table has {counted.sockets} connections open, the most it takes; "
                "try again later",
                {"count": counted.sockets},
            )
        if table.seat_of(player_key) is not None:
            await self._sync_presence(table_id, player_key, counted.holder > 0, arrived=True)
        return counted

    async def detach(self, table_id: str, player_key: str) -> Counted | None:
        """A socket that ``attach`` counted closed (None: the table is gone)."""
        try:
            table, _ = await self.read(table_id)
        except TableError as exc:
            if exc.code != "unknown_table":
                raise
            await self.sockets.change(table_sockets_key(table_id), self.clock(), -1, player_key)
            return None
        counted = await self._count(table_id, player_key, -1, table=table)
        if table.seat_of(player_key) is not None:
            await self._sync_presence(table_id, player_key, counted.holder > 0)
            if counted.holder == 0:
                await self._left_at_a_new_turn(table, player_key)
        return counted

    async def _left_at_a_new_turn(self, table: Table, player_id: str) -> None:
        """A turn-based player closed their last socket while the table waits for their move,
        a turn that began moments ago (``NEW_TURN_MS``): its "your turn" notice, sent as it
        began, found them still at the table (they moved and left while the others answered),
        so it is sent now; the notifier sends it only if no socket of theirs is open anywhere.
        A player who stayed longer with the turn before them is reminded only when their time
        runs short."""
        if self.notify is None or not table.turn_based:
            return
        # Read again now that the socket is no longer counted: a turn committed before this
        # read is seen here, one committed after it finds the player away when its notice is
        # sent (a turn that began in between is told by one of the two, or both).
        with contextlib.suppress(TableError):
            table, _ = await self.read(table.id)
        seat_no = table.seat_of(player_id)
        if (
            table.status != "playing"
            or seat_no is None
            or table.deadline_ms is None
            or seat_no not in table.deadline_seats
            or table.seats[seat_no].computer_plays
        ):
            return
        began = table.turn_began_ms
        if began is None or self.clock() - began > NEW_TURN_MS:
            return
        await self._send_notices(table, [(player_id, "your_turn")])

    async def spectators(self, table_id: str) -> Counted:
        """The table's socket counts now (``viewers``: spectators, seated players left out)."""
        return await self._count(table_id, "", 0)

    async def _count(
        self,
        table_id: str,
        player_key: str,
        delta: int,
        *,
        cap: int = 0,
        table: Table | None = None,
        report: bool = True,
    ) -> Counted:
        """Change (or just read) the table's socket counts; a change publishes the new
        spectator count on the table's channel (``{"sp": n, "q": seq}``)."""
        if table is None and report:
            with contextlib.suppress(TableError):
                table, _ = await self.read(table_id)
        return await self.sockets.change(
            table_sockets_key(table_id),
            self.clock(),
            delta,
            player_key,
            cap=cap,
            report=seated(table) if table is not None else (),
            channel=keys.channel(table_id) if delta else "",
        )

    async def _recount(self, table_id: str, version: int) -> None:
        """Who sits changed (at ``version``): publish the spectator count again."""
        try:
            table, _ = await self.read(table_id, at_least=version)
            await self.sockets.change(
                table_sockets_key(table_id),
                self.clock(),
                0,
                report=seated(table),
                channel=keys.channel(table_id),
            )
        except Exception:  # a count shown a little late is no reason to fail the command
            log.warning("could not recount the spectators of %s", table_id, exc_info=True)

    async def _sync_presence(
        self, table_id: str, player_key: str, present: bool, *, arrived: bool = False
    ) -> None:
        """Make the seat of ``player_key`` say what the socket counts say: connected (and, for
        a socket that just ``arrived``, no longer away) or gone since now. Sockets open and
        close on several instances at once, so after a change the counts are read again until
        the table and they agree."""

        def mutation(present: bool, arrived: bool) -> Mutation:
            def fn(table: Table, state: GameState | None, now: float) -> Change:
                seat_no = table.seat_of(player_key)
                if seat_no is None:
                    return Change(commit=False)
                seat = table.seats[seat_no]
                if not present:
                    if seat.gone_since is not None:
                        return Change(commit=False)
                    seat.gone_since = now
                    return Change()
                if seat.gone_since is None and not (arrived and seat.away):
                    return Change(commit=False)
                seat.gone_since = None
                if arrived and seat.away:
                    seat.away = False
                    return Change(events=[{"kind": "back", "seat": seat_no}])
                return Change()

            return fn

        for _attempt in range(4):
            try:
                before = (await self.read(table_id))[0].version
                after = (await self._mutate(table_id, mutation(present, arrived))).version
            except TableError as exc:
                if exc.code == "unknown_table":
                    return
                raise
            if after == before:
                return  # the table agreed already
            arrived = False
            counted = await self._count(table_id, player_key, 0, report=False)
            now_present = counted.holder > 0
            if now_present == present:
                return
            present = now_present

    async def _present_after_grace(self, table: Table, now: float) -> frozenset[str]:
        """Of the seated players whose disconnect grace ran out, those with a socket open
        after all (a socket that opened on another instance as this one's closed)."""
        if not grace_ran_out(table, now, self.settings):
            return frozenset()
        counted = await self._count(table.id, "", 0, table=table)
        return frozenset(p for p, here in zip(seated(table), counted.present, strict=True) if here)


def seated(table: Table) -> list[str]:
    """The players who sit at the table (the rest of its sockets are spectators)."""
    return [s.player_id for s in table.seats if s.kind == "human" and s.player_id]

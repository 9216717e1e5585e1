"""A competition's table (app.compete): an ordinary table with extra rules, made and started
in two commits: the table is created as a private one, then marked with its competition and
started with the competition's seed in one change, before anyone but its creator knows of it.

The extra rules themselves (no chat, no spectators, nobody else sits, no leaving mid-game, no
rematch) are checked where each command is (``app.tables.seats.no_compete``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine import GameState
from app.tables.change import Actor, Change
from app.tables.commands import GameCommands
from app.tables.errors import TableError
from app.tables.model import Seat, Table
from app.tables.seats import SeatCommands, require_host


class CompeteCommands(GameCommands, SeatCommands):
    async def create_compete(
        self,
        actor: Actor,
        preset: str,
        options: Mapping[str, object],
        *,
        compete: Mapping[str, Any],
        bots: Mapping[str, object],
        address: str | None = None,
        others: Mapping[int, Actor] | None = None,
    ) -> Table:
        """A private table with ``actor`` in seat 0 and ``bots`` in the others, whose game
        starts at once, dealt from ``compete["seed"]``. Raises TableError (or TooManyTables)
        as ``create`` does. ``others``: more players seated by the competition (an event's
        round), seat number -> player; then every player, the creator too, is away (the computer
        plays for them) until they come."""
        seed = compete.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed <= 0:
            raise TableError("bad_compete", "a competition's table needs a positive seed")
        table = await self.create(
            actor, preset, options, private=True, turn_timer=0, bots=bots, address=address
        )

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            require_host(table, actor)
            if table.status != "waiting" or table.compete:
                raise TableError("wrong_status", "this table has already started")
            table.compete = dict(compete)
            if others is not None:  # nobody is at the table yet: each player comes to it
                table.seats[0].away = True
            for seat_no, other in (others or {}).items():
                if table.seats[seat_no].kind != "open":
                    raise TableError("bad_seat", f"seat {seat_no} is taken", {"seat": seat_no})
                table.seats[seat_no] = Seat(
                    kind="human", player_id=other.player_id, name=other.name, away=True
                )
            return self._begin_game(table)

        result = await self._command(table.id, actor, None, fn)
        started, _state = await self.read(table.id, at_least=result.version)
        return started

    async def discard_compete(self, table: Table) -> None:
        """Take a competition's table out of Redis and out of its players' lists of games:
        one made in vain (an event's table whose maker was overtaken, another instance having
        made the seat's table). Nobody but the maker has heard of it."""
        if not table.compete:
            raise TableError("bad_compete", "only a competition's table is discarded")
        await self.store.discard(table.id)
        self.forget(table.id)
        for seat in table.seats:
            if seat.kind == "human" and seat.player_id:
                await self.games.drop(seat.player_id, [table.id])

"""Seats and host: a new table, sitting down, leaving (the computer stands in mid-game), the
host's computer players, taking an away seat back; and the checks the commands share (which
seat, whose table, who may move now)."""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping
from typing import Any

from app import engine
from app.engine import GameState
from app.tables.change import Actor, Change, MoveResult
from app.tables.computer import BOT_LEVELS, STAND_IN_LEVEL
from app.tables.errors import TableError
from app.tables.model import Seat, Table
from app.tables.presence import Presence

DEFAULT_BOT_LEVEL = "standard"


class SeatCommands(Presence):
    async def create(
        self,
        actor: Actor,
        preset: str,
        options: Mapping[str, object] | None = None,
        *,
        private: bool = False,
        turn_timer: int | None = None,
        bots: Mapping[str, object] | Mapping[int, object] | None = None,
        address: str | None = None,
    ) -> Table:
        """A new table with ``actor`` in seat 0 as its host, and computer players in the seats
        ``bots`` names (seat number -> level). Every value is checked before anything is
        stored: a bad one raises and creates nothing. The creator and ``address`` (the client's,
        when known) may have only so many live tables (app.tables.limits): TooManyTables."""
        try:
            rules = engine.make_rules(preset, options)
        except engine.RulesError as exc:
            raise TableError(getattr(exc, "code", "bad_options"), str(exc)) from None
        if turn_timer is None:
            turn_timer = 0 if private else self.settings.turn_timer_seconds
        if not 0 <= turn_timer <= 3600:
            raise TableError("bad_timer", "turn_timer must be between 0 and 3600 seconds")
        computers = _bot_seats(bots or {}, rules.players)
        now = self.clock()
        table = Table(
            id=secrets.token_urlsafe(8).replace("-", "x").replace("_", "y"),
            preset=preset,
            options=rules.to_options(),
            players=rules.players,
            private=private,
            invite=secrets.token_urlsafe(9) if private else None,
            host=actor.player_id,
            seats=[Seat() for _ in range(rules.players)],
            turn_timer=turn_timer,
            created_ms=now,
            updated_ms=now,
        )
        # The creator sits in the first seat.
        table.seats[0] = Seat(kind="human", player_id=actor.player_id, name=actor.name)
        events: list[dict[str, Any]] = [{"kind": "created", "by": actor.name}]
        for seat_no, level in computers.items():
            table.seats[seat_no] = Seat(kind="bot", level=level)
            events.append({"kind": "bot_added", "seat": seat_no, "level": level})
        charged = await self.limits.reserve(table.id, actor.player_id, address, now)
        try:
            result = await self._commit(table, None, None, Change(events=events), expected=0)
        except BaseException:
            await self.limits.release(table.id, charged)
            raise
        if not result:
            await self.limits.release(table.id, charged)
            raise TableError("busy", "table id collision; try again")
        table.version = 1
        return table

    async def sit(
        self, table_id: str, actor: Actor, seat_no: int, *, command_id: str | None = None
    ) -> MoveResult:
        present = (await self._count(table_id, actor.player_id, 0, report=False)).holder > 0

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            seat = seat_at(table, seat_no)
            if table.seat_of(actor.player_id) is not None:
                raise TableError("already_seated", "you already have a seat at this table")
            if seat.kind == "open" and table.status in ("waiting", "over"):
                pass
            elif seat.kind == "bot" and seat.vacated and table.status == "playing":
                pass  # take over a seat a player left during the game
            else:
                raise TableError("seat_taken", f"seat {seat_no} is not free")
            table.seats[seat_no] = Seat(
                kind="human",
                player_id=actor.player_id,
                name=actor.name,
                level=seat.level,
                gone_since=None if present else now,
                # Mid-game the seat still counts for the person who began the game in it.
                owner_id=seat.owner_id if table.status == "playing" else None,
                owner_name=seat.owner_name if table.status == "playing" else None,
                replaced_hand=seat.replaced_hand,
                replaced_game=seat.replaced_game,
            )
            if table.host is None:
                table.host = actor.player_id
            return Change(events=[{"kind": "sat", "seat": seat_no, "name": actor.name}])

        result = await self._command(table_id, actor, command_id, fn)
        await self._recount(table_id, result.version)  # a spectator took a seat
        return result

    async def leave(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: GameState | None, now: float) -> Change:
            seat_no = my_seat(table, actor)
            old = table.seats[seat_no]
            if table.status == "playing":
                # The computer finishes the game; a newcomer may take the seat over. The seat
                # still counts for its player in the records (replaced by a computer).
                table.seats[seat_no] = Seat(
                    kind="bot",
                    level=STAND_IN_LEVEL,
                    vacated=True,
                    name=None,
                    owner_id=old.owner_id or old.player_id,
                    owner_name=old.owner_name or old.name,
                    replaced_hand=True,
                    replaced_game=True,
                )
            else:
                table.seats[seat_no] = Seat()
            if table.host == actor.player_id:
                table.host = next(
                    (s.player_id for s in table.seats if s.kind == "human" and s.player_id), None
                )
            return Change(events=[{"kind": "left", "seat": seat_no, "name": actor.name}])

        result = await self._command(table_id, actor, command_id, fn)
        await self._recount(table_id, result.version)  # still watching, maybe
        return result

    async def add_bot(
        self,
        table_id: str,
        actor: Actor,
        seat_no: int,
        level: str = DEFAULT_BOT_LEVEL,
        *,
        command_id: str | None = None,
    ) -> MoveResult:
        _check_level(level)

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "computer players are set before the start")
            seat = seat_at(table, seat_no)
            if seat.kind != "open":
                raise TableError("seat_taken", f"seat {seat_no} is not free")
            table.seats[seat_no] = Seat(kind="bot", level=level)
            return Change(events=[{"kind": "bot_added", "seat": seat_no, "level": level}])

        return await self._command(table_id, actor, command_id, fn)

    async def remove_bot(
        self, table_id: str, actor: Actor, seat_no: int, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: GameState | None, now: float) -> Change:
            require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "computer players are set before the start")
            if seat_at(table, seat_no).kind != "bot":
                raise TableError("bad_seat", f"seat {seat_no} has no computer player")
            table.seats[seat_no] = Seat()
            return Change(events=[{"kind": "bot_removed", "seat": seat_no}])

        return await self._command(table_id, actor, command_id, fn)

    async def back(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        """The player takes their away seat back from the computer."""

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            seat_no = my_seat(table, actor)
            seat = table.seats[seat_no]
            if not seat.away:
                return Change(commit=False)
            seat.away = False
            return Change(events=[{"kind": "back", "seat": seat_no}])

        return await self._command(table_id, actor, command_id, fn)


# -- the checks commands share -------------------------------------------------------------


def seat_at(table: Table, seat_no: int) -> Seat:
    if not isinstance(seat_no, int) or not 0 <= seat_no < len(table.seats):
        raise TableError("bad_seat", f"seats are numbered 0 to {len(table.seats) - 1}")
    return table.seats[seat_no]


def my_seat(table: Table, actor: Actor) -> int:
    seat_no = table.seat_of(actor.player_id)
    if seat_no is None:
        raise TableError("not_seated", "you have no seat at this table")
    return seat_no


def require_host(table: Table, actor: Actor) -> None:
    if table.host != actor.player_id:
        raise TableError("not_host", "only the table's host may do that")


def mover(
    table: Table,
    state: GameState | None,
    actor: Actor,
    expected_version: int | None,
    now: float,
) -> tuple[int, GameState]:
    """The seat of a player who may move now, and the game (the checks every move shares)."""
    if expected_version is not None and expected_version != table.version:
        raise TableError(
            "stale_version",
            f"the table is at version {table.version}, not {expected_version}",
        )
    if table.status == "over":
        raise TableError("game_over", "the game is over")
    if table.status != "playing" or state is None:
        raise TableError("wrong_status", "the game has not started")
    seat_no = my_seat(table, actor)
    if table.pause_until_ms is not None and now < table.pause_until_ms:
        left = math.ceil((table.pause_until_ms - now) / 1000)
        raise TableError("between_hands", f"the next hand opens in {left} s")
    return seat_no, state


def _check_level(level: object) -> str:
    if not isinstance(level, str) or level not in BOT_LEVELS:
        raise TableError(
            "bad_level", f"computer level {level!r} is not one of {', '.join(BOT_LEVELS)}"
        )
    return level


def _bot_seats(bots: Mapping[str, object] | Mapping[int, object], players: int) -> dict[int, str]:
    """Checked computer seats for a new table: seat number (an int, or its decimal text as
    JSON object keys are) -> level. Seat 0 is the creator's."""
    seats: dict[int, str] = {}
    for key, level in bots.items():
        seat_no = key if isinstance(key, int) and not isinstance(key, bool) else None
        if isinstance(key, str) and key.isascii() and key.isdigit() and str(int(key)) == key:
            seat_no = int(key)
        if seat_no is None or not 0 <= seat_no < players:
            raise TableError("bad_seat", f"computer seat {key!r}: seats are 0 to {players - 1}")
        if seat_no == 0:
            raise TableError("bad_seat", "seat 0 is the creator's; computers go in seats 1 and up")
        if seat_no in seats:
            raise TableError("bad_seat", f"seat {seat_no} is named twice")
        seats[seat_no] = _check_level(level)
    return dict(sorted(seats.items()))

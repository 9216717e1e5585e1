"""Seats and host: a new table, sitting down, leaving (the computer stands in mid-game), the
host's computer players, taking an away seat back; and the checks the commands share (which
seat, whose table, who may move now)."""

from __future__ import annotations

import contextlib
import math
import secrets
from collections.abc import Mapping
from typing import Any

from app import engine
from app.engine import GameState
from app.tables.change import Actor, Change, MoveResult
from app.tables.computer import BOT_LEVELS, STAND_IN_LEVEL
from app.tables.errors import TableError
from app.tables.mine import check_room, my_games
from app.tables.model import Seat, Table
from app.tables.pace import TablePace, clock_end
from app.tables.presence import Presence
from app.tables.rated import refuse_hints

DEFAULT_BOT_LEVEL = "standard"
# The most extra time the host may give at once (seconds): a week.
MAX_EXTRA_SECONDS = 7 * 24 * 3600


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
        pace: TablePace | None = None,
        rated: bool = False,
        hints: bool = False,
    ) -> Table:
        """A new table with ``actor`` in seat 0 as its host, and computer players in the seats
        ``bots`` names (seat number -> level). Every value is checked before anything is
        stored: a bad one raises and creates nothing. For a live table the creator and
        ``address`` (the client's, when known) may have only so many live tables
        (app.tables.limits): TooManyTables. ``pace``: checked by app.tables.pace.check_pace
        (live when None); a turn-based table has no turn timer, and counts for the creator's
        turn-based games instead (TooManyGames), checked under their games lock."""
        try:
            rules = engine.make_rules(preset, options)
        except engine.RulesError as exc:
            raise TableError(getattr(exc, "code", "bad_options"), str(exc)) from None
        pace = pace or TablePace()
        if pace.pace == "turn":
            if turn_timer:
                raise TableError("bad_timer", "a turn-based table has a time per move instead")
            turn_timer = 0
        if turn_timer is None:
            turn_timer = 0 if private else self.settings.turn_timer_seconds
        if not 0 <= turn_timer <= 3600:
            raise TableError("bad_timer", "turn_timer must be between 0 and 3600 seconds")
        computers = _bot_seats(bots or {}, rules.players)
        if not isinstance(rated, bool):
            raise TableError("bad_rated", "rated must be true or false")
        if not isinstance(hints, bool):
            raise TableError("bad_hints", "hints must be true or false")
        if rated:  # app.tables.rated: no hints; the creator must be a rated player
            refuse_hints({**rules.to_json(), "hints": hints})
            await self.rated_rules.check_player(actor.player_id, self.clock())
        # A turn-based table counts for its creator's turn-based games (checked and charged
        # under the player's games lock, across instances), not for their live tables.
        turn = pace.pace == "turn"
        async with self.games.holding(actor.player_id) if turn else contextlib.nullcontext():
            if turn:
                await self._check_games(actor.player_id)
            return await self._create_table(
                actor, preset, rules, private, turn_timer, pace, computers, rated, address, hints
            )

    async def _create_table(
        self,
        actor: Actor,
        preset: str,
        rules: engine.Rules,
        private: bool,
        turn_timer: int,
        pace: TablePace,
        computers: dict[int, str],
        rated: bool,
        address: str | None,
        hints: bool = False,
    ) -> Table:
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
            pace=pace.pace,
            move_seconds=pace.move_seconds,
            hours=list(pace.hours) if pace.hours else None,
            time_zone=pace.time_zone,
        )
        table.rated = rated
        table.hints = hints
        # The creator sits in the first seat.
        table.seats[0] = Seat(
            kind="human",
            player_id=actor.player_id,
            name=actor.name,
            address=self.rated_rules.digest(table.id, address),
        )
        events: list[dict[str, Any]] = [{"kind": "created", "by": actor.name}]
        for seat_no, level in computers.items():
            table.seats[seat_no] = Seat(kind="bot", level=level)
            events.append({"kind": "bot_added", "seat": seat_no, "level": level})
        charged = (
            []
            if pace.pace == "turn"
            else await self.limits.reserve(table.id, actor.player_id, address, now)
        )
        try:
            result = await self._commit(table, None, None, Change(events=events), expected=0)
        except BaseException:
            await self.limits.release(table.id, charged)
            raise
        if not result:
            await self.limits.release(table.id, charged)
            raise TableError("busy", "table id collision; try again")
        table.version = 1
        await self.games.add(actor.player_id, table.id, now)
        return table

    async def _check_games(self, player_id: str, joining: str | None = None) -> None:
        await check_room(
            self.games, self._resting, player_id, self.settings.turn_based_games_max, joining
        )

    async def my_games(self, player_id: str) -> dict[str, Any]:
        """The player's My games page (app.tables.mine)."""
        return await my_games(self.games, self._resting, player_id, self.clock())

    async def _resting(self, table_id: str) -> tuple[Table, GameState | None]:
        """A table as My games reads it: a paged-out one stays out of Redis."""
        return await self.read(table_id, page_in=False)

    async def sit(
        self,
        table_id: str,
        actor: Actor,
        seat_no: int,
        *,
        command_id: str | None = None,
        address: str | None = None,
    ) -> MoveResult:
        """``address``: the client's address group (app.api.client), when known; players of
        one address are told to the table, and kept apart at a public rated table."""
        present = (await self._count(table_id, actor.player_id, 0, report=False)).holder > 0
        # A table's pace, and whether it is rated, never change: any copy this instance
        # holds tells them.
        hit = self._read_cache.get(table_id)
        turn = (hit[1] if hit is not None else (await self.read(table_id))[0]).turn_based
        # Checked and seated under the player's games lock (across instances).
        async with self.games.holding(actor.player_id) if turn else contextlib.nullcontext():
            if turn:
                await self._check_games(actor.player_id, joining=table_id)
            return await self._sit(table_id, actor, seat_no, command_id, address, present, hit)

    async def _sit(
        self,
        table_id: str,
        actor: Actor,
        seat_no: int,
        command_id: str | None,
        address: str | None,
        present: bool,
        hit: Any,
    ) -> MoveResult:
        if (hit[1] if hit is not None else (await self.read(table_id))[0]).rated:
            await self.rated_rules.check_player(actor.player_id, self.clock())
        if self.seat_gate is not None:  # the app's check of blocks (app/friends/seating.py)
            await self.seat_gate(actor.player_id, (await self.read(table_id))[0])
        digest = self.rated_rules.digest(table_id, address or actor.address)

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            seat = seat_at(table, seat_no)
            no_compete(table, "sit")
            if table.seat_of(actor.player_id) is not None:
                raise TableError("already_seated", "you already have a seat at this table")
            if seat.kind == "open" and table.status in ("waiting", "over"):
                pass
            elif seat.kind == "bot" and seat.vacated and table.status == "playing":
                pass  # take over a seat a player left during the game
            else:
                raise TableError("seat_taken", f"seat {seat_no} is not free", {"seat": seat_no})
            if table.rated and not table.private and _address_seated(table, digest):
                raise TableError(
                    "shared_address",
                    "a player from your address already sits at this public rated table",
                )
            table.seats[seat_no] = Seat(
                kind="human",
                player_id=actor.player_id,
                name=actor.name,
                address=digest,
                left=seat.left if table.status == "playing" else False,
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
        await self.games.add(actor.player_id, table_id, self.clock())
        return result

    async def leave(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        abandoned: list[tuple[str, int]] = []  # a rated game this player left: (table, game)

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            seat_no = my_seat(table, actor)
            if table.status == "playing":
                no_compete(table, "leave")
            old = table.seats[seat_no]
            abandoned.clear()
            if table.status == "playing" and old.owner_id in (None, actor.player_id):
                abandoned.append((table.id, table.game_no))
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
                    # ranked last at a rated table, however the computer plays on
                    left=table.rated or old.left,
                )
                if not table.rated:
                    abandoned.clear()
            else:
                table.seats[seat_no] = Seat()
            if table.host == actor.player_id:
                table.host = next(
                    (s.player_id for s in table.seats if s.kind == "human" and s.player_id), None
                )
            return Change(events=[{"kind": "left", "seat": seat_no, "name": actor.name}])

        result = await self._command(table_id, actor, command_id, fn)
        for table_id_, game_no in abandoned:  # counted now: a ban holds from this moment
            await self.rated_rules.record_abandon(actor.player_id, self.clock(), table_id_, game_no)
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
                raise TableError("seat_taken", f"seat {seat_no} is not free", {"seat": seat_no})
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
                raise TableError(
                    "bad_seat", f"seat {seat_no} has no computer player", {"seat": seat_no}
                )
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
            seat.timeouts = 0
            return Change(events=[{"kind": "back", "seat": seat_no}])

        return await self._command(table_id, actor, command_id, fn)

    async def give_time(
        self,
        table_id: str,
        actor: Actor,
        seat_no: int,
        seconds: object,
        *,
        command_id: str | None = None,
    ) -> MoveResult:
        """The host gives the player in ``seat_no`` extra time on the move they have to make
        now (a turn-based table; in the pass, every seat still passing shares the clock)."""
        if (
            not isinstance(seconds, int)
            or isinstance(seconds, bool)
            or seconds % 3600
            or not 3600 <= seconds <= MAX_EXTRA_SECONDS
        ):
            raise TableError(
                "bad_extra_time",
                f"extra time is whole hours, from 3600 to {MAX_EXTRA_SECONDS} seconds",
                {"most": MAX_EXTRA_SECONDS},
            )
        extra = seconds

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            require_host(table, actor)
            if not table.turn_based:
                raise TableError("wrong_pace", "extra time is for turn-based tables")
            seat = seat_at(table, seat_no)
            if (
                table.status != "playing"
                or table.deadline_ms is None
                or seat_no not in table.deadline_seats
            ):
                raise TableError(
                    "not_their_turn", f"seat {seat_no} has no move to make now", {"seat": seat_no}
                )
            window, zone = table.hours_window(), table.time_zone
            table.deadline_ms = clock_end(table.deadline_ms, extra, window, zone)
            if table.warn_ms is not None:
                table.warn_ms = clock_end(table.warn_ms, extra, window, zone)
            event = {"kind": "extra_time", "seat": seat_no, "seconds": extra, "name": seat.name}
            # A change of the table's view (its deadline): every page gets the new state.
            return Change(events=[event])

        return await self._command(table_id, actor, command_id, fn)


# -- the checks commands share -------------------------------------------------------------


# What a competition's table (``table.compete``, app.compete) refuses, and why.
_COMPETE_REFUSALS = {
    "chat": "there is no chat at a competition's table",
    "sit": "a competition's table has its players already",
    "leave": "a competition's game is yours to finish: close the page and come back to it",
    "rematch": "a competition's table plays its games once",
    "watch": "a competition's table has no spectators",
}


def no_compete(table: Table, what: str) -> None:
    """Refuse ``what`` at a competition's table (TableError ``compete_table``)."""
    if table.compete:
        raise TableError("compete_table", _COMPETE_REFUSALS[what])


def seat_at(table: Table, seat_no: int) -> Seat:
    if not isinstance(seat_no, int) or not 0 <= seat_no < len(table.seats):
        last = len(table.seats) - 1
        raise TableError("bad_seat", f"seats are numbered 0 to {last}", {"last": last})
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
            {"version": table.version, "expected": expected_version},
        )
    if table.status == "over":
        raise TableError("game_over", "the game is over")
    if table.status != "playing" or state is None:
        raise TableError("wrong_status", "the game has not started")
    seat_no = my_seat(table, actor)
    if table.pause_until_ms is not None and now < table.pause_until_ms:
        left = math.ceil((table.pause_until_ms - now) / 1000)
        raise TableError("between_hands", f"the next hand opens in {left} s", {"wait": left})
    return seat_no, state


def _address_seated(table: Table, digest: str | None) -> bool:
    """Whether a player of this address digest already sits at the table."""
    return digest is not None and any(
        s.kind == "human" and s.address == digest for s in table.seats
    )


def _check_level(level: object) -> str:
    if not isinstance(level, str) or level not in BOT_LEVELS:
        raise TableError(
            "bad_level",
            f"computer level {level!r} is not one of {', '.join(BOT_LEVELS)}",
            {"level": str(level), "levels": ", ".join(BOT_LEVELS)},
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
            raise TableError(
                "bad_seat",
                f"computer seat {key!r}: seats are 0 to {players - 1}",
                {"seat": str(key), "last": players - 1},
            )
        if seat_no == 0:
            raise TableError("bad_seat", "seat 0 is the creator's; computers go in seats 1 and up")
        if seat_no in seats:
            raise TableError("bad_seat", f"seat {seat_no} is named twice", {"seat": seat_no})
        seats[seat_no] = _check_level(level)
    return dict(sorted(seats.items()))

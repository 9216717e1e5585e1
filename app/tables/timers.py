"""Time at a table: turn deadlines, the pause between hands, the computers' natural delay,
disconnect grace, idleness and how long the table's keys live.

Pure functions of the table, its game and the time; the writer calls them on every commit
(``schedule``, ``next_due``, ``ttl``) and the due work when something is due (``due_change``).
"""

from __future__ import annotations

import random
from typing import Any

from app import engine
from app.engine import GameState
from app.settings import Settings
from app.tables.change import Change, FindGameId
from app.tables.computer import ComputerPlayers, level_of
from app.tables.model import Seat, Table
from app.tables.records import record_due


def schedule(
    table: Table,
    old_state: GameState | None,
    state: GameState,
    now: float,
    *,
    settings: Settings,
    rng: random.Random,
    computer: ComputerPlayers,
    moved: bool = False,
) -> None:
    """Set the turn deadline and the computer's next action from whose turn it is."""
    if table.pause_until_ms is not None:
        if now < table.pause_until_ms:
            # Between hands nobody acts: the clocks start when the pause is over.
            table.deadline_ms = None
            table.deadline_seats = []
            table.bot_due_ms = None
            return
        table.pause_until_ms = None
        moved = True  # the next hand opens now: fresh deadline and computer delay
    actors = engine.seats_to_act(state)
    humans = [i for i in actors if not table.seats[i].computer_plays]
    computers = [i for i in actors if table.seats[i].computer_plays]
    if humans and table.turn_timer > 0:
        # A deadline runs on while the same group still has to act (passing: several
        # seats at once); any other move starts a fresh one.
        same_turn = (
            table.deadline_ms is not None
            and set(humans) <= set(table.deadline_seats)
            and (
                not moved
                or (
                    old_state is not None
                    and old_state.phase == state.phase == "pass"
                    and old_state.hand_no == state.hand_no
                )
            )
        )
        if not same_turn:
            table.deadline_ms = now + table.turn_timer * 1000
        table.deadline_seats = humans
    else:
        table.deadline_ms = None
        table.deadline_seats = []
    if computers:
        if table.bot_due_ms is None or moved:
            # A natural pause; a searching level spends part of it thinking.
            level = level_of(table.seats[computers[0]])
            delay = rng.uniform(
                settings.bot_delay_min_ms, settings.bot_delay_max_ms
            ) - computer.expected_ms(level, state.phase)
            table.bot_due_ms = now + max(0.0, delay)
    else:
        table.bot_due_ms = None


def next_due(
    table: Table, now: float, settings: Settings, find_game_id: FindGameId | None
) -> float | None:
    """When the due loop should next visit the table (None: nothing will be due)."""
    if table.status != "playing":
        return record_due(table, now, find_game_id)
    times = [
        t for t in (table.deadline_ms, table.bot_due_ms, table.pause_until_ms) if t is not None
    ]
    # An idle game is recorded as abandoned (then expires like a finished one).
    times.append(table.updated_ms + settings.idle_table_ttl_seconds * 1000)
    grace_ms = settings.disconnect_grace_seconds * 1000
    for seat in table.seats:
        if seat.kind == "human" and not seat.away and seat.gone_since is not None:
            times.append(seat.gone_since + grace_ms)
    return min(times) if times else None


def ttl(table: Table, settings: Settings) -> int:
    """Seconds the table's keys live without a change. A game in progress keeps a margin
    past the idle time, so the due loop can record it as abandoned before it expires."""
    if table.status == "over":
        return settings.finished_table_ttl_seconds
    idle = settings.idle_table_ttl_seconds
    if table.status == "playing":
        return idle + 60 + int(2 * settings.due_lease_seconds)
    if not any(seat.kind == "human" for seat in table.seats):
        # Everyone left before a game: nobody can start it but a newcomer with its link
        # (it is not listed), and it still counts for its creator (app.tables.limits).
        return min(idle, settings.empty_table_ttl_seconds)
    return idle


def grace_ran_out(table: Table, now: float, settings: Settings) -> bool:
    """Whether a seated player's disconnect grace ran out during the game."""
    grace_ms = settings.disconnect_grace_seconds * 1000
    return table.status == "playing" and any(_gone(s, now, grace_ms) for s in table.seats)


def _gone(seat: Seat, now: float, grace_ms: float) -> bool:
    """A player whose disconnect grace ran out (and whom the computer does not yet stand for)."""
    return (
        seat.kind == "human"
        and not seat.away
        and seat.gone_since is not None
        and seat.gone_since + grace_ms <= now
    )


def due_change(
    table: Table,
    state: GameState | None,
    now: float,
    settings: Settings,
    present: frozenset[str] = frozenset(),
) -> tuple[Change, int | None]:
    """Timers, grace periods and idleness at ``now``; and the seat a computer plays now.
    ``present``: seated players whose grace ran out but who have a socket open."""
    if table.status != "playing" or state is None:
        return Change(commit=False), None
    if now >= table.updated_ms + settings.idle_table_ttl_seconds * 1000:
        return Change(abandon="idle"), None
    # Between hands nobody acts; once the pause is over, the commit's schedule opens the
    # next hand (fresh deadline, computers after their natural delay).
    between = table.pause_until_ms is not None
    resumed = table.pause_until_ms is not None and table.pause_until_ms <= now
    events: list[dict[str, Any]] = []
    actors = engine.seats_to_act(state)
    grace_ms = settings.disconnect_grace_seconds * 1000
    healed = False
    for i, seat in enumerate(table.seats):
        if _gone(seat, now, grace_ms):
            if seat.player_id in present:
                seat.gone_since = None  # connected after all
                healed = True
                continue
            seat.away = True
            events.append({"kind": "away", "seat": i, "reason": "disconnected"})
    if table.deadline_ms is not None and table.deadline_ms <= now:
        for i in table.deadline_seats:
            if i in actors and not table.seats[i].computer_plays:
                table.seats[i].away = True
                events.append({"kind": "away", "seat": i, "reason": "timeout"})
        table.deadline_ms = None
        table.deadline_seats = []
    if events and not between and any(table.seats[i].computer_plays for i in actors):
        table.bot_due_ms = min(table.bot_due_ms or now, now)
    seat_no = None
    if not between and table.bot_due_ms is not None and table.bot_due_ms <= now:
        seat_no = next((i for i in actors if table.seats[i].computer_plays), None)
        table.bot_due_ms = None
    if not events and seat_no is None and not resumed and not healed:
        return Change(commit=False), None
    return Change(events=events), seat_no

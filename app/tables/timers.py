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
from app.tables.pace import TIMEOUTS_TO_AWAY, WARN_SHARE, clock_end
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
    if humans and (table.turn_timer > 0 or table.turn_based):
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
            if table.turn_based:
                # Turn-based: the clock runs in the playing hours only (app.tables.pace).
                window, zone = table.hours_window(), table.time_zone
                table.deadline_ms = clock_end(now, table.move_seconds, window, zone)
                table.warn_ms = clock_end(now, table.move_seconds * WARN_SHARE, window, zone)
                table.turn_began_ms = now
            else:
                table.deadline_ms = now + table.turn_timer * 1000
        table.deadline_seats = humans
    else:
        table.deadline_ms = None
        table.deadline_seats = []
        table.warn_ms = None
    if computers:
        if table.turn_based:
            # Computers at a turn-based table play at once: nobody watches them think.
            if table.bot_due_ms is None or moved:
                table.bot_due_ms = now
        elif table.bot_due_ms is None or moved:
            # A natural pause; a searching level spends part of it thinking.
            level = level_of(table.seats[computers[0]])
            delay = rng.uniform(
                settings.bot_delay_min_ms, settings.bot_delay_max_ms
            ) - computer.expected_ms(level, state.phase)
            table.bot_due_ms = now + max(0.0, delay)
    else:
        table.bot_due_ms = None


def next_due(
    table: Table,
    now: float,
    settings: Settings,
    find_game_id: FindGameId | None,
    *,
    page_out: bool = False,
) -> float | None:
    """When the due loop should next visit the table (None: nothing will be due). With
    ``page_out`` (the service keeps SQL copies), a playing turn-based table is also visited to
    page it out when idle (app.tables.durable)."""
    if table.status != "playing":
        return record_due(table, now, find_game_id)
    times = [
        t
        for t in (table.deadline_ms, table.bot_due_ms, table.pause_until_ms, table.warn_ms)
        if t is not None
    ]
    if table.turn_based:
        # A turn-based game is never idle (its clocks end each turn), and a player away from
        # the page is no disconnected player there.
        page_ms = settings.turn_based_page_out_seconds * 1000
        if page_ms > 0 and page_out:
            out = table.updated_ms + page_ms
            times.append(out if out > now else now + page_ms)
        return min(times) if times else None
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
    if table.turn_based:
        return _turn_based_ttl(table, settings, idle)
    if table.status == "playing":
        return idle + 60 + int(2 * settings.due_lease_seconds)
    if not any(seat.kind == "human" for seat in table.seats):
        # Everyone left before a game: nobody can start it but a newcomer with its link
        # (it is not listed), and it still counts for its creator (app.tables.limits).
        return min(idle, settings.empty_table_ttl_seconds)
    return idle


def _turn_based_ttl(table: Table, settings: Settings, idle: int) -> int:
    """A turn-based table lives past its next clock's end (the due loop acts on it then and
    the commit sets a new lifetime); waiting for its players, as long as one move's time."""
    if table.status == "playing":
        margin = idle + 60 + int(2 * settings.due_lease_seconds)
        ends = [t for t in (table.deadline_ms, table.warn_ms) if t is not None]
        if not ends:
            return margin
        return margin + max(0, int((max(ends) - table.updated_ms) / 1000))
    return max(idle, table.move_seconds)


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
    turn_based = table.turn_based
    if not turn_based and now >= table.updated_ms + settings.idle_table_ttl_seconds * 1000:
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
        if not turn_based and _gone(seat, now, grace_ms):
            if seat.player_id in present:
                seat.gone_since = None  # connected after all
                healed = True
                continue
            seat.away = True
            events.append({"kind": "away", "seat": i, "reason": "disconnected"})
    if table.deadline_ms is not None and table.deadline_ms <= now:
        for i in table.deadline_seats:
            if i in actors and not table.seats[i].computer_plays:
                if turn_based:
                    events += _out_of_time(table.seats[i], i)
                else:
                    table.seats[i].away = True
                    events.append({"kind": "away", "seat": i, "reason": "timeout"})
        table.deadline_ms = None
        table.deadline_seats = []
        table.warn_ms = None
    notices: list[tuple[str, str]] = []
    if turn_based and table.warn_ms is not None and table.warn_ms <= now:
        # 80% of the move's time is used: the players still to act are told, once.
        table.warn_ms = None
        for i in table.deadline_seats:
            seat = table.seats[i]
            if i in actors and not seat.computer_plays and seat.player_id is not None:
                notices.append((seat.player_id, "time_almost_up"))
    if events and not between and any(table.seats[i].computer_plays for i in actors):
        table.bot_due_ms = min(table.bot_due_ms or now, now)
    seat_no = None
    if not between and table.bot_due_ms is not None and table.bot_due_ms <= now:
        seat_no = next((i for i in actors if table.seats[i].computer_plays), None)
        table.bot_due_ms = None
    if not events and seat_no is None and not resumed and not healed:
        if notices:  # only the warning: stored (it is given once), no activity
            return Change(state_changed=False, save_table=True, notices=notices), None
        return Change(commit=False), None
    return Change(events=events, notices=notices), seat_no


def _out_of_time(seat: Seat, seat_no: int) -> list[dict[str, Any]]:
    """A turn-based player's time ran out: the computer plays this one move for them; after
    TIMEOUTS_TO_AWAY such moves in a row it takes the seat until they come back."""
    seat.forced = True
    seat.timeouts += 1
    events: list[dict[str, Any]] = [{"kind": "timeout", "seat": seat_no, "row": seat.timeouts}]
    if seat.timeouts >= TIMEOUTS_TO_AWAY:
        seat.away = True
        events.append({"kind": "away", "seat": seat_no, "reason": "timeout"})
    return events

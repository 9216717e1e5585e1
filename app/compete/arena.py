"""The arena format's rules, pure (no I/O, no clock): as lichess's Arena, a time window
instead of rounds, and a player is seated again as soon as their game ends.

Who is seated with whom: the players waiting (registered, not paused, not at a table) are
queued longest waiting first; the queue's first ``table_size * k`` players (every full table
it makes) sit down at once, those tables seated by the standings (the leaders together, as
a Swiss round: app.compete.swiss). The few left over (fewer than a table) wait for the next
game to end, unless one of them has waited ``fill_seconds`` already: then they sit down
together and computers fill the table's empty seats (as the Swiss format fills its short
last table). Nobody waits long, and nobody sits at two tables.

When: a table starts only while at least ``last_call_seconds`` of the window are left (a
game begun in its last seconds would be played almost wholly after the clock shows zero);
a game that started in time plays to its end and counts. The arena ends once the window has
closed and its last table has finished.

Each finished game's table points by place (app.compete.swiss.table_points, ties share) go
into the standings at once (app.compete.events.round_results).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from app.compete.swiss import Seat, Standing, order, seat_round, tie_break


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player waiting for a table: their standing and how long they have waited."""

    player_id: str
    table_points: float = 0.0
    game_points: int = 0
    waited: float = 0.0  # seconds


def seat_waiting(
    waiting: Iterable[Waiting], table_size: int, event_seed: str, fill_seconds: float
) -> list[list[Seat]]:
    """The tables to start now (each ``table_size`` seats, players first, computers None at
    the end); the players not in them keep waiting (fewer than a table)."""
    if table_size < 2:
        raise ValueError("a table has at least two seats")
    queue = sorted(waiting, key=lambda w: (-w.waited, tie_break(event_seed, w.player_id)))
    if len({w.player_id for w in queue}) != len(queue):
        raise ValueError("a player waits once")
    full = len(queue) // table_size * table_size
    chosen, rest = queue[:full], queue[full:]
    tables = seat_round(
        [Standing(w.player_id, w.table_points, w.game_points) for w in chosen],
        table_size,
        event_seed,
    )
    if rest and max(w.waited for w in rest) >= fill_seconds:
        left = order(
            [Standing(w.player_id, w.table_points, w.game_points) for w in rest], event_seed
        )
        tables.append([s.player_id for s in left] + [None] * (table_size - len(left)))
    return tables


def seconds_left(now: datetime, ends_at: datetime) -> float:
    return (ends_at - now).total_seconds()


def may_start(now: datetime, ends_at: datetime, last_call_seconds: float) -> bool:
    """Whether a table may start now: the window is open and at least ``last_call_seconds``
    of it are left."""
    left = seconds_left(now, ends_at)
    return left > 0 and left >= last_call_seconds

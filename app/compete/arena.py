"""The arena format's rules, pure (no I/O, no clock): as lichess's Arena, a time window
instead of rounds, and a player is seated again as soon as their game ends.

Who is seated with whom: the players waiting (registered, not paused, not at a table) are
queued longest waiting first, then (those back from one game together wait equally long)
fewest games played first, then by a draw that changes with each game (so that no player is
always the one left over, as a fixed tie-break or the standings would make them); the
queue's first ``table_size * k`` players (every full table it makes) sit down at once, those
tables seated by the standings (the leaders together, as a Swiss round: app.compete.swiss).
The few left over (fewer than a table) wait for the next game to end, unless one of them has
waited ``fill_seconds`` already: then they sit down together and computers fill the table's
empty seats (as the Swiss format fills its short last table). Nobody waits long, and nobody
sits at two tables.

When: a table starts only while at least ``last_call_seconds`` of the window are left (a
game begun in its last seconds would be played almost wholly after the clock shows zero);
a game that started in time plays to its end and counts. The arena ends once the window has
closed and its last table has finished.

Who meets whom again: a table's worth of players free together (the four just back from
one table) sit down together, as they must; but when several tables start together, those
tables are made so that nobody sits with a player of their last game (as lichess's pairing
avoids the last opponent): the standings' seating is kept when it repeats no pair, else
tables are filled in standings order skipping who met, always keeping the rest seatable (a
last game's group never outnumbers the tables left), which avoids every repeat whenever the
groups are no larger than the number of tables.

Each finished game's table points by place (app.compete.swiss.table_points, ties share) go
into the standings at once (app.compete.events.round_results).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from app.compete.swiss import Seat, Standing, order, seat_round, tie_break


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player waiting for a table: their standing and how long they have waited."""

    player_id: str
    table_points: float = 0.0
    game_points: int = 0
    waited: float = 0.0  # seconds
    met: frozenset[str] = field(default_factory=frozenset)  # the players of their last game
    games: int = 0  # games played in the arena so far


def seat_waiting(
    waiting: Iterable[Waiting], table_size: int, event_seed: str, fill_seconds: float
) -> list[list[Seat]]:
    """The tables to start now (each ``table_size`` seats, players first, computers None at
    the end); the players not in them keep waiting (fewer than a table)."""
    if table_size < 2:
        raise ValueError("a table has at least two seats")
    queue = sorted(waiting, key=lambda w: _queue_key(w, event_seed))
    if len({w.player_id for w in queue}) != len(queue):
        raise ValueError("a player waits once")
    full = len(queue) // table_size * table_size
    chosen, rest = queue[:full], queue[full:]
    tables = _apart(chosen, table_size, event_seed)
    if rest and max(w.waited for w in rest) >= fill_seconds:
        left = order(
            [Standing(w.player_id, w.table_points, w.game_points) for w in rest], event_seed
        )
        tables.append([s.player_id for s in left] + [None] * (table_size - len(left)))
    return tables


def _queue_key(w: Waiting, event_seed: str) -> tuple[float, int, int]:
    """Who sits down first: the longest waiting, then the fewest games played, then a draw of
    the event's seed and the player's games (a new one each game)."""
    return (-w.waited, w.games, tie_break(f"{event_seed}:{w.games}", w.player_id))


def _apart(chosen: Sequence[Waiting], table_size: int, event_seed: str) -> list[list[Seat]]:
    """The full tables of ``chosen`` (a multiple of ``table_size``): the standings' seating
    if it repeats no pair of a last game, else the leaders first, nobody seated with one they
    just played while the rest allows it."""
    standings = [Standing(w.player_id, w.table_points, w.game_points) for w in chosen]
    tables = seat_round(standings, table_size, event_seed)
    met = {w.player_id: w.met for w in chosen}

    def clash(a: str, b: str) -> bool:
        return b in met[a] or a in met[b]

    if len(tables) < 2 or not any(_repeats(t, clash) for t in tables):
        return tables
    # One group per last game (a player's own and its players'); a group seated twice at a
    # table repeats a pair. The rest stays seatable without repeats while no group has more
    # players left than there are tables left.
    group = {w.player_id: frozenset(w.met | {w.player_id}) for w in chosen}
    rank = {s.player_id: n for n, s in enumerate(order(standings, event_seed))}
    left = sorted(met, key=rank.__getitem__)
    out: list[list[Seat]] = []
    for tables_left in range(len(tables), 0, -1):
        sizes = Counter(group[p] for p in left)
        tight = {g for g, n in sizes.items() if n >= tables_left}
        table: list[str] = []
        for tight_only in (True, False):  # the tight groups' best, then by rank
            for p in left:
                if len(table) == table_size:
                    break
                if p in table or (tight_only and group[p] not in tight):
                    continue
                if not any(clash(p, q) for q in table):
                    table.append(p)
        while len(table) < table_size:  # a repeat is unavoidable: as few as may be
            free = [p for p in left if p not in table]
            table.append(min(free, key=lambda p: (sum(clash(p, q) for q in table), rank[p])))
        left = [p for p in left if p not in table]
        table.sort(key=rank.__getitem__)
        out.append(list(table))
    return out


def _repeats(table: Sequence[Seat], clash: Callable[[str, str], bool]) -> bool:
    players = [p for p in table if p is not None]
    return any(clash(a, b) for i, a in enumerate(players) for b in players[i + 1 :])


def seconds_left(now: datetime, ends_at: datetime) -> float:
    return (ends_at - now).total_seconds()


def may_start(now: datetime, ends_at: datetime, last_call_seconds: float) -> bool:
    """Whether a table may start now: the window is open and at least ``last_call_seconds``
    of it are left."""
    left = seconds_left(now, ends_at)
    return left > 0 and left >= last_call_seconds

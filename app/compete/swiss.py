"""Swiss by standings for tables of more than two (as Board Game Arena's multiplayer Swiss):
after each round the players are seated by their standings, the leaders together at table 1,
the next ones at table 2, and so on; a field that does not fill its last table leaves it short,
and computers fill its empty seats (they score table points but have no standing). Withdrawn
players (no-shows included) leave the standings and are seated no more.

Table points per place are configurable (e.g. 6/4/2/0 at a 4-player table); players tied on a
game's score share the points of the places they tie for (two tied for first at 6/4/2/0 get 5
each). Standings order by total table points, then the total game score (fewer points are
better in Hearts), then a tie-break drawn from the event's seed, so equal players are not
ordered by when they registered.

Pure functions: no I/O, no clock. Seating a round of 10,000 players is one sort
(``python -m bench.compete`` measures it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# A seat at a Swiss table: a player's id, or None for a computer.
Seat = str | None


@dataclass(frozen=True, slots=True)
class Standing:
    player_id: str
    table_points: float = 0.0
    game_points: int = 0  # the player's Hearts points over the rounds (fewer is better)
    rounds: int = 0


def tie_break(event_seed: str, player_id: str) -> int:
    """A number fixed by the event and the player that nobody chooses."""
    digest = hashlib.sha256(f"{event_seed}:{player_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def order(standings: Iterable[Standing], event_seed: str) -> list[Standing]:
    """Best first: most table points, then fewest game points, then the drawn tie-break."""
    return sorted(
        standings,
        key=lambda s: (-s.table_points, s.game_points, tie_break(event_seed, s.player_id)),
    )


def seat_round(
    standings: Iterable[Standing],
    table_size: int,
    event_seed: str,
    withdrawn: Iterable[str] = (),
) -> list[list[Seat]]:
    """The tables of the next round: players in standing order, ``table_size`` to a table;
    the last table is filled with computers (None) when the field does not divide."""
    if table_size < 2:
        raise ValueError("a table has at least two seats")
    gone = set(withdrawn)
    field = [s.player_id for s in order(standings, event_seed) if s.player_id not in gone]
    tables: list[list[Seat]] = []
    for start in range(0, len(field), table_size):
        table: list[Seat] = list(field[start : start + table_size])
        table += [None] * (table_size - len(table))
        tables.append(table)
    return tables


def table_points(scores: Sequence[int], points_by_place: Sequence[float]) -> list[float]:
    """Each seat's table points from the game's final scores (fewer is better); seats tied on
    a score share the points of the places they occupy together."""
    if len(points_by_place) != len(scores):
        raise ValueError("give the points of every place at the table")
    ranked = sorted(range(len(scores)), key=lambda i: scores[i])
    out = [0.0] * len(scores)
    place = 0
    while place < len(ranked):
        tied = [i for i in ranked[place:] if scores[i] == scores[ranked[place]]]
        share = sum(points_by_place[place : place + len(tied)]) / len(tied)
        for i in tied:
            out[i] = share
        place += len(tied)
    return out


def after_round(
    standings: Mapping[str, Standing],
    tables: Sequence[Sequence[Seat]],
    scores: Sequence[Sequence[int]],
    points_by_place: Sequence[float],
) -> dict[str, Standing]:
    """The standings after a round: each seated player adds their table points and game
    points (computers' seats count for the places, not for any standing)."""
    out = dict(standings)
    for table, final in zip(tables, scores, strict=True):
        earned = table_points(final, points_by_place)
        for seat, player in enumerate(table):
            if player is None:
                continue
            old = out.get(player, Standing(player))
            out[player] = Standing(
                player,
                old.table_points + earned[seat],
                old.game_points + final[seat],
                old.rounds + 1,
            )
    return out

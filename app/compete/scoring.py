"""Matchpoints: a result is compared with every other result on the same deal version.

A player gets 1 matchpoint for each player who took more points on that version (fewer points
are better in Hearts) and 1/2 for each other player who took the same; of ``n`` players each
can get at most ``n - 1``. A total is the matchpoints over the deals played as a percentage of
the most that could have been had (50 when nobody else played the same versions yet).

Everything is computed from the count of results per points value (``ScoreCounts``): at most
27 values in a classic hand, whatever the number of players, so a player's matchpoints cost
the same at 100 or 100,000 players.

Places in any standings of the competition (the daily's leaderboards, an event's standings, a
club's): lines that tie share the best of their places, and the next line's place counts them
all (1, 1, 3), as in golf or chess tournaments, even across pages (``places``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

# points -> how many players took that many on one deal version
ScoreCounts = Mapping[int, int]


def matchpoints(points: Sequence[int]) -> list[float]:
    """Each result's matchpoints against the others of the same list (one deal version)."""
    counts = Counter(points)
    return [matchpoints_of(counts, p) for p in points]


def matchpoints_of(counts: ScoreCounts, points: int) -> float:
    """The matchpoints of a result of ``points`` among ``counts``, which include it."""
    if counts.get(points, 0) < 1:
        raise ValueError(f"the counts hold no result of {points} points")
    worse = sum(n for p, n in counts.items() if p > points)
    ties = counts[points] - 1
    return worse + ties / 2


def field_size(counts: ScoreCounts) -> int:
    return sum(counts.values())


@dataclass(frozen=True, slots=True)
class Total:
    """Matchpoints over some deals, and the most that could have been had on them."""

    matchpoints: float
    possible: int

    @property
    def percent(self) -> float:
        if self.possible == 0:
            return 50.0
        return 100.0 * self.matchpoints / self.possible


def total(results: Iterable[tuple[ScoreCounts, int]]) -> Total:
    """The total of (counts of a deal version, the player's points on it) pairs."""
    mp = 0.0
    possible = 0
    for counts, points in results:
        mp += matchpoints_of(counts, points)
        possible += field_size(counts) - 1
    return Total(mp, possible)


def places(
    keys: Sequence[Hashable], start: int = 0, before: tuple[Hashable, int] | None = None
) -> list[int]:
    """The places of lines in standing order whose equal ``keys`` tie: tied lines share the
    best of their places, and the next line's place counts them all (1, 1, 3). ``start``:
    how many lines come before these (a page's offset); ``before``: the key and place of the
    line just before them, so a tie across two pages keeps its place."""
    out: list[int] = []
    last = before
    for i, key in enumerate(keys):
        place = last[1] if last is not None and last[0] == key else start + i + 1
        out.append(place)
        last = (key, place)
    return out

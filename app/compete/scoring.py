"""Matchpoints: a result is compared with every other result on the same deal version.

A player gets 1 matchpoint for each player who took more points on that version (fewer points
are better in Hearts) and 1/2 for each other player who took the same; of ``n`` players each
can get at most ``n - 1``. A total is the matchpoints over the deals played as a percentage of
the most that could have been had (50 when nobody else played the same versions yet).

Everything is computed from the count of results per points value (``ScoreCounts``): at most
27 values in a classic hand, whatever the number of players, so a player's matchpoints cost
the same at 100 or 100,000 players.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
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

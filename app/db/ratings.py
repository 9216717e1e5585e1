"""Ratings per variant: pairwise Elo over the final totals of a finished game.

Why pairwise Elo: a Hearts game is a multiplayer result (an order of totals, ties possible) and
pairwise Elo, as several card sites use, scores it as every pair of seats playing one
head-to-head match: the lower total beats the higher one, equal totals draw. Each pair's Elo
change is divided by the number of opponents, so a 4-player game moves a rating about as much as
one two-player game. It needs no tuning beyond K, is easy to explain on a profile, and is exact
and deterministic, so a replayed outbox gives the same numbers. (A TrueSkill-like model converges
faster but its uncertainty is harder to show and to test.)

Computer players and replaced seats (see docs/persistence.md):
- A computer seat is an anchor with a fixed rating by level; it never changes. Pairs against a
  computer count half, so beating easy bots is not a fast road up the board.
- A seat taken over by a computer during the game still counts as its human: leaving, or being
  away until a computer finished the game, does not protect a rating.
- Abandoned games are not rated; nor are games with fewer than two rated seats with a human.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

INITIAL_RATING = 1500.0
PROVISIONAL_GAMES = 10  # a player's first rated games in a variant move faster
K_PROVISIONAL = 40.0
K_ESTABLISHED = 20.0
BOT_PAIR_WEIGHT = 0.5
# Measured, not chosen: `python -m bench.anchors` converts the tournament's points-per-hand
# differences (docs/bots.md) into Elo gaps, Standard anchored at 1500 (docs/persistence.md).
BOT_RATINGS = {"easy": 1096.0, "standard": 1500.0, "pro": 1692.0, "expert": 1831.0}


def bot_rating(level: str | None) -> float:
    return BOT_RATINGS.get((level or "standard").lower(), BOT_RATINGS["standard"])


def expected_score(rating: float, opponent: float) -> float:
    """Elo's expected score of `rating` against `opponent` (0..1)."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def k_factor(rated_games: int) -> float:
    return K_PROVISIONAL if rated_games < PROVISIONAL_GAMES else K_ESTABLISHED


@dataclass(frozen=True, slots=True)
class Contestant:
    rating: float
    total: int  # final total: lower is better
    is_bot: bool = False
    rated_games: int = 0


def pairwise_elo(contestants: Sequence[Contestant]) -> list[float]:
    """The rating change of each contestant (0.0 for computer seats)."""
    n = len(contestants)
    deltas = [0.0] * n
    if n < 2:
        return deltas
    for i, me in enumerate(contestants):
        if me.is_bot:
            continue
        k = k_factor(me.rated_games) / (n - 1)
        for j, other in enumerate(contestants):
            if i == j:
                continue
            if me.total < other.total:
                score = 1.0
            elif me.total == other.total:
                score = 0.5
            else:
                score = 0.0
            weight = BOT_PAIR_WEIGHT if other.is_bot else 1.0
            deltas[i] += k * weight * (score - expected_score(me.rating, other.rating))
    return deltas

"""Ratings per variant: a skill and its uncertainty, updated by the order of a game's results.

The model is Weng-Lin's Bayesian rating for free-for-all games, Plackett-Luce form (the
maintained `openskill` package): each player has a rating (the mean of their skill) and a
deviation (its uncertainty). A game is one ranking of its seats, the lowest final total first,
equal totals tied; every seat's rating moves by how surprising its place was, and its deviation
shrinks. `python -m bench.ratings` measured it against the pairwise Elo this replaced and against
pairwise Glicko-2 on held-out self-play games (docs/persistence.md "Ratings").

The scale is Elo's, so computer anchors and old numbers read the same: BETA (one player's
performance spread in a game) is 400 / ln 10 / sqrt 2, so that between two settled ratings a gap
of 400 is ten-to-one odds, as in Elo. A new player starts at 1500 with deviation 100 and TAU 1:
the values that predicted held-out games best in `bench.ratings` (docs/persistence.md). The
Plackett-Luce deviation falls slowly (100 to 85 in about 15 games against settled opponents,
to 72 in 40), so a rating is provisional while its deviation is above PROVISIONAL_DEVIATION.

- A computer seat is an anchor: a fixed rating by level with a tiny deviation; it never changes.
- A seat taken over by a computer during the game still counts for its human.
- A player who left a game at a rated table before its end is ranked last (tied with any
  other leaver), whatever the computer scored for the seat afterwards.

Everything is rounded to 2 decimals as it is stored, and the next game starts from the stored
values, so replaying the stored games in order gives the same numbers to the cent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from openskill.models import PlackettLuce

INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 100.0
BETA = 122.8  # 400 / ln(10) / sqrt(2): Elo's odds between two settled ratings
TAU = 1.0  # added to the deviation before each game, so a rating never stops moving
PROVISIONAL_DEVIATION = 85.0
ANCHOR_DEVIATION = 1.0
# Measured, not chosen: `python -m bench.anchors` converts the tournament's points-per-hand
# differences (docs/bots.md) into Elo gaps, Standard anchored at 1500 (docs/persistence.md).
BOT_RATINGS = {"easy": 1096.0, "standard": 1500.0, "pro": 1692.0, "expert": 1831.0}


def bot_rating(level: str | None) -> float:
    return BOT_RATINGS.get((level or "standard").lower(), BOT_RATINGS["standard"])


def is_provisional(deviation: float) -> bool:
    return deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True, slots=True)
class Skill:
    rating: float
    deviation: float = INITIAL_DEVIATION


NEW_PLAYER = Skill(INITIAL_RATING, INITIAL_DEVIATION)


@dataclass(frozen=True, slots=True)
class Contestant:
    skill: Skill
    total: int  # final total: lower is better
    is_bot: bool = False
    left: bool = False  # left a rated game before its end: ranked last


def anchor(level: str | None) -> Skill:
    return Skill(bot_rating(level), ANCHOR_DEVIATION)


@lru_cache(maxsize=1)
def model() -> PlackettLuce:
    return PlackettLuce(mu=INITIAL_RATING, sigma=INITIAL_DEVIATION, beta=BETA, tau=TAU)


def places(contestants: Sequence[Contestant]) -> list[int]:
    """Each seat's place (0 best; equal totals share a place); leavers after everyone else."""
    order = sorted({c.total for c in contestants if not c.left})
    last = len(order)
    return [last if c.left else order.index(c.total) for c in contestants]


def rate_game(contestants: Sequence[Contestant]) -> list[Skill]:
    """Every seat's skill after the game (a computer's is returned unchanged)."""
    if len(contestants) < 2:
        return [c.skill for c in contestants]
    m = model()
    teams = [[m.create_rating([c.skill.rating, c.skill.deviation])] for c in contestants]
    rated = m.rate(teams, ranks=[float(p) for p in places(contestants)])
    out = []
    for c, team in zip(contestants, rated, strict=True):
        if c.is_bot:
            out.append(c.skill)
        else:
            out.append(Skill(round(team[0].mu, 2), round(team[0].sigma, 2)))
    return out


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a stored game, as the rating reads it."""

    player_id: str | None
    bot_level: str | None
    total: int | None
    left: bool = False


@dataclass(frozen=True, slots=True)
class Update:
    player_id: str
    before: Skill
    after: Skill


def rated_seats(seats: Sequence[SeatResult]) -> list[SeatResult] | None:
    """The seats that take part (people, and computers as anchors; not anonymous seats or
    seats without a total), or None when the game cannot be rated: no person, fewer than two
    seats, or one person in two seats."""
    seated = [s for s in seats if s.total is not None and (s.player_id or s.bot_level)]
    people = [s.player_id for s in seated if s.player_id]
    if not people or len(seated) < 2 or len(set(people)) != len(people):
        return None
    return seated


def game_updates(
    seats: Sequence[SeatResult], skills: dict[str, Skill], *, only_leavers: bool = False
) -> list[Update]:
    """The rating updates of one game, given every person's skill before it (a person not in
    ``skills`` is new). ``only_leavers``: an abandoned game at a rated table, which counts
    for the players who left it and no one else."""
    seated = rated_seats(seats)
    if seated is None:
        return []
    contestants = []
    for s in seated:
        assert s.total is not None
        if s.player_id:
            skill = skills.get(s.player_id, NEW_PLAYER)
            contestants.append(Contestant(skill, s.total, False, s.left))
        else:
            contestants.append(Contestant(anchor(s.bot_level), s.total, True))
    after = rate_game(contestants)
    return [
        Update(s.player_id, c.skill, new)
        for s, c, new in zip(seated, contestants, after, strict=True)
        if s.player_id and (s.left or not only_leavers)
    ]


def replay(
    games: Sequence[tuple[Sequence[SeatResult], bool]],
) -> tuple[dict[str, Skill], list[list[Update]]]:
    """Every rated game in order (its seats, and whether it was abandoned): the final skills
    and each game's updates. The migration that introduced this model and the test of the
    results writer both use it."""
    skills: dict[str, Skill] = {}
    history: list[list[Update]] = []
    for seats, abandoned in games:
        updates = game_updates(seats, skills, only_leavers=abandoned)
        for u in updates:
            skills[u.player_id] = u.after
        history.append(updates)
    return skills, history

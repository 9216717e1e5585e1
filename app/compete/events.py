"""Events' rules, pure (no I/O, no clock): what makes an event valid, its table points by
place, the seeds of each round's deals, who leaves the standings as a no-show, and a round's
scores turned into what each seat earns.

Three formats:

- ``swiss``: Swiss by standings (app.compete.swiss): each round seated by the standings, a short
  last table filled by computers; a seat earns the table points of its place (configurable,
  ties share), and its game points.
- ``duplicate``: every table of a round plays the same deals in the same seats (one deal seed
  for the round); each seat's result is compared with the same seat at the other tables by the
  daily challenge's matchpoints (app.compete.scoring): the seat's table points are its
  matchpoints there.
- ``arena``: a time window instead of rounds; a player is seated again as soon as their game
  ends and earns the table points of their place at once (app.compete.arena: who is seated
  with whom, and when the window lets a table start).

A latecomer (not at the table within the event's grace time) has a computer in their seat for
the round and plays from the next one; a player who missed a whole round without showing up
at all (no-show) leaves the standings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.compete.errors import CompeteError
from app.compete.scoring import matchpoints
from app.compete.swiss import Seat, table_points

EVENT_FORMATS = ("swiss", "duplicate", "arena")
EVENT_STATES = ("registering", "running", "finished")
HANDS_PER_ROUND = 4  # a round's table plays this many hands exactly


class EventError(CompeteError):
    """An event's refusal (app.compete.errors)."""


@dataclass(frozen=True, slots=True)
class EventLimits:
    rounds_max: int = 12
    days_ahead_max: int = 14  # how far ahead an event may start
    entries_max: int = 1000  # players registered for one event
    open_events_per_player: int = 5  # events a player created that are not finished yet
    grace_seconds_max: int = 600
    arena_minutes_min: int = 5  # an arena's time window
    arena_minutes_max: int = 720


def default_points(table_size: int) -> list[float]:
    """2 points a place: 6/4/2/0 at four, 4/2/0 at three, 8/6/4/2/0 at five, 2/0 at two."""
    return [float(2 * (table_size - 1 - place)) for place in range(table_size)]


def check_points(points: Sequence[float], table_size: int) -> list[float]:
    """A place's points: one per place, best first, not increasing, from 0 to 100."""
    if len(points) != table_size:
        raise EventError(
            422,
            "bad_points",
            f"give the points of each of the {table_size} places",
            {"count": table_size},
        )
    out = [float(p) for p in points]
    if any(not 0 <= p <= 100 for p in out):
        raise EventError(422, "bad_points", "a place's points are from 0 to 100")
    if any(a < b for a, b in zip(out, out[1:], strict=False)):
        raise EventError(422, "bad_points", "a better place may not earn fewer points")
    return out


def points_text(points: Sequence[float]) -> str:
    return ",".join(f"{p:g}" for p in points)


def points_of(text: str) -> list[float]:
    return [float(p) for p in text.split(",")]


def check_start(starts_at: datetime, now: datetime, limits: EventLimits) -> datetime:
    if starts_at.tzinfo is None:
        raise EventError(422, "bad_start", "give the start time with its time zone")
    if starts_at < now:
        raise EventError(422, "bad_start", "an event starts in the future")
    if starts_at > now + timedelta(days=limits.days_ahead_max):
        raise EventError(
            422,
            "bad_start",
            f"an event starts at most {limits.days_ahead_max} days ahead",
            {"reason": "too_far", "limit": limits.days_ahead_max},
        )
    return starts_at


def check_rounds(rounds: int, limits: EventLimits) -> int:
    if not 1 <= rounds <= limits.rounds_max:
        raise EventError(
            422,
            "bad_rounds",
            f"an event has 1 to {limits.rounds_max} rounds",
            {"limit": limits.rounds_max},
        )
    return rounds


def check_grace(grace_seconds: int, limits: EventLimits) -> int:
    if not 0 <= grace_seconds <= limits.grace_seconds_max:
        raise EventError(
            422,
            "bad_grace",
            f"the grace time is 0 to {limits.grace_seconds_max} seconds",
            {"limit": limits.grace_seconds_max},
        )
    return grace_seconds


def check_minutes(minutes: int | None, limits: EventLimits) -> int:
    """An arena's time window, in minutes."""
    low, high = limits.arena_minutes_min, limits.arena_minutes_max
    if minutes is None:
        raise EventError(
            422,
            "bad_minutes",
            f"give an arena's length: {low} to {high} minutes",
            {"low": low, "high": high},
        )
    if not low <= minutes <= high:
        raise EventError(
            422,
            "bad_minutes",
            f"an arena lasts {low} to {high} minutes",
            {"low": low, "high": high},
        )
    return minutes


def deal_seed(event_seed: str, format: str, round_no: int, table_no: int) -> int:
    """The seed a round's table deals from (a table's positive seed): one for the whole round
    in duplicate (every table the same deals in the same seats), one per table in Swiss."""
    part = "all" if format == "duplicate" else str(table_no)
    digest = hashlib.sha256(f"event:{event_seed}:{round_no}:{part}".encode()).digest()
    return (int.from_bytes(digest[:8], "big") & (2**62 - 1)) or 1


def no_shows(last_seen: Iterable[tuple[str, int]], round_no: int) -> list[str]:
    """Of (player, last round they sat down in or came late to), those who leave the
    standings before ``round_no`` is seated: they missed round ``round_no - 1`` entirely
    (registration counts as round 0)."""
    if round_no <= 1:
        return []
    return [player for player, seen in last_seen if seen < round_no - 1]


@dataclass(frozen=True, slots=True)
class SeatResult:
    player_id: str
    table_points: float
    game_points: int


def round_results(
    format: str,
    tables: Sequence[Sequence[Seat]],
    scores: Sequence[Sequence[int]],
    points_by_place: Sequence[float],
) -> list[SeatResult]:
    """What each seated player earns in a round (computers' and latecomers' seats, None,
    count in the comparison but earn nobody anything)."""
    if len(tables) != len(scores) or any(
        len(t) != len(s) for t, s in zip(tables, scores, strict=True)
    ):
        raise ValueError("a score for every seat of every table")
    earned: list[list[float]]
    if format in ("swiss", "arena"):
        earned = [table_points(final, points_by_place) for final in scores]
    elif format == "duplicate":
        earned = [[0.0] * len(final) for final in scores]
        for seat in range(len(scores[0]) if scores else 0):
            same_seat = [final[seat] for final in scores]
            for table_no, mp in enumerate(matchpoints(same_seat)):
                earned[table_no][seat] = mp
    else:
        raise ValueError(f"unknown format {format!r}")
    out: list[SeatResult] = []
    for table, final, got in zip(tables, scores, earned, strict=True):
        for player, points, table_pts in zip(table, final, got, strict=True):
            if player is not None:
                out.append(SeatResult(player, table_pts, points))
    return out

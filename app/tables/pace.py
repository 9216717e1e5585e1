"""A table's pace: live (a turn timer of seconds, everyone at the table now) or turn-based
(a game over days: each move has hours to be made, the clocks optionally running only in the
table's playing hours, in its time zone).

Pure functions: the checks a new table's pace goes through (``check_pace``, TableError with a
code per mistake) and the clock arithmetic of playing hours (``clock_end``: when a number of
playing seconds, counted from a moment, are used up; ``clock_running``: whether the clocks run
at a moment). Times are epoch milliseconds, as everywhere in app.tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from app.tables.errors import TableError

Pace = Literal["live", "turn"]
PACES: tuple[Pace, ...] = ("live", "turn")
# Time per move of a turn-based table, in seconds: 1 h, 12 h, 24 h, 3 days.
MOVE_TIMES: tuple[int, ...] = (3600, 12 * 3600, 24 * 3600, 3 * 24 * 3600)
# Share of a move's time after which the player is told their time is almost up.
WARN_SHARE = 0.8
# Moves in a row the computer plays for a player out of time before it takes the seat over.
TIMEOUTS_TO_AWAY = 3

_HOUR_MS = 3_600_000.0
_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class TablePace:
    """A checked pace: ``hours`` is [start, end) in whole local hours (end < start wraps past
    midnight), None for clocks that always run; ``time_zone`` an IANA name (None: UTC)."""

    pace: Pace = "live"
    move_seconds: int = 0
    hours: tuple[int, int] | None = None
    time_zone: str | None = None


def check_pace(
    pace: object = "live",
    move_seconds: object = None,
    hours: object = None,
    time_zone: object = None,
) -> TablePace:
    """The pace a new table asks for, checked (TableError ``bad_pace``, ``bad_move_time``,
    ``bad_hours``, ``bad_time_zone``; nothing is created then)."""
    if pace not in PACES:
        raise TableError("bad_pace", f"pace must be one of {', '.join(PACES)}, not {pace!r}")
    if pace == "live":
        if move_seconds is not None or hours is not None or time_zone is not None:
            raise TableError(
                "bad_pace",
                "time per move, playing hours and time zone are for turn-based tables "
                '(pace "turn")',
            )
        return TablePace()
    if move_seconds is None:
        move_seconds = 24 * 3600
    if (
        not isinstance(move_seconds, int)
        or isinstance(move_seconds, bool)
        or move_seconds not in MOVE_TIMES
    ):
        choices = ", ".join(str(s) for s in MOVE_TIMES)
        raise TableError(
            "bad_move_time",
            f"time per move is one of {choices} seconds (1 h, 12 h, 24 h, 3 days)",
        )
    zone = _check_zone(time_zone)
    window = _check_hours(hours)
    return TablePace("turn", move_seconds, window, zone)


def _check_zone(time_zone: object) -> str | None:
    if time_zone is None:
        return None
    if not isinstance(time_zone, str) or len(time_zone) > 64 or time_zone not in _zones():
        raise TableError(
            "bad_time_zone", f"time zone {time_zone!r} is not an IANA name such as Europe/Paris"
        )
    return time_zone


def _check_hours(hours: object) -> tuple[int, int] | None:
    if hours is None:
        return None
    if (
        not isinstance(hours, list | tuple)
        or len(hours) != 2
        or not all(isinstance(h, int) and not isinstance(h, bool) for h in hours)
    ):
        raise TableError("bad_hours", "playing hours are [start, end], two whole hours")
    start, end = int(hours[0]), int(hours[1])
    if not (0 <= start <= 23 and 1 <= end <= 24) or start == end or (start, end) == (0, 24):
        raise TableError(
            "bad_hours",
            "playing hours: start 0-23 and end 1-24 (local hours; end before start runs past "
            "midnight), not equal, and not the whole day (leave them out for that)",
        )
    return start, end


_ZONES: frozenset[str] | None = None


def _zones() -> frozenset[str]:
    global _ZONES
    if _ZONES is None:
        _ZONES = frozenset(available_timezones())
    return _ZONES


def _zone(time_zone: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(time_zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _windows(day: datetime, hours: tuple[int, int]) -> list[tuple[datetime, datetime]]:
    """The playing windows of one local day (midnight ``day``), in local time."""
    start, end = hours
    if start < end:
        return [(day + timedelta(hours=start), day + timedelta(hours=end))]
    # Past midnight: the morning's end of yesterday's window, and tonight's beginning.
    return [(day, day + timedelta(hours=end)), (day + timedelta(hours=start), day + _DAY)]


def _to_ms(local: datetime) -> float:
    return local.astimezone(UTC).timestamp() * 1000.0


def clock_end(
    start_ms: float, seconds: float, hours: tuple[int, int] | None, time_zone: str | None
) -> float:
    """The moment (ms) at which ``seconds`` of clock time, counted from ``start_ms``, are used
    up: the clocks run only inside the playing hours (always without them)."""
    if hours is None:
        return start_ms + seconds * 1000.0
    zone = _zone(time_zone)
    left = seconds * 1000.0
    local = datetime.fromtimestamp(start_ms / 1000.0, zone)
    day = datetime(local.year, local.month, local.day, tzinfo=zone) - _DAY
    # A window opens every day; a day's windows hold at least one hour: bounded.
    for _ in range(2 + math.ceil(left / _HOUR_MS) + 2):
        for open_local, close_local in _windows(day, hours):
            begin, end = max(_to_ms(open_local), start_ms), _to_ms(close_local)
            if end <= begin:
                continue
            if end - begin >= left:
                return begin + left
            left -= end - begin
        day = _next_day(day, zone)
    raise AssertionError("unreachable: the clock always ends")


def _next_day(day: datetime, zone: ZoneInfo) -> datetime:
    after = (day + timedelta(hours=36)).astimezone(zone)  # past any DST change
    return datetime(after.year, after.month, after.day, tzinfo=zone)


def clock_running(ms: float, hours: tuple[int, int] | None, time_zone: str | None) -> bool:
    """Whether the clocks run at ``ms`` (inside the playing hours, or there are none)."""
    if hours is None:
        return True
    local = datetime.fromtimestamp(ms / 1000.0, _zone(time_zone))
    start, end = hours
    if start < end:
        return start <= local.hour < end
    return local.hour >= start or local.hour < end

"""A table's pace (app.tables.pace): the checks of a new table's pace, and the clocks that
run only inside the playing hours."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tables import TableError
from app.tables.pace import MOVE_TIMES, TablePace, check_pace, clock_end, clock_running

HOUR = 3_600_000.0


def ms(year: int, month: int, day: int, hour: int) -> float:
    return datetime(year, month, day, hour, tzinfo=UTC).timestamp() * 1000


def test_live_and_turn_based_paces() -> None:
    assert check_pace() == TablePace()
    assert check_pace("turn") == TablePace("turn", 86400)
    assert check_pace("turn", 3600, [8, 22], "Europe/Paris") == TablePace(
        "turn", 3600, (8, 22), "Europe/Paris"
    )
    assert check_pace("turn", 259200, (22, 2)).hours == (22, 2)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("slow",), "bad_pace"),
        ((None,), "bad_pace"),
        (("live", 3600), "bad_pace"),
        (("live", None, [8, 20]), "bad_pace"),
        (("turn", 60), "bad_move_time"),
        (("turn", True), "bad_move_time"),
        (("turn", "3600"), "bad_move_time"),
        (("turn", 3600.0), "bad_move_time"),
        (("turn", 3600, [8]), "bad_hours"),
        (("turn", 3600, [8, 8]), "bad_hours"),
        (("turn", 3600, [0, 24]), "bad_hours"),
        (("turn", 3600, [-1, 5]), "bad_hours"),
        (("turn", 3600, [8, 25]), "bad_hours"),
        (("turn", 3600, [8.5, 20]), "bad_hours"),
        (("turn", 3600, [True, 20]), "bad_hours"),
        (("turn", 3600, "8-20"), "bad_hours"),
        (("turn", 3600, None, "Mars/Olympus"), "bad_time_zone"),
        (("turn", 3600, None, 5), "bad_time_zone"),
        (("turn", 3600, None, "../etc/passwd"), "bad_time_zone"),
    ],
)
def test_bad_paces_are_refused_with_a_code(args: tuple[object, ...], code: str) -> None:
    with pytest.raises(TableError) as raised:
        check_pace(*args)
    assert raised.value.code == code


def test_clock_without_hours_runs_always() -> None:
    assert clock_end(1000.0, 3600, None, None) == 1000.0 + HOUR
    assert clock_running(0.0, None, None)


def test_clock_stops_outside_playing_hours() -> None:
    # 21:00 UTC with hours 8-22: one hour today, the rest from 08:00 tomorrow.
    start = ms(2026, 3, 2, 21)
    assert clock_end(start, 3 * 3600, (8, 22), None) == ms(2026, 3, 3, 10)
    # Outside the hours, the clock waits for them to open.
    assert clock_end(ms(2026, 3, 2, 23), 3600, (8, 22), None) == ms(2026, 3, 3, 9)
    assert not clock_running(ms(2026, 3, 2, 23), (8, 22), None)
    assert clock_running(ms(2026, 3, 2, 8), (8, 22), None)
    # Past midnight: 22:00 to 02:00.
    assert clock_end(ms(2026, 3, 2, 12), 5 * 3600, (22, 2), None) == ms(2026, 3, 3, 23)
    assert clock_running(ms(2026, 3, 3, 1), (22, 2), None)


def test_clock_in_the_tables_time_zone_across_daylight_saving() -> None:
    # Paris: 2026-03-29 is the spring change (02:00 -> 03:00 local); hours 8-20 local.
    paris = "Europe/Paris"
    start = ms(2026, 3, 28, 18)  # 19:00 in Paris (UTC+1): one hour left that day
    end = clock_end(start, 2 * 3600, (8, 20), paris)
    assert end == ms(2026, 3, 29, 7)  # 09:00 in Paris on the 29th (UTC+2)


@settings(max_examples=200, deadline=None)
@given(
    start=st.floats(min_value=1.6e12, max_value=1.9e12),
    seconds=st.sampled_from([*MOVE_TIMES, 60, 1800]),
    a=st.integers(0, 23),
    b=st.integers(1, 24),
    zone=st.sampled_from([None, "Europe/Paris", "America/New_York", "Asia/Kolkata"]),
)
def test_the_clock_counts_only_playing_time(
    start: float, seconds: int, a: int, b: int, zone: str | None
) -> None:
    """Between the start and the end, exactly ``seconds`` of running clock (sampled by the
    minute, every window being whole hours), and the clock runs just before the end."""
    if a == b or (a, b) == (0, 24):
        return
    hours = (a, b)
    end = clock_end(start, seconds, hours, zone)
    assert end >= start + seconds * 1000
    assert clock_running(end - 1, hours, zone)
    if seconds <= 3600:
        # the running time up to the end, by the minute from the start, matches
        step = 60_000.0
        t, ran = start, 0.0
        while t < end:
            if clock_running(t, hours, zone):
                ran += min(step, end - t)
            t += step
        assert abs(ran - seconds * 1000) <= 2 * step

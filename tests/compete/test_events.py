"""Events' rules (app.compete.events), against hand-made examples and properties: table
points, duplicate matchpoints by seat, deal seeds, no-shows, and the checks of a new event."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.compete.events import (
    EventError,
    EventLimits,
    SeatResult,
    check_points,
    check_start,
    deal_seed,
    default_points,
    no_shows,
    round_results,
)
from app.compete.swiss import Seat

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _earned(results: list[SeatResult]) -> dict[str, tuple[float, int]]:
    return {r.player_id: (r.table_points, r.game_points) for r in results}


def test_default_points_are_two_a_place() -> None:
    assert default_points(4) == [6, 4, 2, 0]
    assert default_points(3) == [4, 2, 0]
    assert default_points(2) == [2, 0]


def test_swiss_round_gives_places_and_ties_share() -> None:
    tables: list[list[Seat]] = [["a", "b", "c", "d"], ["e", "f", None, None]]
    scores = [[10, 40, 26, 26], [0, 52, 26, 26]]
    got = _earned(round_results("swiss", tables, scores, [6, 4, 2, 0]))
    assert got == {
        "a": (6, 10),
        "b": (0, 40),
        "c": (3, 26),
        "d": (3, 26),  # c and d tie for 2nd and 3rd: (4 + 2) / 2
        "e": (6, 0),
        "f": (0, 52),  # the computers took 2nd and 3rd
    }


def test_duplicate_compares_each_seat_with_the_same_seat_elsewhere() -> None:
    # three tables played the same deals; seat 0 scored 10, 20, 20; seat 1 scored 5, 5, 30
    tables: list[list[Seat]] = [["a", "b", "c"], ["d", "e", "f"], ["g", "h", None]]
    scores = [[10, 5, 11], [20, 5, 1], [20, 30, 0]]
    got = _earned(round_results("duplicate", tables, scores, [4, 2, 0]))
    assert got["a"] == (2, 10)  # beat both other seat-0 results
    assert got["d"] == got["g"] == (0.5, 20)  # tied with each other, beaten by a
    assert got["b"] == got["e"] == (1.5, 5)  # beat h, tied with each other
    assert got["h"] == (0, 30)
    assert got["c"] == (0, 11)  # seat 2: 11 against 1 and the computer's 0
    assert got["f"] == (1, 1)
    assert None not in got


def test_a_latecomers_seat_earns_nobody_anything() -> None:
    got = _earned(round_results("swiss", [[None, "b", "c", "d"]], [[0, 1, 2, 3]], [6, 4, 2, 0]))
    assert got == {"b": (4, 1), "c": (2, 2), "d": (0, 3)}


def test_deal_seeds() -> None:
    assert deal_seed("s", "duplicate", 1, 0) == deal_seed("s", "duplicate", 1, 5)
    assert deal_seed("s", "duplicate", 1, 0) != deal_seed("s", "duplicate", 2, 0)
    assert deal_seed("s", "swiss", 1, 0) != deal_seed("s", "swiss", 1, 1)
    assert deal_seed("s", "swiss", 1, 0) != deal_seed("t", "swiss", 1, 0)


def test_no_shows_missed_a_whole_round() -> None:
    seen = [("came", 1), ("late_to_1", 1), ("never", 0), ("played_1_missed_2", 1)]
    assert no_shows(seen, 1) == []
    assert no_shows(seen, 2) == ["never"]
    assert no_shows(seen, 3) == ["came", "late_to_1", "never", "played_1_missed_2"]


def test_checks_of_a_new_event() -> None:
    limits = EventLimits(days_ahead_max=3)
    with pytest.raises(EventError) as err:
        check_start(NOW - timedelta(seconds=1), NOW, limits)
    assert err.value.code == "bad_start"
    with pytest.raises(EventError):
        check_start(NOW + timedelta(days=3, seconds=1), NOW, limits)
    with pytest.raises(EventError):
        check_start(datetime(2026, 12, 1, 12, 0), NOW, limits)  # no time zone
    assert check_start(NOW + timedelta(days=3), NOW, limits) == NOW + timedelta(days=3)
    for bad in ([6, 4, 2], [0, 2, 4, 6], [6, 4, 2, -1], [200, 0, 0, 0]):
        with pytest.raises(EventError) as err:
            check_points(bad, 4)
        assert err.value.code == "bad_points"
    assert check_points([3, 3, 1, 0], 4) == [3.0, 3.0, 1.0, 0.0]


_tables = st.integers(1, 6).flatmap(
    lambda n: st.integers(2, 5).flatmap(
        lambda size: st.tuples(
            st.just([[f"p{t}_{s}" for s in range(size)] for t in range(n)]),
            st.lists(
                st.lists(st.integers(0, 26), min_size=size, max_size=size),
                min_size=n,
                max_size=n,
            ),
        )
    )
)


@given(_tables)
def test_duplicate_matchpoints_add_up_per_seat(
    case: tuple[list[list[str]], list[list[int]]],
) -> None:
    tables, scores = case
    n = len(tables)
    got = {r.player_id: r.table_points for r in round_results("duplicate", tables, scores, [])}
    for seat in range(len(tables[0])):
        total = sum(got[t[seat]] for t in tables)
        assert total == n * (n - 1) / 2  # every pair of tables shares one matchpoint
        for t in range(n):
            assert 0 <= got[tables[t][seat]] <= n - 1


@given(_tables)
def test_swiss_points_add_up_per_table(case: tuple[list[list[str]], list[list[int]]]) -> None:
    tables, scores = case
    size = len(tables[0])
    points = default_points(size)
    got = {r.player_id: r for r in round_results("swiss", tables, scores, points)}
    for table, final in zip(tables, scores, strict=True):
        assert sum(got[p].table_points for p in table) == pytest.approx(sum(points))
        for p, s in zip(table, final, strict=True):
            assert got[p].game_points == s
        best = min(final)
        for p, s in zip(table, final, strict=True):
            if s == best:  # fewest points never earns less than anyone else at the table
                assert got[p].table_points == max(got[q].table_points for q in table)

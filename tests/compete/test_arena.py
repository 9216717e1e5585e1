"""The arena's rules (app.compete.arena), against examples and properties: who sits down
together and who keeps waiting, computers filling a table that stayed short, when the window
lets a table start and when the arena is over, and the standings over many games adding up to
the points handed out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.compete.arena import Waiting, may_start, seat_waiting
from app.compete.events import EventError, EventLimits, check_minutes, round_results
from app.compete.swiss import Seat, table_points

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SEED = "arena-seed"


def _humans(tables: list[list[Seat]]) -> list[str]:
    return [p for t in tables for p in t if p is not None]


def _players(table: list[Seat]) -> list[str]:
    return sorted(p for p in table if p is not None)


def test_a_tables_worth_waiting_sits_down_at_once() -> None:
    waiting = [Waiting(p, waited=1) for p in "abcd"]
    tables = seat_waiting(waiting, 4, SEED, fill_seconds=20)
    assert len(tables) == 1 and sorted(_humans(tables)) == list("abcd")


def test_the_longest_waiting_sit_down_first_and_the_rest_waits() -> None:
    waiting = [Waiting(p, waited=w) for p, w in zip("abcdef", [9, 1, 8, 7, 0, 6], strict=True)]
    tables = seat_waiting(waiting, 4, SEED, fill_seconds=20)
    assert sorted(_humans(tables)) == ["a", "c", "d", "f"]  # b and e came last: they wait


def test_full_tables_are_seated_by_the_standings() -> None:
    points = {"a": 30.0, "b": 0.0, "c": 28.0, "d": 2.0, "e": 26.0, "f": 1.0, "g": 24.0, "h": 3.0}
    waiting = [Waiting(p, tp, waited=5) for p, tp in points.items()]
    tables = seat_waiting(waiting, 4, SEED, fill_seconds=20)
    assert [_players(t) for t in tables] == [["a", "c", "e", "g"], ["b", "d", "f", "h"]]


def test_computers_fill_a_table_that_stayed_short() -> None:
    short = [Waiting("a", waited=5), Waiting("b", waited=3)]
    assert seat_waiting(short, 4, SEED, fill_seconds=20) == []
    tables = seat_waiting([Waiting("a", waited=21), Waiting("b", waited=3)], 4, SEED, 20)
    assert len(tables) == 1 and tables[0][2:] == [None, None]
    assert sorted(_humans(tables)) == ["a", "b"]


def test_a_player_waits_once() -> None:
    with pytest.raises(ValueError):
        seat_waiting([Waiting("a"), Waiting("a")], 2, SEED, 0)


@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.floats(0, 60), st.integers(0, 200)),
        max_size=40,
        unique_by=lambda t: t[0],
    ),
    st.integers(2, 6),
    st.floats(0, 60),
)
def test_seating_properties(spec: list[tuple[int, float, int]], size: int, fill: float) -> None:
    waiting = [Waiting(f"p{i}", float(tp), 0, waited) for i, waited, tp in spec]
    tables = seat_waiting(waiting, size, SEED, fill)
    seated = _humans(tables)
    assert len(seated) == len(set(seated))  # nobody at two tables
    assert set(seated) <= {w.player_id for w in waiting}
    for table in tables:
        assert len(table) == size and table[0] is not None
        assert table == [p for p in table if p] + [None] * table.count(None)  # players first
    assert sum(None in t for t in tables) <= 1  # one short table at most
    left = [w for w in waiting if w.player_id not in seated]
    assert len(left) < size  # a table's worth waiting always sits down
    if len(waiting) % size == 0:
        assert not left
    assert all(w.waited < fill for w in left)  # nobody left who waited their fill
    if left and seated:  # those left came last
        assert max(w.waited for w in left) <= min(
            w.waited for w in waiting if w.player_id in seated
        )


@given(
    st.lists(
        st.tuples(
            st.permutations(["a", "b", "c", "d", "e"]),
            st.lists(st.integers(0, 26), min_size=4, max_size=4),
            st.booleans(),
        ),
        max_size=15,
    )
)
def test_standings_add_up_to_the_points_handed_out(
    games: list[tuple[list[str], list[int], bool]],
) -> None:
    points = [6.0, 4.0, 2.0, 0.0]
    standings: dict[str, float] = {}
    handed = 0.0
    for who, scores, with_computer in games:
        table: list[Seat] = [*who[:3], None if with_computer else who[3]]
        for r in round_results("arena", [table], [scores], points):
            standings[r.player_id] = standings.get(r.player_id, 0.0) + r.table_points
        got = table_points(scores, points)
        handed += sum(p for p, s in zip(got, table, strict=True) if s is not None)
    assert sum(standings.values()) == pytest.approx(handed)


def test_no_table_starts_near_the_end() -> None:
    end = NOW + timedelta(minutes=1)
    assert may_start(NOW, end, 60)
    assert not may_start(NOW + timedelta(seconds=1), end, 60)  # 59 s left: too near the end
    assert may_start(NOW + timedelta(seconds=59), end, 0)
    assert not may_start(end, end, 0)  # the window has closed


def test_an_arenas_length_is_checked() -> None:
    limits = EventLimits()
    assert check_minutes(60, limits) == 60
    for bad in (None, 0, 4, 721, -5):
        with pytest.raises(EventError) as err:
            check_minutes(bad, limits)
        assert err.value.code == "bad_minutes" and err.value.status == 422

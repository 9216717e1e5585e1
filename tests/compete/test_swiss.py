"""Swiss seating by standings and table points, against hand-made examples and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.compete.swiss import Standing, after_round, order, seat_round, table_points

SEED = "event-1"


def _field(*rows: tuple[str, float, int]) -> list[Standing]:
    return [Standing(p, tp, gp) for p, tp, gp in rows]


def test_leaders_sit_together_at_table_one() -> None:
    field = _field(
        ("a", 12, 30), ("b", 6, 10), ("c", 10, 20), ("d", 12, 25), ("e", 4, 0), ("f", 10, 40),
        ("g", 0, 50), ("h", 8, 8),
    )  # fmt: skip
    assert seat_round(field, 4, SEED) == [["d", "a", "c", "f"], ["h", "b", "e", "g"]]


def test_a_field_not_divisible_by_the_table_size_gets_computers_at_the_last_table() -> None:
    field = [Standing(f"p{i}", 10 - i, 0) for i in range(9)]
    tables = seat_round(field, 4, SEED)
    assert tables == [
        ["p0", "p1", "p2", "p3"],
        ["p4", "p5", "p6", "p7"],
        ["p8", None, None, None],
    ]
    assert seat_round(field[:6], 3, SEED) == [["p0", "p1", "p2"], ["p3", "p4", "p5"]]


def test_withdrawn_players_leave_the_standings() -> None:
    field = [Standing(f"p{i}", 10 - i, 0) for i in range(5)]
    assert seat_round(field, 4, SEED, withdrawn={"p1"}) == [["p0", "p2", "p3", "p4"]]


def test_ties_are_broken_by_game_points_then_a_draw_from_the_event() -> None:
    tied = _field(("x", 6, 10), ("y", 6, 10), ("z", 6, 5))
    first = order(tied, SEED)
    assert first[0].player_id == "z"  # fewer Hearts points
    assert {s.player_id for s in first[1:]} == {"x", "y"}
    # the draw depends on the event, not on the order the players came in
    assert order(list(reversed(tied)), SEED) == first
    draws = {tuple(s.player_id for s in order(tied, f"e{i}")[1:]) for i in range(20)}
    assert draws == {("x", "y"), ("y", "x")}


def test_table_points_share_tied_places() -> None:
    assert table_points([3, 20, 0, 3], [6, 4, 2, 0]) == [3.0, 0.0, 6.0, 3.0]
    assert table_points([5, 5, 5, 5], [6, 4, 2, 0]) == [3.0] * 4
    assert table_points([1, 0], [1, 0]) == [0.0, 1.0]
    with pytest.raises(ValueError):
        table_points([1, 2, 3], [6, 4, 2, 0])


def test_a_round_adds_to_the_standings_and_computers_score_nothing() -> None:
    tables = [["a", "b", None, "c"]]
    after = after_round({}, tables, [[10, 30, 0, 60]], [6, 4, 2, 0])
    assert after == {
        "a": Standing("a", 4.0, 10, 1),
        "b": Standing("b", 2.0, 30, 1),
        "c": Standing("c", 0.0, 60, 1),
    }


def test_nine_players_over_three_rounds() -> None:
    """Nine players, tables of four: each round two full tables and one of a player and three
    computers; the standings after three rounds are the sums of what each table gave."""
    standings: dict[str, Standing] = {f"p{i}": Standing(f"p{i}") for i in range(9)}
    given_points = {p: 0.0 for p in standings}
    for rnd in range(3):
        tables = seat_round(standings.values(), 4, SEED)
        assert [sum(p is None for p in t) for t in tables] == [0, 0, 3]
        seated = [p for t in tables for p in t if p is not None]
        assert sorted(seated) == sorted(standings)
        scores = [[(7 * rnd + 3 * i + j) % 27 for i in range(4)] for j in range(3)]
        for table, final in zip(tables, scores, strict=True):
            for seat, pts in zip(table, table_points(final, [6, 4, 2, 0]), strict=True):
                if seat is not None:
                    given_points[seat] += pts
        standings = after_round(standings, tables, scores, [6, 4, 2, 0])
    assert {p: s.table_points for p, s in standings.items()} == given_points
    assert all(s.rounds == 3 for s in standings.values())
    leaders = order(standings.values(), SEED)
    assert seat_round(standings.values(), 4, SEED)[0] == [s.player_id for s in leaders[:4]]


@given(st.integers(min_value=0, max_value=60), st.integers(min_value=2, max_value=6))
def test_every_player_is_seated_once(players: int, size: int) -> None:
    field = [Standing(f"p{i}", i % 7, i % 5) for i in range(players)]
    tables = seat_round(field, size, SEED)
    seated = [p for t in tables for p in t if p is not None]
    assert sorted(seated) == sorted(s.player_id for s in field)
    assert all(len(t) == size for t in tables)
    assert all(None not in t for t in tables[:-1])  # only the last table is short


@given(st.lists(st.integers(min_value=0, max_value=26), min_size=2, max_size=6))
def test_table_points_add_up_to_the_places(scores: list[int]) -> None:
    places = [float(2 * i) for i in reversed(range(len(scores)))]
    got = table_points(scores, places)
    assert sum(got) == pytest.approx(sum(places))
    for i, a in enumerate(scores):
        for j, b in enumerate(scores):
            if a < b:
                assert got[i] >= got[j]

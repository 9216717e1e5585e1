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


def test_among_equal_waits_the_fewest_games_sit_down_first() -> None:
    # five back from one game's end together (equal waits): the one with most games waits
    games = {"a": 3, "b": 2, "c": 3, "d": 4, "e": 3}
    waiting = [Waiting(p, waited=2, games=n) for p, n in games.items()]
    tables = seat_waiting(waiting, 4, SEED, fill_seconds=20)
    assert sorted(_humans(tables)) == ["a", "b", "c", "e"]


@given(
    st.integers(2, 5),
    st.integers(1, 9),
    st.text("abcdefgh", min_size=1, max_size=6),
    st.lists(st.booleans(), min_size=1, max_size=12),
)
def test_who_is_left_over_takes_turns(
    size: int, extra: int, seed: str, tables_to_spare: list[bool]
) -> None:
    """A field that does not fill its tables, all back together game after game (so equal
    waits): the games played never differ by more than one (with a fixed tie-break one
    player was left over every time)."""
    players = size * (1 + extra // size) + (extra % size or 1)  # never a multiple of size
    games = {f"p{i}": 0 for i in range(players)}
    for _ in tables_to_spare:
        waiting = [Waiting(p, waited=1.0, games=n) for p, n in games.items()]
        for p in _humans(seat_waiting(waiting, size, seed, fill_seconds=60)):
            games[p] += 1
        assert max(games.values()) - min(games.values()) <= 1, games


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
        st.tuples(
            st.integers(0, 40),
            st.sampled_from([0.0, 5.0, 30.0]),
            st.integers(0, 200),
            st.integers(0, 3),
        ),
        max_size=40,
        unique_by=lambda t: t[0],
    ),
    st.integers(2, 6),
    st.floats(0, 60),
)
def test_seating_properties(
    spec: list[tuple[int, float, int, int]], size: int, fill: float
) -> None:
    waiting = [Waiting(f"p{i}", float(tp), 0, waited, games=games) for i, waited, tp, games in spec]
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
    for w in left:  # and of those who came as late, they played the most games
        assert all(
            v.games <= w.games for v in waiting if v.player_id in seated and v.waited == w.waited
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


def _pairs(tables: list[list[Seat]]) -> set[frozenset[str]]:
    out: set[frozenset[str]] = set()
    for table in tables:
        players = _humans([table])
        out |= {frozenset((a, b)) for i, a in enumerate(players) for b in players[i + 1 :]}
    return out


def _back_from(games: list[list[str]], points: dict[str, float]) -> list[Waiting]:
    """The players of these last games, all waiting now (each knows whom they just met)."""
    return [
        Waiting(p, points.get(p, 0.0), waited=1, met=frozenset(g) - {p}) for g in games for p in g
    ]


def test_tables_back_together_are_mixed_not_seated_again() -> None:
    games = [[f"{t}{i}" for i in range(4)] for t in "abcd"]
    # each game's players are level in the standings: by the standings alone they meet again
    points = {p: 10.0 * n for n, g in enumerate(games) for p in g}
    tables = seat_waiting(_back_from(games, points), 4, SEED, fill_seconds=20)
    assert len(tables) == 4
    assert not _pairs(tables) & _pairs([list(g) for g in games])
    assert str(tables[0][0]).startswith("d")  # a leader still at table 1


def test_a_tables_worth_back_together_plays_again_as_it_would() -> None:
    game = ["a", "b", "c", "d"]
    waiting = _back_from([game], {"a": 6.0, "b": 4.0, "c": 2.0})
    assert seat_waiting(waiting, 4, SEED, 20) == [["a", "b", "c", "d"]]


def test_who_did_not_meet_is_seated_by_the_standings_as_before() -> None:
    games = [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]]
    points = {"a": 9.0, "c": 8.0, "e": 7.0, "g": 6.0, "b": 5.0, "d": 4.0, "f": 3.0, "h": 2.0}
    tables = seat_waiting(_back_from(games, points), 4, SEED, 20)
    assert tables == [["a", "c", "e", "g"], ["b", "d", "f", "h"]]  # no pair met: unchanged


def test_when_a_repeat_is_unavoidable_as_few_as_may_be() -> None:
    games = [[f"a{i}" for i in range(4)], [f"b{i}" for i in range(4)]]
    points = {p: 4.0 if p[0] == "a" else 0.0 for g in games for p in g}
    tables = seat_waiting(_back_from(games, points), 4, SEED, 20)
    assert [sorted(p[0] for p in _humans([t])) for t in tables] == [["a", "a", "b", "b"]] * 2


@given(
    st.integers(2, 5),
    st.data(),
)
def test_with_enough_tables_nobody_meets_a_last_opponent(size: int, data: st.DataObject) -> None:
    """Players back from their last games (each game's group no larger than the number of
    tables to make), some new: every table is made, nobody sits twice, no pair of a last game
    sits together again."""
    n_tables = data.draw(st.integers(size, 7), label="tables")
    groups = data.draw(
        st.lists(st.integers(1, min(size, n_tables)), min_size=1, max_size=n_tables * size),
        label="group sizes",
    )
    games: list[list[str]] = []
    count = 0
    for g in groups:
        g = min(g, n_tables * size - count)
        if g <= 0:
            break
        games.append([f"p{count + i}" for i in range(g)])
        count += g
    games += [[f"p{i}"] for i in range(count, n_tables * size)]  # new: met nobody
    points = data.draw(
        st.lists(st.integers(0, 12), min_size=n_tables * size, max_size=n_tables * size),
        label="points",
    )
    waiting = [
        Waiting(p, float(points[int(p[1:])]), waited=3, met=frozenset(g) - {p})
        for g in games
        for p in g
    ]
    tables = seat_waiting(waiting, size, SEED, fill_seconds=60)
    seated = _humans(tables)
    assert sorted(seated) == sorted(w.player_id for w in waiting)
    assert len(tables) == n_tables and all(len(t) == size and None not in t for t in tables)
    assert not _pairs(tables) & _pairs([list(g) for g in games])

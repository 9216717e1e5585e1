"""Matchpoints against hand-made examples, and their invariants as properties."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.compete.scoring import Total, matchpoints, matchpoints_of, places, total


def test_each_player_beaten_is_one_and_each_tie_a_half() -> None:
    # fewer points are better: 0 beats everyone, the two 5s tie with each other
    assert matchpoints([0, 5, 5, 13]) == [3.0, 1.5, 1.5, 0.0]


def test_a_moon_and_everyone_alike() -> None:
    assert matchpoints([26, 0, 0]) == [0.0, 1.5, 1.5]
    assert matchpoints([7, 7, 7, 7]) == [1.5] * 4
    assert matchpoints([4]) == [0.0]  # alone on a version: nothing to beat


def test_the_total_is_a_percentage_of_what_could_be_had() -> None:
    deal_a = Counter([0, 5, 5, 13])  # the player took 5: 1.5 of 3
    deal_b = Counter([2, 9])  # took 2: 1 of 1
    got = total([(deal_a, 5), (deal_b, 2)])
    assert got == Total(2.5, 4)
    assert got.percent == pytest.approx(62.5)
    assert total([(Counter([3]), 3)]).percent == 50.0  # nobody else yet
    assert total([]).percent == 50.0


def test_a_result_not_among_the_counts_is_refused() -> None:
    with pytest.raises(ValueError, match="no result of 4"):
        matchpoints_of({3: 1}, 4)


scores = st.lists(st.integers(min_value=-26, max_value=26), min_size=1, max_size=60)


@given(scores)
def test_matchpoints_sum_to_n_n_minus_1_over_2(points: list[int]) -> None:
    n = len(points)
    got = matchpoints(points)
    assert sum(got) == pytest.approx(n * (n - 1) / 2)
    assert all(0 <= mp <= n - 1 for mp in got)


@given(scores)
def test_fewer_points_never_get_fewer_matchpoints(points: list[int]) -> None:
    got = dict(zip(points, matchpoints(points), strict=True))
    ordered = sorted(got)
    assert all(got[a] >= got[b] for a, b in zip(ordered, ordered[1:], strict=False))


@given(scores)
def test_from_counts_equals_one_by_one(points: list[int]) -> None:
    counts = Counter(points)
    assert [matchpoints_of(counts, p) for p in points] == matchpoints(points)


def test_tied_lines_share_a_place() -> None:
    assert places([]) == []
    assert places([0, 0, 5]) == [1, 1, 3]
    assert places([9, 7, 7, 7, 2, 2]) == [1, 2, 2, 2, 5, 5]
    # a page after 4 lines whose last (place 3) ties with the page's first two
    assert places([4, 4, 1], start=4, before=(4, 3)) == [3, 3, 7]
    assert places([1], start=4, before=(4, 3)) == [5]


@given(st.lists(st.integers(0, 4), max_size=20).map(sorted), st.integers(0, 20))
def test_places_read_in_pages_are_the_places_of_the_whole(keys: list[int], cut: int) -> None:
    whole = places(keys)
    assert whole == [1 + sum(k < key for k in keys) for key in keys]
    head = places(keys[:cut])
    before = (keys[cut - 1], head[-1]) if 0 < cut <= len(keys) else None
    assert head + places(keys[cut:], min(cut, len(keys)), before) == whole

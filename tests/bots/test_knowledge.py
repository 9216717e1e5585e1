"""The deals of ``Knowledge.sample`` are those of its first, plainer version, seed for seed: the
Expert's decisions and the review's evaluations stay as they were (and the review's calibration,
fitted on them, holds)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bots.knowledge import Knowledge, _Greedy, shuffle
from app.engine import PRESETS, view

from .test_bots import _positions


def _first_greedy(
    cards: list[int], allowed_of: dict[int, list[int]], cap: dict[int, int], rng: random.Random
) -> dict[int, int] | None:
    """The greedy deal as first written (the reference the fast one must match)."""
    left = dict(cap)
    got = dict.fromkeys(cap, 0)
    order = cards[:]
    rng.shuffle(order)
    order.sort(key=lambda c: len(allowed_of[c]))
    rnd = rng.random
    for c in order:
        opts = allowed_of[c]
        total = 0
        for h in opts:
            total += left[h]
        if not total:
            return None
        r = rnd() * total
        pick = -1
        for h in opts:
            k = left[h]
            if k:
                pick = h
                r -= k
                if r < 0:
                    break
        left[pick] -= 1
        got[pick] |= 1 << c
    return got


def _first_sample(k: Knowledge, rng: random.Random) -> list[int]:
    base, cap, cards, allowed_of, slots = k._prepare()
    out = base[:]
    for _attempt in range(30):
        res = _first_greedy(cards, allowed_of, cap, rng)
        if res is not None:
            break
    else:
        res = _first_greedy(cards, {c: slots for c in cards}, cap, rng)
        assert res is not None
    for h, mm in res.items():
        out[h] |= mm
    return out


@given(st.integers(0, 60), st.integers(0, 2**32))
@settings(max_examples=200, deadline=None)
def test_shuffle_is_the_generators_own(length: int, seed: int) -> None:
    mine, theirs = list(range(length)), list(range(length))
    a, b = random.Random(seed), random.Random(seed)
    shuffle(mine, a)
    b.shuffle(theirs)
    assert mine == theirs
    assert a.random() == b.random()  # the same random numbers used up


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_sample_deals_as_the_first_version(preset: str) -> None:
    """Every preset, positions with shown voids and passed cards among them: the same deals,
    and the generator left in the same state."""
    checked = 0
    for s in _positions(preset, 12, base=500):
        if s.phase != "play":
            continue
        for seat in range(s.players):
            k = Knowledge(view(s, seat), s.rules)
            a, b = random.Random(seat), random.Random(seat)
            for _ in range(20):
                assert k.sample(a) == _first_sample(k, b)
            assert a.random() == b.random()
            checked += 1
    assert checked


@st.composite
def _problems(draw: st.DrawFn) -> tuple[list[int], dict[int, list[int]], dict[int, int]]:
    """Cards, the holders each may go to (some none, some every one, some alike in number but
    not in which), and the room of each holder."""
    slots = draw(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True))
    cards = draw(st.lists(st.integers(0, 54), max_size=20, unique=True))
    allowed = {c: [h for h in slots if draw(st.booleans())] for c in cards}
    cap = {h: draw(st.integers(0, 8)) for h in slots}
    return cards, allowed, cap


@given(_problems(), st.integers(0, 2**32))
@settings(max_examples=300, deadline=None)
def test_greedy_deals_as_the_first_version(
    problem: tuple[list[int], dict[int, list[int]], dict[int, int]], seed: int
) -> None:
    cards, allowed, cap = problem
    a, b = random.Random(seed), random.Random(seed)
    got = _Greedy(cards, allowed, cap).deal(a)
    want = _first_greedy(cards, allowed, cap, b)
    assert (None if got is None else dict(got)) == want
    assert a.random() == b.random()

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
    base, cap, cards, allowed_of, slots = k._prepared()
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


def seat_knowledge(preset: str, count: int, base: int) -> list[Knowledge]:
    """What each seat knows in the play positions of ``count`` random games from seed ``base``."""
    return [
        Knowledge(view(s, seat), s.rules)
        for s in _positions(preset, count, base=base)
        if s.phase == "play"
        for seat in range(s.players)
    ]


def assert_hard_facts(k: Knowledge, deal: list[int]) -> None:
    """``deal`` gives this seat its own hands, each hidden holder (and the dead cards) its size,
    no card of a suit it showed void in and the cards this seat passed it, every unseen card
    once."""
    for h in k.mine:
        assert deal[h] == k.own_hands[h]
    union = 0
    for h, size in k.capacity.items():
        assert deal[h].bit_count() == size
        assert not deal[h] & k.void[h]  # no card of a suit it showed void in
        assert not deal[h] & union
        assert deal[h] & k.known.get(h, 0) == k.known.get(h, 0)
        union |= deal[h]
    assert union == k.unseen


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_sample_deals_as_the_first_version(preset: str) -> None:
    """Every preset, positions with shown voids and passed cards among them: the same deals,
    and the generator left in the same state."""
    ks = seat_knowledge(preset, 12, 500)
    assert ks
    for k in ks:
        a, b = random.Random(k.seat), random.Random(k.seat)
        for _ in range(20):
            assert k.sample(a) == _first_sample(k, b)
        assert a.random() == b.random()


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


def _free_cards(k: Knowledge) -> list[int]:
    known = 0
    for m in k.known.values():
        known |= m
    return [c for c in range(55) if (k.unseen & ~known) >> c & 1]


@pytest.mark.parametrize(
    "preset", ["classic", "classic-5-jokers", "double-hearts", "two-player-28"]
)
def test_odds_of_one_deal_as_the_uniform_sample(preset: str) -> None:
    """The beliefs' draw is the uniform deal's loop: with every card's odds at one it makes the
    very same deals from the same random numbers."""
    ks = seat_knowledge(preset, 10, 700)
    assert ks
    for k in ks:
        odds = {c: dict.fromkeys(k.capacity, 1.0) for c in _free_cards(k)}
        a, b = random.Random(k.seat), random.Random(k.seat)
        for _ in range(10):
            assert k.sample(a, odds) == k.sample(b)
        assert a.random() == b.random()


@given(
    st.sampled_from(["classic", "classic-3-jokers", "two-player-dummy", "double-hearts"]),
    st.integers(0, 10**6),
    st.integers(0, 2**32),
)
@settings(max_examples=60, deadline=None)
def test_deals_by_any_odds_keep_every_hard_fact(preset: str, seed: int, draw_seed: int) -> None:
    """Whatever the odds (zeros among them: a card some holder may not take by the odds alone),
    every deal keeps the hard facts (``assert_hard_facts``)."""
    rng = random.Random(draw_seed)
    weights = [0.0, 0.0, 0.01, 0.5, 1.0, 3.0, 50.0]
    for k in seat_knowledge(preset, 2, seed):
        odds = {c: {h: rng.choice(weights) for h in k.capacity} for c in _free_cards(k)}
        for _ in range(3):
            assert_hard_facts(k, k.sample(rng, odds))

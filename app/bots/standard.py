"""The seed's Standard player, for every variant, as a fast policy over bit masks.

The seed (``two-player-28-card-hearts-and-computer-players.txt``) says, for classic Hearts:

- Passing: the three highest valued cards, valued by rank, then suit (spades, hearts, diamonds,
  clubs), the QS first: QS, AS, AH, AD, AC, KS, KH, KD, KC, QH, ...
- Leading: the lowest card in hand.
- Second or third: the highest card that will not take the trick, otherwise the lowest card of
  the suit.
- Last, points in the trick: the highest card that will not take the trick; if it must take the
  trick, the highest card of the suit, avoiding the QS.  Last, no points: the highest card.
- Void in the led suit: the highest valued card, in the passing order above.

The adaptations to the other games keep that intent (shed danger, never take points you can
avoid) and are listed in docs/bots.md.  One function serves the real decision and the rollouts:
``standard_play(t, hand, legal, cards, led_suit, lead_face, n_in_trick)``.
"""

from __future__ import annotations

from functools import lru_cache

from app.engine import DARK_FACE, Tables
from app.engine.playout import Sim

LIGHT, DARK = 0, 1
# the seed's suit order for equal ranks, lowest first: clubs, diamonds, hearts, spades
_SUIT_PRIO = (0, 1, 3, 2)  # C D S H -> priority
FACE_SHIFT = 6  # a decision is ``card | face << FACE_SHIFT`` (the face matters only on a lead)
CARD_BITS = (1 << FACE_SHIFT) - 1


def _seed_rank(c: int) -> int:
    """The seed's value order of a plain card: rank first, then suit (S > H > D > C)."""
    return (c % 13) * 4 + _SUIT_PRIO[c // 13]


class StandardTables:
    """Per rule set: the orders the Standard player reads."""

    def __init__(self, t: Tables) -> None:
        self.t = t
        double = t.game == "double"
        lead_rank = [1000] * 55  # lower leads first
        lead_face = [LIGHT] * 55
        dump = [-1000] * 55  # higher is shed first (passing and discarding)
        for c in t.deck_cards:
            if c >= 52:
                lead_rank[c] = 900  # a joker is led only when nothing else may be
                dump[c] = -500  # a joker never takes a trick: keep it as a safe card
                continue
            r = _seed_rank(c)
            if double:
                d = _seed_rank(DARK_FACE[c])
                lead_rank[c] = min(r, d)
                lead_face[c] = LIGHT if r <= d else DARK
                r = max(r, d)
            else:
                lead_rank[c] = r
            pos = t.pos_value[c]
            if t.value[c] < 0:
                dump[c] = -100 + r  # a bonus card (Omnibus, the dummy game's TD) is kept
            elif pos > 1:
                dump[c] = 100 * pos + r  # QS first, then heavier penalty cards by value
            else:
                dump[c] = r
        self.lead_rank = tuple(lead_rank)
        self.lead_face = tuple(lead_face)
        self.dump = tuple(dump)
        # cards that count as "the QS" when avoiding it: the heaviest penalty cards
        self.heavy = sum(1 << c for c in t.deck_cards if t.pos_value[c] > 1)
        self.trump = t.game == "twentyeight"


@lru_cache(maxsize=64)
def standard_tables(t: Tables) -> StandardTables:
    return StandardTables(t)


def highest(m: int, order: tuple[int, ...] | list[int]) -> int:
    """The card of non-empty mask ``m`` with the highest ``order`` (the lowest card of a tie)."""
    best = -1
    bv = -(10**9)
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        v = order[c]
        if v > bv:
            bv = v
            best = c
    return best


def lowest(m: int, order: tuple[int, ...] | list[int]) -> int:
    """The card of non-empty mask ``m`` with the lowest ``order`` (the lowest card of a tie)."""
    best = -1
    bv = 10**9
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        v = order[c]
        if v < bv:
            bv = v
            best = c
    return best


def below(m: int, key: tuple[int, ...], best: int) -> int:
    """The cards of mask ``m`` whose trick ``key`` is under ``best`` (they do not take the trick
    from the card now winning it)."""
    under = 0
    while m:
        low = m & -m
        m ^= low
        if key[low.bit_length() - 1] < best:
            under |= low
    return under


def standard_lead(st: StandardTables, legal: int, forced_dark: bool) -> int:
    """Lead the lowest card (Double Hearts: the lowest face, which it names)."""
    c = lowest(legal, st.lead_rank)
    if st.t.game != "double":
        return c
    face = DARK if forced_dark else st.lead_face[c]
    return c | (face << FACE_SHIFT)


def standard_play(
    st: StandardTables,
    legal: int,
    cards: list[int] | tuple[int, ...],
    led_suit: int,
    lead_face: int,
    n_in_trick: int,
    forced_dark: bool = False,
) -> int:
    """The Standard card (``card | face << FACE_SHIFT`` on a Double Hearts lead)."""
    if not cards or led_suit < 0:
        # leading, or only jokers so far (the first real card sets the suit: a lead)
        return standard_lead(st, legal, forced_dark and not cards)
    t = st.t
    key = t.key[lead_face][led_suit]
    best = 0
    points = 0
    net = 0
    for x in cards:
        k = key[x]
        if k > best:
            best = k
        points += t.pos_value[x]
        net += t.value[x]
    follow = legal & t.follow[led_suit]
    last = len(cards) == n_in_trick - 1
    if not follow:
        # void: shed the highest valued card (28: one that does not take the trick, if any)
        cand = legal
        if st.trump:
            cand = below(legal, key, best) or legal
        return highest(cand, st.dump)
    under = below(follow, key, best)
    if not last:
        if under:
            return highest(under, key)
        return lowest(follow, key)
    if net < 0:
        # a bonus outweighs the points (Omnibus, the dummy game's TD): take it if possible
        safe = follow & ~st.heavy or follow
        return highest(safe, key)
    if points > 0:
        if under:
            return highest(under, key)
        safe = follow & ~st.heavy or follow  # must take it: the highest, avoiding the QS
        return highest(safe, key)
    # no points: the highest card (not the QS when it would take the trick)
    c = highest(follow, key)
    if (1 << c) & st.heavy and key[c] > best:
        rest = follow & ~st.heavy
        if rest:
            c = highest(rest, key)
    return c


def standard_policy(sim: Sim, holder: int, legal: int) -> int:
    """The Standard choice for the holder to move in an engine ``Sim``."""
    st = standard_tables(sim.t)
    return standard_play(
        st,
        legal,
        sim.cards,
        sim.led_suit,
        sim.lead_face,
        len(sim.order),
        sim.trick_no == 0 and bool(sim.first_lead_mask),
    )


def standard_pass(t: Tables, passable: int, count: int) -> int:
    """The three (``count``) highest valued cards: a mask."""
    st = standard_tables(t)
    out = 0
    m = passable
    for _ in range(count):
        c = highest(m, st.dump)
        out |= 1 << c
        m &= ~(1 << c)
    return out


def rollout(sim: Sim) -> list[int]:
    """Play the hand out in place, every holder by the Standard policy; points per scorer."""
    st = standard_tables(sim.t)
    double = sim.t.game == "double"
    # standard_policy's call written out (with the double game's first lead): rollouts make it
    # at every card, and calling standard_policy instead took 11% longer (a classic hand from
    # its first trick: 246-259 us a rollout inline, 277-287 us through the call; CPU time).
    while True:
        legal = sim.legal()
        d = standard_play(
            st,
            legal,
            sim.cards,
            sim.led_suit,
            sim.lead_face,
            len(sim.order),
            double and sim.trick_no == 0 and bool(sim.first_lead_mask),
        )
        if sim.play(d & CARD_BITS, d >> FACE_SHIFT):
            return sim.score()

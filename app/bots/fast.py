"""Flat, fast rollouts for the games whose tricks go round the table (classic and the 28-card game).

``standard_rollout`` plays exactly the Standard policy of ``standard.py`` (a test checks the two
agree card for card), but keeps the whole hand in local variables and reads bit masks instead of
calling the policy once per card: Pro's and Expert's searches spend most of their time here, and
this makes them about twice as fast without changing a single decision.  It is the one flat
rollout loop (``policy.policy_rollout``, which also plays Expert's policy) with no policy player;
``standard_card`` is the same Standard card as a function (for the inference).

Within one suit a card's index order is its rank order, so "the highest card of a suit mask below
the winning card" is a bit operation: ``(m & ((1 << w) - 1)).bit_length() - 1``.
"""

from __future__ import annotations

from app.engine import DARK_FACE
from app.engine.game import legal_mask
from app.engine.playout import Sim

from .flat import (
    SUIT,
    FastTables,
    _lowest_lead,
    flat_ok,
)
from .policy import policy_rollout as _flat_rollout
from .policy_double import double_policy_play, double_tables
from .standard import rollout as _slow_rollout
from .standard import standard_play, standard_tables


def standard_rollout(sim: Sim) -> list[int]:
    """Play the hand out in place, every holder by the Standard policy; points per scorer.

    Exactly ``standard.rollout`` for the games of ``flat_ok``: the one flat rollout
    (``policy.policy_rollout``) with no policy player."""
    return _flat_rollout(sim, 0)


def rollout(sim: Sim) -> list[int]:
    """The Standard rollout: the flat path where it applies, else ``standard.rollout``."""
    if flat_ok(sim.t):
        return standard_rollout(sim)
    if sim.t.game == "double":
        return double_rollout(sim)
    return _slow_rollout(sim)


def standard_card(
    ft: FastTables,
    legal: int,
    led: int,
    wc: int,
    best: int,
    points: int,
    net: int,
    last: bool,
) -> int:
    """The Standard card (classic and 28-card games) for a hand with ``legal`` cards: ``led``
    the suit to follow (-1: a lead), ``wc``/``best`` the winning card and its trick key,
    ``points``/``net`` the positive and net points in the trick.  Same as ``standard_play``."""
    if led < 0:
        return _lowest_lead(legal)
    follow = legal & SUIT[led]
    if not follow:
        cand = legal
        if ft.trump:
            under = legal & ~ft.hearts
            if wc >= 0 and wc // 13 == 3:
                under |= legal & ft.hearts & ((1 << wc) - 1)
            if under:
                cand = under
        for c in ft.dump_order:
            if cand >> c & 1:
                return c
    under = follow & ((1 << wc) - 1) if wc >= 0 and wc // 13 == led else follow
    if not last:
        if under:
            return under.bit_length() - 1
        return (follow & -follow).bit_length() - 1
    heavy = ft.heavy
    if net < 0:
        safe = follow & ~heavy or follow
        return safe.bit_length() - 1
    if points > 0:
        if under:
            return under.bit_length() - 1
        safe = follow & ~heavy or follow
        return safe.bit_length() - 1
    c = follow.bit_length() - 1
    if (1 << c) & heavy and ft.key[led][c] > best:
        rest = follow & ~heavy
        if rest:
            c = rest.bit_length() - 1
    return c


def double_rollout(sim: Sim, smart: int = 0) -> list[int]:
    """``standard.rollout`` for Double Hearts, with the trick bookkeeping kept in locals (the
    card choice is ``standard_play`` itself); holders in the bit mask ``smart`` play by Expert's
    Double Hearts policy instead (``policy_double.py``)."""
    t = sim.t
    st = standard_tables(t)
    dt = double_tables(t) if smart else None
    # The Sim's fields read into locals once, as policy.rollout does (a local is read faster
    # than an attribute, and this loop runs for every card of every rollout): alike on purpose.
    keys = t.key
    hands = sim.hands
    taken = sim.taken
    won = sim.won
    breakers = t.breakers
    orders = t.orders
    n = len(sim.order)
    order = sim.order
    trick_no = sim.trick_no
    broken = sim.broken
    flm = sim.first_lead_mask
    played = sim.played
    dead = sim.dead
    cards = list(sim.cards)
    holders = list(sim.holders)
    led = sim.led_suit
    face = sim.lead_face
    while True:
        start = len(cards)
        for i in range(start, n):
            h = order[i]
            hand = hands[h]
            legal = legal_mask(t, hand, trick_no, i, led, broken, flm)
            if not legal & (legal - 1) and i:
                c = legal.bit_length() - 1
            else:
                forced = trick_no == 0 and bool(flm) and not i
                if dt is not None and smart >> h & 1:
                    gone = played
                    for x in cards:
                        gone |= 1 << x
                    d = double_policy_play(dt, hand, legal, cards, led, face, n, forced, gone)
                else:
                    d = standard_play(st, legal, cards, led, face, n, forced)
                c = d & 63
                if not i:
                    face = d >> 6
                    led = (DARK_FACE[c] if face else c) // 13
            hands[h] = hand ^ (1 << c)
            cards.append(c)
            holders.append(h)
        key = keys[face][led]
        best = -1
        winner = order[0]
        m = 0
        for c, h in zip(cards, holders, strict=True):
            m |= 1 << c
            k = key[c]
            if k > best:
                best = k
                winner = h
        played |= m
        if trick_no == 0:
            m |= dead
        taken[winner] |= m
        won[winner] += 1
        if (m & ~dead if trick_no == 0 else m) & breakers:
            broken = True
        trick_no += 1
        cards = []
        holders = []
        led = -1
        face = 0
        order = orders[winner]
        if not hands[winner]:
            break
    sim.trick_no = trick_no
    sim.broken = broken
    sim.played = played
    sim.order = order
    sim.cards = []
    sim.holders = []
    sim.led_suit = -1
    sim.lead_face = 0
    return sim.score()

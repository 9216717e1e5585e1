"""What the flat rollouts read: per rule set tables (the Standard shedding order, the scoring
by look-up), the finished hand's score from them, and the dummy game's playing orders.

Shared by the Standard rollout (``fast``) and the policy rollout (``policy``), which both
play a hand out in local variables over bit masks.
"""

from __future__ import annotations

from functools import lru_cache

from app.engine import Tables
from app.engine.playout import Sim
from app.engine.scoring import settle_moon

from .standard import standard_tables

SUIT = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
_SUIT_PRIO = (0, 1, 3, 2)  # the seed's tie order for equal ranks: C, D, H, S


class FastTables:
    """Per rule set: what the flat rollouts read."""

    def __init__(self, t: Tables) -> None:
        st = standard_tables(t)
        self.t = t
        self.heavy = st.heavy
        self.trump = t.game == "twentyeight"
        dump = st.dump
        # cards in the Standard shedding order (highest first)
        self.dump_order = tuple(sorted(t.deck_cards, key=lambda c: -dump[c]))
        self.pos = t.pos_value
        self.val = t.value
        self.key = t.key[0]
        self.hearts = SUIT[3] & t.deck
        # scoring: positive and bonus values of the hearts by 13-bit chunk, the other valued
        # cards one by one
        pos, neg = t.pos_value, t.neg_value
        hearts = [c for c in range(39, 52)]
        self.heart_pos = tuple(
            sum(pos[hearts[i]] for i in range(13) if m >> i & 1) for m in range(1 << 13)
        )
        self.others = tuple(
            (c, pos[c], neg[c]) for c in range(55) if c < 39 or c > 51 if pos[c] or neg[c]
        )
        self.heart_neg = any(neg[c] for c in hearts)
        self.simple_score = t.game in ("classic", "twentyeight") and not self.heart_neg


@lru_cache(maxsize=64)
def fast_tables(t: Tables) -> FastTables:
    return FastTables(t)


def fast_score(sim: Sim) -> list[int]:
    """``sim.score()`` for a finished classic or 28-card hand, by table look-ups."""
    t = sim.t
    ft = fast_tables(t)
    if not ft.simple_score:
        return sim.score()
    taken = sim.taken
    hp = ft.heart_pos
    points = []
    bonus = []
    for m in taken:
        p = hp[m >> 39 & 0x1FFF]
        q = 0
        for c, pv, nv in ft.others:
            if m >> c & 1:
                p += pv
                q += nv
        points.append(p)
        bonus.append(q)
    if t.rules.no_trick_bonus and t.game == "classic":
        won = sim.won
        for i in range(t.n):
            if won[i] == 0:
                bonus[i] -= 5
    need = t.pos_mask & t.deck & ~sim.dead
    shooter = -1
    for i in range(t.n):
        if taken[i] & need == need:
            shooter = i
    return settle_moon(t, points, bonus, shooter, sim.moon_choice)


def flat_ok(t: Tables) -> bool:
    """The flat path serves the games with one face per card: classic, 28 cards, the dummy."""
    return t.game in ("classic", "twentyeight", "dummy")


def _dummy_orders() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Playing order after a trick, by [winner][joker holder of the next trick]."""
    from .knowledge import dummy_order

    return tuple(tuple(dummy_order(w if w < 2 else 2, j) for j in (0, 1)) for w in range(4))


DUMMY_ORDERS = _dummy_orders()


# The lowest value over the suits, written inline as the policy's choices write it: these
# run for every card of every rollout (no call, no key function).
def _lowest_lead(legal: int) -> int:
    """The seed's lowest card: lowest rank, ties C, D, H, S; a joker only if nothing else."""
    best = -1
    bv = 10**9
    for s in (0, 1, 3, 2):
        m = legal & SUIT[s]
        if m:
            c = (m & -m).bit_length() - 1
            v = (c - 13 * s) * 4 + _SUIT_PRIO[s]
            if v < bv:
                bv = v
                best = c
    if best < 0:
        return (legal & -legal).bit_length() - 1  # jokers only
    return best

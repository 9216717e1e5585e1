"""Expert's rollout policy for Double Hearts: Standard's intent with card sense, on two faces.

The same ideas as ``policy.py`` for the classic game, read through the trick keys of the led face
(a card follows the led suit if either face has it):

- **Lead**: the card and face least likely to take the trick (the most unseen cards that beat it
  in its suit, never a sure taker when anything else will do); never a card with a QS face while
  another lead will do.
- **Follow**: a card with a QS face that can go under the winning card goes; otherwise the
  highest card that ducks; forced to take a trick without points before the last hand, take it
  with the highest card (not one with a QS face).
- **Discard**: the cards with a QS face first, then the cards with a heart face (highest first),
  then Standard's shedding order.
"""

from __future__ import annotations

from functools import lru_cache

from app.engine import DARK_FACE, Tables

from .standard import FACE_SHIFT, StandardTables, below, highest, lowest, standard_tables

LIGHT, DARK = 0, 1


class DoubleTables:
    def __init__(self, t: Tables) -> None:
        self.t = t
        self.st: StandardTables = standard_tables(t)
        # above[face][suit][card]: the cards whose key beats this card's when ``face`` of
        # ``suit`` leads
        above: list[list[list[int]]] = []
        for face in (LIGHT, DARK):
            per_suit = []
            for s in range(4):
                key = t.key[face][s]
                row = []
                for c in range(52):
                    m = 0
                    for x in range(52):
                        if t.follow[s] >> x & 1 and key[x] > key[c]:
                            m |= 1 << x
                    row.append(m)
                per_suit.append(row)
            above.append(per_suit)
        self.above = above
        self.heavy = self.st.heavy
        self.points = t.pos_mask
        # shedding order: the QS faces, then heart faces (highest first), then Standard's order
        dump = self.st.dump
        self.shed = tuple(
            sorted(
                range(52),
                key=lambda c: (
                    -(t.pos_value[c] > 1),
                    -(t.pos_value[c] > 0),
                    -dump[c],
                ),
            )
        )
        # the rank of the face a card leads with
        self.face_rank = tuple(
            tuple((c if f == LIGHT else DARK_FACE[c]) % 13 for c in range(52)) for f in (0, 1)
        )


@lru_cache(maxsize=16)
def double_tables(t: Tables) -> DoubleTables:
    return DoubleTables(t)


def double_policy_play(
    dt: DoubleTables,
    hand: int,
    legal: int,
    cards: list[int],
    led: int,
    face: int,
    n_in_trick: int,
    forced_dark: bool,
    gone: int,
) -> int:
    """The policy's decision (``card | face << FACE_SHIFT`` on a lead)."""
    t = dt.t
    if not cards:
        return _lead(dt, hand, legal, forced_dark, gone)
    key = t.key[face][led]
    best = 0
    points = 0
    for x in cards:
        if key[x] > best:
            best = key[x]
        points += t.pos_value[x]
    follow = legal & t.follow[led]
    if not follow:
        for c in dt.shed:
            if legal >> c & 1:
                return c
    under = below(follow, key, best)
    over = follow & ~under
    heavy = dt.heavy
    if under & heavy:
        return highest(under & heavy, key)
    last = len(cards) == n_in_trick - 1
    if under:
        if last and points == 0 and over & ~heavy:
            return highest(over & ~heavy, key)  # a free trick: shed the highest
        return highest(under & ~heavy or under, key)
    safe = over & ~heavy or over
    if last or points == 0:
        return highest(safe, key)
    return lowest(safe, key)


def _lead(dt: DoubleTables, hand: int, legal: int, forced_dark: bool, gone: int) -> int:
    t = dt.t
    out_all = t.deck & ~gone & ~hand
    faces = (DARK,) if forced_dark else (LIGHT, DARK)
    best_d = -1
    best_v = 10**9
    m = legal
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        for f in faces:
            fc = c if f == LIGHT else DARK_FACE[c]
            s = fc // 13
            out = out_all & t.follow[s]
            if not out:
                v = 100
            else:
                above = (out & dt.above[f][s][c]).bit_count()
                v = 60 if above == 0 else -min(above, 6)
            if low & dt.heavy:
                v += 40
            v = v * 16 + dt.face_rank[f][c]
            if v < best_v:
                best_v = v
                best_d = c | (f << FACE_SHIFT)
    return best_d

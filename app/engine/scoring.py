"""A finished hand's points: what each scorer took, the no-trick bonus, the moon and its
settling, and whether a hand may end early because no trick left can change a score.

Pure functions of the rules' ``Tables``, used by the engine and by the computer players'
rollouts alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from .tables import Tables


def auto_end_due(t: Tables, hands: Sequence[int], won: Sequence[int]) -> bool:
    """With the ``auto_end`` option, after a trick: no trick left can change a score.  No card
    that scores (positive or negative) is left in any hand or half dummy, and with the no-trick
    bonus every player has taken a trick already."""
    left = 0
    for m in hands:
        left |= m
    if left & (t.pos_mask | t.neg_mask):
        return False
    return not (t.rules.no_trick_bonus and t.game == "classic" and not all(won[: t.n]))


def hand_points(
    t: Tables, taken: Sequence[int], won: Sequence[int], in_play: int
) -> tuple[list[int], list[int], int]:
    """For a finished hand: positive points and bonuses (zero or negative) per scorer, and the
    scorer who shot the moon (-1 for none)."""
    pos_groups = t.pos_groups
    neg_groups = t.neg_groups
    points: list[int] = []
    bonus: list[int] = []
    for m in taken:
        points.append(sum(v * (m & g).bit_count() for g, v in pos_groups))
        bonus.append(sum(v * (m & g).bit_count() for g, v in neg_groups))
    if t.rules.no_trick_bonus and t.game == "classic":
        for i in range(t.n):
            if won[i] == 0:
                bonus[i] -= 5
    need = t.pos_mask & in_play
    shooter = -1
    for i in range(t.n):  # never the dummy
        if taken[i] & need == need:
            shooter = i
    return points, bonus, shooter


def settle_moon(
    t: Tables, points: Sequence[int], bonus: Sequence[int], shooter: int, choice: str
) -> list[int]:
    """A hand's points per scorer once the moon (if any) is applied; ``choice`` is "self" (the
    shooter subtracts the moon total) or "others" (everyone else adds it)."""
    if shooter < 0:
        return [p + q for p, q in zip(points, bonus, strict=True)]
    total = points[shooter]
    if t.game == "twentyeight":
        pts = [0 if i == shooter else 20 for i in range(len(points))]
    elif choice == "self":
        pts = [-total if i == shooter else p for i, p in enumerate(points)]
    else:
        pts = [0 if i == shooter else p + total for i, p in enumerate(points)]
    return [p + q for p, q in zip(pts, bonus, strict=True)]

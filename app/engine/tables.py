"""Rules compiled into masks and lookup tables, once per ``Rules`` value.

The play logic reads only these tables, so one code path serves every variant: following suit is
``hand & follow[suit]``, the trick goes to the highest ``key`` of its cards, points are
``value[card]``.
"""

from __future__ import annotations

from functools import lru_cache

from .cards import (
    CLUBS,
    DARK_FACE,
    FULL_DECK,
    HEARTS,
    JOKER_MASK,
    SPADES,
    SUIT_MASK,
    card,
    parse_card,
)
from .rules import Rules

LIGHT, DARK = 0, 1
FACES = ("light", "dark")

QS = card("Q", "S")
TD = card("T", "D")
JD = card("J", "D")
C7 = card("7", "C")

_GRADED = {12: 5, 11: 4, 10: 3, 9: 2}  # A K Q J of hearts


def direction_name(offset: int, players: int) -> str:
    if offset == 0:
        return "hold"
    if players == 2:
        return "other"
    if offset == 1:
        return "left"
    if offset == players - 1:
        return "right"
    return "across"


class Tables:
    """Everything the play loop needs to know about one rule set."""

    def __init__(self, r: Rules) -> None:
        self.rules = r
        self.game = r.game
        self.n = r.players
        game = r.game
        # holders: the hands that hold cards; in the dummy game 2 and 3 are the half dummies
        # of seats 0 and 1
        self.holders = 4 if game == "dummy" else self.n
        self.scorers = 3 if game == "dummy" else self.n
        self.owner = (0, 1, 0, 1) if game == "dummy" else tuple(range(self.n))
        self.scorer_of = (0, 1, 2, 2) if game == "dummy" else tuple(range(self.n))
        self.hand_size = r.hand_size

        # the deck
        deck = FULL_DECK
        if game == "classic":
            if r.deck == "remove_2d":
                deck &= ~(1 << card("2", "D"))
            elif r.deck == "remove_2c":
                deck &= ~(1 << card("2", "C"))
            elif r.deck == "remove_2c_2d":
                deck &= ~((1 << card("2", "C")) | (1 << card("2", "D")))
            elif r.deck == "jokers":
                deck |= (1 << 52) | (1 << 53) | ((1 << 54) if self.n == 5 else 0)
        elif game == "twentyeight":
            deck = 0
            for s in range(4):
                for rank in (0, 2, 4, 6, 8, 10, 12):
                    deck |= 1 << (s * 13 + rank)
        self.deck = deck
        self.deck_cards = tuple(c for c in range(55) if deck >> c & 1)

        # card values: value = positive part + negative part
        pos = [0] * 55
        neg = [0] * 55
        for c in range(52):
            s, rank = divmod(c, 13)
            if s == HEARTS:
                pos[c] = _GRADED.get(rank, 1) if r.graded_hearts else 1
        pos[QS] = 13
        if game == "classic":
            if r.hooligan:
                pos[C7] = 7
            for name, v in r.spade_penalties:
                pos[parse_card(name)] = v
            if r.omnibus != "none":
                neg[parse_card(r.omnibus)] = -10
        elif game == "dummy":
            neg[TD] = -10
        elif game == "double":
            # every face scores: a card's value is the sum of its two faces
            face_pos = pos[:52]
            for c in range(52):
                pos[c] = face_pos[c] + face_pos[DARK_FACE[c]]
        self.pos_value = tuple(pos)
        self.neg_value = tuple(neg)
        self.value = tuple(p + q for p, q in zip(pos, neg, strict=True))
        # the same values as (mask, value) groups: a pile's points are a few popcounts
        self.pos_groups = _groups(pos, deck)
        self.neg_groups = _groups(neg, deck)
        self.pos_mask = sum(1 << c for c in range(55) if pos[c] > 0) & deck
        self.neg_mask = sum(1 << c for c in range(55) if neg[c] < 0) & deck
        # points in a hand when no card is dead
        self.pos_total = sum(pos[c] for c in self.deck_cards)

        # follow masks: the cards that count as each suit
        if game == "double":
            self.follow = tuple(
                SUIT_MASK[s] | sum(1 << c for c in range(52) if DARK_FACE[c] // 13 == s)
                for s in range(4)
            )
        else:
            self.follow = SUIT_MASK
        # trick keys: key[face][suit][card]; the highest key wins, 0 never wins
        keys: list[tuple[tuple[int, ...], ...]] = []
        for face in (LIGHT, DARK):
            per_suit = []
            for led in range(4):
                k = [0] * 55
                for c in range(52):
                    s, rank = divmod(c, 13)
                    if game == "double":
                        d = DARK_FACE[c]
                        if s == led:
                            k[c] = 2 * rank + 2 + (face == LIGHT)
                        elif d // 13 == led:
                            k[c] = 2 * (d % 13) + 2 + (face == DARK)
                    elif game == "twentyeight" and s == HEARTS:
                        k[c] = 100 + rank
                    elif s == led:
                        k[c] = rank + 1
                per_suit.append(tuple(k))
            keys.append(tuple(per_suit))
        self.key = tuple(keys)

        # leading bars
        hearts = SUIT_MASK[HEARTS]
        if game == "classic":
            self.lead_bar = hearts
            self.lead_exempt = hearts
            self.breakers = hearts | ((1 << QS) if r.queen_breaks_hearts else 0)
        elif game == "dummy":
            scoring = hearts | (1 << QS) | (1 << TD)
            self.lead_bar = self.lead_exempt = self.breakers = scoring
        elif game == "twentyeight":
            self.lead_bar = hearts & deck
            self.lead_exempt = (hearts | SUIT_MASK[SPADES]) & deck
            self.breakers = hearts
        else:
            self.lead_bar = self.lead_exempt = self.breakers = self.pos_mask
        self.first_trick_bar = r.no_points_first_trick and game in ("classic", "double")
        self.must_discard = r.must_discard and game == "classic"
        self.jokers = deck & JOKER_MASK
        self.clubs = SUIT_MASK[CLUBS] & deck

        # pass cycle: offsets, 0 = hold; None = dealer's choice
        n = self.n
        cycle: tuple[int, ...] | None
        if r.passing == "none":
            cycle = (0,)
        elif r.passing == "dealer":
            cycle = None
        elif game == "dummy":
            cycle = (1,)
        else:
            names = {
                "left": (1,),
                "right": (n - 1,),
                "lr": (1, n - 1),
                "lra": (1, n - 1, 2),
                "lrah": (1, n - 1, 2, 0) if n == 4 else (1, n - 1, 0),
            }
            cycle = names[r.passing]
        self.pass_cycle = cycle
        self.dealer_choices = (1, n - 1, 2, 0) if n == 4 else (1, n - 1, 0)
        forbidden = 0
        for name in r.pass_forbidden:
            forbidden |= 1 << parse_card(name)
        self.pass_forbidden = forbidden
        self.pass_count = r.pass_count
        # playing orders for the games where play goes round the table
        self.orders = tuple(tuple((lead + i) % n for i in range(n)) for lead in range(n))


def _groups(values: list[int], deck: int) -> tuple[tuple[int, int], ...]:
    by_value: dict[int, int] = {}
    for c, v in enumerate(values):
        if v and deck >> c & 1:
            by_value[v] = by_value.get(v, 0) | 1 << c
    return tuple((m, v) for v, m in sorted(by_value.items()))


@lru_cache(maxsize=256)
def tables_for(r: Rules) -> Tables:
    return Tables(r)

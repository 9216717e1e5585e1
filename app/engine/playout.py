"""The bots' fast path: play a hand to its end in place, with no copies and no move objects.

``Sim`` is a mutable copy of the current hand (optionally with the hidden hands replaced by a
sampled deal).  It uses the same ``legal_mask``, trick keys and scoring as ``apply``, so a playout
follows exactly the rules the server enforces; it only skips the error reporting and the
immutable copies that the public API needs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from .game import _dummy_order, legal_mask, next_led_suit
from .scoring import hand_points, settle_moon
from .state import GameState
from .tables import DARK, LIGHT, Tables

# a policy picks a card from a non-empty mask of legal cards: (sim, holder, legal) -> card
Policy = Callable[["Sim", int, int], int]


class Sim:
    __slots__ = (
        "t",
        "hands",
        "dead",
        "trick_no",
        "cards",
        "holders",
        "order",
        "led_suit",
        "lead_face",
        "broken",
        "taken",
        "won",
        "joker",
        "first_lead_mask",
        "played",
        "moon_choice",
    )

    def __init__(self, s: GameState, hands: Sequence[int] | None = None) -> None:
        if s.phase != "play":
            raise ValueError("a playout starts in the play phase")
        self.t: Tables = s.t
        self.hands: list[int] = list(hands if hands is not None else s.hands)
        self.dead = s.dead
        self.trick_no = s.trick_no
        self.cards: list[int] = list(s.trick_cards)
        self.holders: list[int] = list(s.trick_holders)
        self.order: tuple[int, ...] = s.order
        self.led_suit = s.led_suit
        self.lead_face = s.lead_face
        self.broken = s.broken
        self.taken: list[int] = list(s.taken)
        self.won: list[int] = list(s.won)
        self.joker = s.joker
        self.first_lead_mask = s.first_lead_mask
        # every card played this hand (for bots' card counting)
        played = 0
        for tr in s.tricks:
            for c in tr.cards:
                played |= 1 << c
        for c in s.trick_cards:
            played |= 1 << c
        self.played = played
        self.moon_choice = "others" if s.rules.moon == "choice" else s.rules.moon

    def copy(self) -> Sim:
        n = object.__new__(Sim)
        for name in Sim.__slots__:
            v = getattr(self, name)
            setattr(n, name, v[:] if type(v) is list else v)
        return n

    @property
    def turn(self) -> int:
        return self.order[len(self.cards)]

    def legal(self) -> int:
        return legal_mask(
            self.t,
            self.hands[self.order[len(self.cards)]],
            self.trick_no,
            len(self.cards),
            self.led_suit,
            self.broken,
            self.first_lead_mask,
        )

    def play(self, c: int, face: int = LIGHT) -> bool:
        """Play card ``c`` for the holder to move; True when the hand is over."""
        t = self.t
        holder = self.order[len(self.cards)]
        self.hands[holder] &= ~(1 << c)
        self.played |= 1 << c
        cards = self.cards
        if not cards:
            self.lead_face = face
        self.led_suit = next_led_suit(t, self.led_suit, len(cards), c, face)
        cards.append(c)
        self.holders.append(holder)
        if len(cards) < len(self.order):
            return False
        # the trick is complete
        key = t.key[self.lead_face][self.led_suit]
        best = -1
        wi = 0
        m = 0
        for i, x in enumerate(cards):
            m |= 1 << x
            k = key[x]
            if k > best:
                best = k
                wi = i
        winner = self.holders[wi]
        sc = t.scorer_of[winner]
        if self.trick_no == 0 and t.game == "double":
            m |= self.dead
        self.taken[sc] |= m
        self.won[sc] += 1
        if m & t.breakers:
            self.broken = True
        self.trick_no += 1
        self.cards = []
        self.holders = []
        self.led_suit = -1
        self.lead_face = LIGHT
        if t.game == "dummy":
            if not (self.hands[0] | self.hands[1]):
                return True
            self.joker = 1 - self.joker
            self.order = _dummy_order(winner if winner < 2 else 2, self.joker)
            return False
        if not self.hands[winner]:
            return True
        self.order = t.orders[winner]
        return False

    def score(self) -> list[int]:
        """Points per scorer for the finished hand (moon applied; a choice is taken as
        'others', the usual best for the shooter)."""
        t = self.t
        taken = self.taken
        if t.game == "dummy":
            taken = taken[:]
            taken[2] |= self.hands[2] | self.hands[3]
        in_play = t.deck if t.game == "double" else t.deck & ~self.dead
        points, bonus, shooter = hand_points(t, taken, self.won, in_play)
        return settle_moon(t, points, bonus, shooter, self.moon_choice)


def random_card(legal: int, rnd: Callable[[], float] = random.random) -> int:
    """A uniformly random card of a non-empty mask."""
    k = int(rnd() * legal.bit_count())
    while k:
        legal &= legal - 1
        k -= 1
    return (legal & -legal).bit_length() - 1


def random_playout(sim: Sim, rnd: Callable[[], float] = random.random) -> list[int]:
    """Play the hand out with uniformly random legal cards (in place); the hand's points.

    The inner loop keeps everything in locals and settles a whole trick at a time: this is the
    bots' hot path, so it repeats ``Sim.play`` in a flatter form (same tables, same rules)."""
    t = sim.t
    if sim.cards or t.game in ("dummy", "double"):
        # mid-trick or a game with special trick order or faces: the general path
        while True:
            legal = sim.legal()
            c = random_card(legal, rnd)
            face = LIGHT
            if t.game == "double" and not sim.cards:
                forced = sim.trick_no == 0 and sim.first_lead_mask
                face = DARK if forced or rnd() < 0.5 else LIGHT
            if sim.play(c, face):
                return sim.score()
            if not sim.cards and t.game not in ("dummy", "double"):
                break
    hands = sim.hands
    taken = sim.taken
    won = sim.won
    keys = t.key[LIGHT]
    breakers = t.breakers
    orders = t.orders
    order = sim.order
    trick_no = sim.trick_no
    broken = sim.broken
    flm = sim.first_lead_mask
    played = sim.played
    while True:
        led = -1
        m = 0
        best = -1
        winner = order[0]
        for i, h in enumerate(order):
            hand = hands[h]
            legal = legal_mask(t, hand, trick_no, i, led, broken, flm)
            k = int(rnd() * legal.bit_count())
            while k:
                legal &= legal - 1
                k -= 1
            low = legal & -legal
            c = low.bit_length() - 1
            hands[h] = hand ^ low
            m |= low
            if led < 0 and c < 52:
                led = c // 13
            if led >= 0:
                kv = keys[led][c]
                if kv > best:
                    best = kv
                    winner = h
        taken[winner] |= m
        won[winner] += 1
        played |= m
        if m & breakers:
            broken = True
        trick_no += 1
        if not hands[winner]:
            break
        order = orders[winner]
    sim.trick_no = trick_no
    sim.broken = broken
    sim.played = played
    sim.order = orders[winner]
    return sim.score()


def policy_playout(sim: Sim, policy: Policy) -> list[int]:
    """Play the hand out with ``policy`` choosing every card (in place); the hand's points."""
    while True:
        holder = sim.order[len(sim.cards)]
        legal = sim.legal()
        c = policy(sim, holder, legal)
        face = LIGHT
        if sim.t.game == "double" and not sim.cards:
            face = DARK if (sim.trick_no == 0 and sim.first_lead_mask) else LIGHT
        if sim.play(c, face):
            return sim.score()

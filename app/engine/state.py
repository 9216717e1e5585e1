"""A game's state: the immutable ``GameState`` (what the rules engine reads and returns), the
trick and hand-result records it keeps, and a hand's layout (the deal) with its JSON form and
its checks.

The rules of play that make one state from another are in ``game``; ``play.apply`` is the
one way in for a move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from .cards import mask_str, parse_card
from .rules import Rules
from .tables import Tables, direction_name

PHASES = ("direction", "pass", "play", "moon", "over")
_DIRECTION_OFFSET = {"left": 1, "right": -1, "across": 2, "hold": 0}


class Trick(NamedTuple):
    cards: tuple[int, ...]
    holders: tuple[int, ...]
    winner: int  # a holder
    lead_face: int  # LIGHT or DARK (Double Hearts), else LIGHT


class HandResult(NamedTuple):
    hand_no: int
    dealer: int
    direction: str
    points: tuple[int, ...]  # per scorer, after moon, bonuses and resets
    moon: int  # scorer who shot the moon, or -1
    totals: tuple[int, ...]
    dead: int  # mask of cards out of play, revealed at the end of the hand
    tricks_won: tuple[int, ...]


class Layout(NamedTuple):
    """An explicit deal (tests, golden games): one mask per holder, plus dead cards."""

    hands: tuple[int, ...]
    dead: int = 0


def layout_from_json(obj: Mapping[str, object], t: Tables) -> Layout:
    raw = obj.get("hands")
    if not isinstance(raw, list):
        raise ValueError("a layout needs 'hands': a list of card lists")
    hands = [_mask_from(h) for h in raw]
    if t.game == "dummy":
        halves = obj.get("half_dummies")
        if not isinstance(halves, list) or len(halves) != 2:
            raise ValueError("a dummy-game layout needs 'half_dummies': two card lists")
        hands += [_mask_from(h) for h in halves]
    dead = _mask_from(obj.get("dead", []))
    lay = Layout(tuple(hands), dead)
    check_layout(lay, t)
    return lay


def layout_to_json(lay: Layout, t: Tables) -> dict[str, object]:
    out: dict[str, object] = {"hands": [mask_str(h) for h in lay.hands[: t.n]]}
    if t.game == "dummy":
        out["half_dummies"] = [mask_str(h) for h in lay.hands[2:]]
    if lay.dead:
        out["dead"] = mask_str(lay.dead)
    return out


def _mask_from(cards: object) -> int:
    if not isinstance(cards, list):
        raise ValueError("expected a list of cards")
    m = 0
    for c in cards:
        b = 1 << parse_card(c)
        if m & b:
            raise ValueError(f"{c} appears twice")
        m |= b
    return m


def check_layout(lay: Layout, t: Tables) -> None:
    if len(lay.hands) != t.holders:
        raise ValueError(f"a layout for this game has {t.holders} hands")
    seen = lay.dead
    for h in lay.hands:
        if seen & h:
            raise ValueError("a card is dealt twice")
        seen |= h
    if seen != t.deck:
        raise ValueError("the layout must deal exactly the deck in play")
    sizes = [h.bit_count() for h in lay.hands]
    want = [t.hand_size] * t.n + ([9, 9] if t.game == "dummy" else [])
    if sizes != want:
        raise ValueError(f"hand sizes must be {want}, not {sizes}")


class GameState:
    """A table's game.  Read the attributes; change it only through ``apply``."""

    __slots__ = (
        "rules",
        "t",
        "seed",
        "layouts",
        "hand_no",
        "dealer",
        "scores",
        "history",
        "phase",
        "pass_offset",
        "passes",
        "hands",
        "dead",
        "trick_cards",
        "trick_holders",
        "order",
        "led_suit",
        "lead_face",
        "first_lead_mask",
        "joker",
        "broken",
        "trick_no",
        "tricks",
        "prev_tricks",
        "taken",
        "won",
        "moon_shooter",
        "pending",
        "winners",
    )
    rules: Rules
    t: Tables
    seed: int
    layouts: tuple[Layout, ...]
    hand_no: int
    dealer: int
    scores: tuple[int, ...]
    history: tuple[HandResult, ...]
    phase: str
    pass_offset: int
    passes: tuple[int, ...]
    hands: tuple[int, ...]
    dead: int
    trick_cards: tuple[int, ...]
    trick_holders: tuple[int, ...]
    order: tuple[int, ...]
    led_suit: int
    lead_face: int
    first_lead_mask: int
    joker: int
    broken: bool
    trick_no: int
    tricks: tuple[Trick, ...]
    prev_tricks: tuple[Trick, ...]
    taken: tuple[int, ...]
    won: tuple[int, ...]
    moon_shooter: int
    pending: tuple[int, ...]
    winners: tuple[int, ...]

    def _clone(self) -> GameState:
        # spelled out: about 8 times faster than a loop over __slots__ (the move path's cost)
        s = object.__new__(GameState)
        s.rules = self.rules
        s.t = self.t
        s.seed = self.seed
        s.layouts = self.layouts
        s.hand_no = self.hand_no
        s.dealer = self.dealer
        s.scores = self.scores
        s.history = self.history
        s.phase = self.phase
        s.pass_offset = self.pass_offset
        s.passes = self.passes
        s.hands = self.hands
        s.dead = self.dead
        s.trick_cards = self.trick_cards
        s.trick_holders = self.trick_holders
        s.order = self.order
        s.led_suit = self.led_suit
        s.lead_face = self.lead_face
        s.first_lead_mask = self.first_lead_mask
        s.joker = self.joker
        s.broken = self.broken
        s.trick_no = self.trick_no
        s.tricks = self.tricks
        s.prev_tricks = self.prev_tricks
        s.taken = self.taken
        s.won = self.won
        s.moon_shooter = self.moon_shooter
        s.pending = self.pending
        s.winners = self.winners
        return s

    # --- read-only helpers -------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.t.n

    @property
    def pass_count(self) -> int:
        return self.t.pass_count

    @property
    def pass_direction(self) -> str:
        return direction_name(self.pass_offset, self.t.n)

    @property
    def turn(self) -> int:
        """The holder to play next (play phase), else -1."""
        if self.phase != "play":
            return -1
        return self.order[len(self.trick_cards)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in GameState.__slots__ if n != "t")

    def __hash__(self) -> int:
        return hash((self.seed, self.hand_no, self.hands, self.trick_cards, self.scores))

    def __repr__(self) -> str:
        return (
            f"<GameState {self.rules.preset} hand {self.hand_no} {self.phase}"
            f" trick {self.trick_no} scores {list(self.scores)}>"
        )

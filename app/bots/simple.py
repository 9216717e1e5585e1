"""A valid-move computer player: it sees only its seat's view and the moves it may make.

Stand-in until the real bots land: passes its highest passable cards, plays the lowest legal
card it may (a tiny bit of sense, so games end in a reasonable number of hands).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app import engine


@dataclass(frozen=True, slots=True)
class SeatChoice:
    """What one seat may do now, as the engine reports it to that seat."""

    phase: str
    legal: Sequence[engine.Move]  # every legal move (empty while passing: see passable)
    passable: Sequence[int] = ()  # cards the seat may pass
    pass_count: int = 0


class SimpleBot:
    """Picks a legal move from its own seat's view only."""

    level = "simple"

    def choose(
        self, view: Mapping[str, Any], choice: SeatChoice, rng: random.Random
    ) -> engine.Move:
        if choice.phase == "pass" and choice.pass_count:
            cards = sorted(choice.passable, key=_rank_key, reverse=True)
            # Highest cards, with a little randomness among near-equals.
            pool = cards[: choice.pass_count + 2]
            return engine.PassCards(frozenset(rng.sample(pool, choice.pass_count)))
        if not choice.legal:
            raise ValueError("no legal move")
        plays = [m for m in choice.legal if isinstance(m, engine.PlayCard)]
        if plays:
            low = min(_rank_key(m.card) for m in plays)
            return rng.choice([m for m in plays if _rank_key(m.card) == low])
        return rng.choice(list(choice.legal))


def _rank_key(card: int) -> int:
    """Rank order (2 low .. A high) from the card's text; jokers lowest."""
    text = engine.card_str(card)
    return "23456789TJQKA".find(text[0])

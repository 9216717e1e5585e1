"""Moves: small frozen values that parse from and print to JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .cards import DARK_FACE, card_str, parse_card
from .errors import IllegalMove


@dataclass(frozen=True, slots=True)
class PassCards:
    cards: frozenset[int]


@dataclass(frozen=True, slots=True)
class PlayCard:
    card: int
    # "light" or "dark": the face that leads, only when leading in Double Hearts
    face: str | None = None


@dataclass(frozen=True, slots=True)
class ChooseDirection:
    direction: str


@dataclass(frozen=True, slots=True)
class ChooseMoon:
    # "self": the shooter subtracts the moon total; "others": every other player adds it
    choice: str


@dataclass(frozen=True, slots=True)
class Claim:
    """The player claims every remaining trick of the hand (checked by ``claim.claim_wins_all``)."""


CLAIM = Claim()

Move = PassCards | PlayCard | ChooseDirection | ChooseMoon | Claim

# one PlayCard per card and face, so listing legal moves allocates nothing
PLAY: tuple[PlayCard, ...] = tuple(PlayCard(c) for c in range(55))
PLAY_FACE: tuple[tuple[PlayCard, PlayCard], ...] = tuple(
    (PlayCard(c, "light"), PlayCard(c, "dark")) for c in range(52)
)


def _bad(message: str) -> IllegalMove:
    return IllegalMove("bad_move", message)


def _card(text: object) -> int:
    if not isinstance(text, str):
        raise _bad(f"a card is written like 'QS', not {text!r}")
    try:
        if "/" in text:  # a Double Hearts card written Light/Dark, like "QS/3H"
            light, dark = text.split("/", 1)
            c = parse_card(light)
            if c >= 52 or DARK_FACE[c] != parse_card(dark):
                raise ValueError(f"no card has the faces {text!r}")
            return c
        return parse_card(text)
    except ValueError as e:
        raise _bad(str(e)) from None


def move_from_json(obj: object) -> Move:
    """Parse a move sent by a client; raises ``IllegalMove('bad_move')`` with the reason."""
    if not isinstance(obj, Mapping):
        raise _bad("a move is an object with a 'type'")
    kind = obj.get("type")
    if kind == "pass":
        cards = obj.get("cards")
        if not isinstance(cards, list) or len(cards) > 13:
            raise _bad("a pass needs 'cards', a list of cards")
        parsed = [_card(c) for c in cards]
        if len(set(parsed)) != len(parsed):
            raise IllegalMove("duplicate_card", "the same card is named twice")
        return PassCards(frozenset(parsed))
    if kind == "play":
        c = _card(obj.get("card"))
        face = obj.get("face")
        if face is not None and face not in ("light", "dark"):
            raise _bad("face is 'light' or 'dark'")
        return PLAY[c] if face is None else PlayCard(c, face)
    if kind == "direction":
        d = obj.get("direction")
        if d not in ("left", "right", "across", "hold"):
            raise _bad("direction is one of left, right, across, hold")
        return ChooseDirection(d)
    if kind == "moon":
        ch = obj.get("choice")
        if ch not in ("self", "others"):
            raise _bad("choice is 'self' (you subtract) or 'others' (they add)")
        return ChooseMoon(ch)
    if kind == "claim":
        return CLAIM
    raise _bad(f"unknown move type {kind!r}; use pass, play, direction, moon or claim")


def move_to_json(m: Move) -> dict[str, object]:
    if isinstance(m, PassCards):
        return {"type": "pass", "cards": [card_str(c) for c in sorted(m.cards)]}
    if isinstance(m, PlayCard):
        out: dict[str, object] = {"type": "play", "card": card_str(m.card)}
        if m.face is not None:
            out["face"] = m.face
        return out
    if isinstance(m, ChooseDirection):
        return {"type": "direction", "direction": m.direction}
    if isinstance(m, Claim):
        return {"type": "claim"}
    return {"type": "moon", "choice": m.choice}


def move_str(m: Move) -> str:
    """Short text: ``play QS``, ``play KC dark``, ``pass 2C 3C 4C``."""
    if isinstance(m, PassCards):
        return "pass " + " ".join(card_str(c) for c in sorted(m.cards))
    if isinstance(m, PlayCard):
        return f"play {card_str(m.card)}" + (f" {m.face}" if m.face else "")
    if isinstance(m, ChooseDirection):
        return f"direction {m.direction}"
    if isinstance(m, Claim):
        return "claim"
    return f"moon {m.choice}"

"""Why the rules refuse a card: the refusal with its stable code, a sentence for people and
the named values its words need in any language (the card that must lead, the suit led), so the
page never reads them out of the sentence. Split from ``game`` (which calls it when a play is
not legal) to keep each module one part of the rules."""

from __future__ import annotations

from .cards import DARK_FACE, SUITS, card_str, lowest
from .errors import IllegalMove
from .state import GameState


def why_illegal(s: GameState, hand: int, c: int) -> IllegalMove:
    """The reason a card in hand is not playable, found by walking the rules in order."""
    t = s.t
    b = 1 << c
    name = card_str(c)
    if not s.trick_cards:
        if (
            s.trick_no == 0
            and s.first_lead_mask
            and hand & s.first_lead_mask
            and not b & s.first_lead_mask  # a card of the right kind is refused for another reason
        ):
            if s.first_lead_mask == t.clubs:
                return IllegalMove("must_lead_club", "the first trick must be led with a club")
            want = card_str(lowest(s.first_lead_mask))
            if t.game == "double":
                dark = card_str(DARK_FACE[lowest(s.first_lead_mask)])
                return IllegalMove(
                    "must_lead_card",
                    f"the first trick is led with the card whose Dark face is {dark}, Dark face up",
                    {"reason": "dark", "card": dark},
                )
            return IllegalMove(
                "must_lead_card", f"the first trick must be led with {want}", {"card": want}
            )
        if b & t.jokers:
            return IllegalMove(
                "joker_lead", "a joker may be led only when you hold nothing else you may lead"
            )
        if not s.broken and b & t.lead_bar:
            if t.game == "dummy":
                return IllegalMove(
                    "hearts_not_broken",
                    "scoring cards may not be led until one has been played",
                    {"reason": "dummy"},
                )
            if t.game == "double":
                return IllegalMove(
                    "hearts_not_broken",
                    f"hearts are not broken: you may not lead {name}",
                    {"reason": "double", "card": name},
                )
            return IllegalMove(
                "hearts_not_broken",
                f"hearts are not broken: you may not lead {name}",
                {"card": name},
            )
        return IllegalMove(
            "no_points_on_first_trick",
            f"no points on the first trick: {name} scores",
            {"card": name},
        )
    if s.led_suit >= 0 and hand & t.follow[s.led_suit] and not b & t.follow[s.led_suit]:
        return IllegalMove(
            "must_follow_suit",
            f"you must follow suit: {name} does not",
            {"card": name, "suit": SUITS[s.led_suit]},
        )
    if s.trick_no == 0 and t.first_trick_bar and b & t.pos_mask:
        return IllegalMove(
            "no_points_on_first_trick",
            f"no points on the first trick: {name} scores",
            {"card": name},
        )
    return IllegalMove(
        "must_discard_penalty", "you cannot follow suit, so you must discard a penalty card"
    )

"""What the levels share: the search budget (rollouts per millisecond, the caps), a decision
written as a move's JSON, the candidate decisions of a position, and the Standard player's
card (the baseline every search starts from).

``players`` (the four levels) and ``expert`` (the Expert's search) both build on this module,
so that neither needs the other's internals.
"""

from __future__ import annotations

import time

from app.engine import Tables, card_str

from .knowledge import DARK, LIGHT, Knowledge
from .standard import CARD_BITS, FACE_SHIFT, standard_play, standard_tables

FACE_NAMES = ("light", "dark")

# rollouts per millisecond of budget: measured about 11-12 per ms on one core of the reference
# machine (docs/bots.md); a fixed rate keeps decisions machine-independent and replayable
ROLLOUTS_PER_MS = 10
# Expert's rollouts (its policy, deal weighting) cost more than the Standard rollouts this rate
# was measured on: 400 units take about 500 ms of one core (docs/bots.md, "Decision time")
DEFAULT_BUDGET_MS = {"easy": 0, "standard": 0, "pro": 40, "expert": 400}
HARD_CAP_MS = {"easy": 50, "standard": 50, "pro": 250, "expert": 1000}
PASS_BUDGET_MS = 1500
PASS_HARD_CAP_MS = 2000


class Budget:
    """A number of rollouts and a hard wall-clock cap."""

    def __init__(self, rollouts: int, cap_ms: float) -> None:
        self.rollouts = rollouts
        self.deadline = time.perf_counter() + cap_ms / 1000.0

    def expired(self) -> bool:
        return time.perf_counter() > self.deadline


# --- moves as JSON ------------------------------------------------------------------------


def play_json(t: Tables, d: int, lead: bool) -> dict[str, object]:
    c = d & CARD_BITS
    out: dict[str, object] = {"type": "play", "card": card_str(c)}
    if t.game == "double" and lead:
        out["face"] = FACE_NAMES[d >> FACE_SHIFT]
    return out


def pass_json(mask: int) -> dict[str, object]:
    cards = []
    m = mask
    while m:
        low = m & -m
        cards.append(card_str(low.bit_length() - 1))
        m ^= low
    return {"type": "pass", "cards": cards}


def candidates(k: Knowledge) -> list[int]:
    """Every legal decision: a card, and on a Double Hearts lead each face it may lead with."""
    out = []
    m = k.legal_cards
    lead = not k.cur_cards
    faces: tuple[int, ...] = (LIGHT,)
    if k.game == "double" and lead:
        faces = tuple(DARK if f == "dark" else LIGHT for f in k.legal_faces) or (LIGHT,)
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        for f in faces:
            out.append(c | (f << FACE_SHIFT))
    return out


def trick_length(k: Knowledge) -> int:
    return len(k.order)


def standard_decision(k: Knowledge) -> int:
    st = standard_tables(k.t)
    d = standard_play(
        st,
        k.legal_cards,
        k.cur_cards,
        k.led_suit,
        k.lead_face,
        trick_length(k),
        k.game == "double" and k.trick_no == 0 and "light" not in k.legal_faces,
    )
    if k.game == "double" and not k.cur_cards and k.legal_faces:
        face = d >> FACE_SHIFT
        if FACE_NAMES[face] not in k.legal_faces:
            d = (d & CARD_BITS) | ((DARK if k.legal_faces[0] == "dark" else LIGHT) << FACE_SHIFT)
    return d

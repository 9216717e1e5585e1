"""The four levels: Easy, Standard, Pro, Expert.  Each decides from a seat's view only.

A decision is a function of ``(view, rules, rng, budget)`` and nothing else: the amount of search is
a number of rollouts fixed by the budget (not a clock), so a decision replays exactly under its
seed.  The clock is only a safety net: a search that runs past its hard cap stops early.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence

from app.engine import Rules, Tables, card_str

from .fast import rollout
from .knowledge import DARK, LIGHT, Knowledge, View, mask_of_texts
from .standard import (
    CARD_BITS,
    FACE_SHIFT,
    standard_pass,
    standard_play,
    standard_tables,
)

LEVELS = ("easy", "standard", "pro", "expert")
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


def _passable(view: View) -> int:
    legal = view.get("legal")
    if not isinstance(legal, Mapping) or legal.get("type") != "pass":
        return 0
    return mask_of_texts(legal["cards"])


# --- the non-play decisions ---------------------------------------------------------------


def choose_direction(view: View, rng: random.Random, level: str) -> dict[str, object]:
    legal = view["legal"]
    dirs: list[str] = list(legal["directions"])
    if level == "easy":
        return {"type": "direction", "direction": rng.choice(dirs)}
    # passing to the left is the usual choice; the direction matters little to these players
    return {"type": "direction", "direction": dirs[0]}


def choose_moon(view: View, rules: Rules, rng: random.Random, level: str) -> dict[str, object]:
    if level == "easy":
        return {"type": "moon", "choice": rng.choice(["self", "others"])}
    # both choices move the shooter 26 points against everyone else; "others" unless that ends
    # the game with someone else lowest
    seat = view["seat"]
    scores: list[int] = list(view["scores"])
    others = [s + (0 if i == seat else 26) for i, s in enumerate(scores)]
    target = rules.target_score if rules.end == "score" else 10**9
    if max(others) >= target and min(others) < others[seat]:
        return {"type": "moon", "choice": "self"}
    return {"type": "moon", "choice": "others"}


# --- Easy -------------------------------------------------------------------------------


def easy_play(k: Knowledge, rng: random.Random) -> int:
    cands = candidates(k)
    return cands[int(rng.random() * len(cands))]


def easy_pass(view: View, rng: random.Random) -> int:
    m = _passable(view)
    cards = [c for c in range(55) if m >> c & 1]
    out = 0
    for c in rng.sample(cards, int(view["pass_count"])):
        out |= 1 << c
    return out


# --- Standard ---------------------------------------------------------------------------


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


# --- Pro and Expert: flat Monte Carlo over sampled deals --------------------------------


def _score_of(points: Sequence[int], seat: int) -> float:
    return float(points[seat])


def monte_carlo(
    k: Knowledge,
    rng: random.Random,
    budget: Budget,
    *,
    min_samples: int,
    max_samples: int,
    objective: Callable[[Sequence[int], int], float] = _score_of,
) -> int:
    """The decision with the lowest average score over sampled deals, each candidate played out
    on the same deals (common random numbers) by the Standard policy."""
    cands = candidates(k)
    std = standard_decision(k)
    if len(cands) == 1:
        return cands[0]
    samples = max(min_samples, min(max_samples, budget.rollouts // len(cands)))
    totals = [0.0] * len(cands)
    seat = k.seat
    for _ in range(samples):
        deal = k.sample(rng)
        base = k.sim(deal)
        for j, d in enumerate(cands):
            sm = base.copy()
            pts = sm.score() if sm.play(d & CARD_BITS, d >> FACE_SHIFT) else rollout(sm)
            totals[j] += objective(pts, seat)
        if budget.expired():
            break
    best = min(totals)
    # ties (and near-ties from rounding) go to the Standard choice, then the first candidate
    tied = [d for d, v in zip(cands, totals, strict=True) if v <= best + 1e-9]
    if std in tied:
        return std
    return tied[0]


def pro_play(
    k: Knowledge, rng: random.Random, budget_ms: int, hard_cap_ms: float | None = None
) -> int:
    cap = HARD_CAP_MS["pro"] if hard_cap_ms is None else hard_cap_ms
    budget = Budget(budget_ms * ROLLOUTS_PER_MS, cap)
    return monte_carlo(k, rng, budget, min_samples=8, max_samples=80)


def expert_play(
    k: Knowledge, rng: random.Random, budget_ms: int, hard_cap_ms: float | None = None
) -> int:
    from .expert import expert_decision

    return expert_decision(k, rng, budget_ms, hard_cap_ms)


def expert_pass(
    view: View,
    rules: Rules,
    rng: random.Random,
    hard_cap_ms: float | None = None,
    budget_ms: int | None = None,
) -> int:
    from .expert import simulated_pass

    return simulated_pass(view, rules, rng, hard_cap_ms, budget_ms)


def std_pass(view: View, t: Tables) -> int:
    return standard_pass(t, _passable(view), int(view["pass_count"]))


__all__ = [
    "DEFAULT_BUDGET_MS",
    "HARD_CAP_MS",
    "LEVELS",
    "Budget",
    "candidates",
    "choose_direction",
    "choose_moon",
    "easy_pass",
    "easy_play",
    "monte_carlo",
    "pass_json",
    "play_json",
    "pro_play",
    "standard_decision",
    "std_pass",
]

"""The four levels: Easy, Standard, Pro, Expert.  Each decides from a seat's view only.

A decision is a function of ``(view, rules, rng, budget)`` and nothing else: the amount of search is
a number of rollouts fixed by the budget (not a clock), so a decision replays exactly under its
seed.  The clock is only a safety net: a search that runs past its hard cap stops early.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from app.engine import Rules, Tables

from .basics import (
    DEFAULT_BUDGET_MS,
    HARD_CAP_MS,
    ROLLOUTS_PER_MS,
    Budget,
    candidates,
    pass_json,
    play_json,
    standard_decision,
)
from .expert import expert_decision, simulated_pass
from .fast import rollout
from .knowledge import Knowledge, View, mask_of_texts
from .standard import (
    CARD_BITS,
    FACE_SHIFT,
    standard_pass,
)

LEVELS = ("easy", "standard", "pro", "expert")


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
    return expert_decision(k, rng, budget_ms, hard_cap_ms)


# The Expert passes by sampled deals (app.bots.expert); the name keeps the level's players together.
expert_pass = simulated_pass


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

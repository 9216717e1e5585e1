"""Expert: Pro's sampling search, with more of it and a pass chosen by simulation.

- Play: flat Monte Carlo as Pro (the same inference: voids shown, barred leads, the cards the
  seat passed), with about ten times the rollouts, so the choice is far less noisy.
- Passing: every pass of three among a shortlist (the highest valued cards and the shortest side
  suit) is tried on sampled deals of the other hands; the other players pass by the Standard rule,
  then the whole hand is played out; the pass with the lowest average score wins.
"""

from __future__ import annotations

import dataclasses
import random
from itertools import combinations

from app.engine import Layout, Rules, new_game, tables_for
from app.engine.playout import Sim

from .knowledge import Knowledge, View, mask_of_texts
from .players import (
    PASS_HARD_CAP_MS,
    ROLLOUTS_PER_MS,
    Budget,
    monte_carlo,
)
from .standard import rollout, standard_pass, standard_tables

HARD_CAP_MS = 1000
# choose the pass by simulation (False: the Standard pass; the bench compares both)
SIMULATED_PASS = True
# rollouts for a simulated pass (each builds a fresh position): about 0.5 s
PASS_ROLLOUTS = 3000


def expert_decision(
    k: Knowledge, rng: random.Random, budget_ms: int, hard_cap_ms: float | None = None
) -> int:
    budget = Budget(
        budget_ms * ROLLOUTS_PER_MS, HARD_CAP_MS if hard_cap_ms is None else hard_cap_ms
    )
    return monte_carlo(k, rng, budget, min_samples=20, max_samples=600)


def _shortlist(t_dump: tuple[int, ...], passable: int, hand: int, count: int) -> list[int]:
    cards = [c for c in range(55) if passable >> c & 1]
    cards.sort(key=lambda c: -t_dump[c])
    short = set(cards[:6])
    # the shortest side suit (not hearts) that passing could empty
    best_suit = -1
    best_len = 99
    for s in range(3):
        n = (hand >> (13 * s) & 0x1FFF).bit_count()
        p = (passable >> (13 * s) & 0x1FFF).bit_count()
        if 0 < n <= count and p == n and n < best_len:
            best_suit, best_len = s, n
    if best_suit >= 0:
        short |= {c for c in cards if c // 13 == best_suit}
    return sorted(short)


def simulated_pass(
    view: View, rules: Rules, rng: random.Random, hard_cap_ms: float | None = None
) -> int:
    t = tables_for(rules)
    seat: int = view["seat"]
    count = int(view["pass_count"])
    hand = mask_of_texts(view["hand"])
    legal = view.get("legal") or {}
    passable = mask_of_texts(legal.get("cards", []))
    st = standard_tables(t)
    shortlist = _shortlist(st.dump, passable, hand, count)
    cands = [sum(1 << c for c in combo) for combo in combinations(shortlist, count)]
    fallback = standard_pass(t, passable, count)
    if not SIMULATED_PASS or len(cands) <= 1 or t.game not in ("classic", "double", "dummy"):
        return fallback
    n = t.n
    off = {"left": 1, "right": n - 1, "across": 2, "other": 1}.get(view["pass_direction"], 0)
    if not off:
        return fallback
    budget = Budget(PASS_ROLLOUTS, PASS_HARD_CAP_MS if hard_cap_ms is None else hard_cap_ms)
    samples = max(10, min(200, budget.rollouts // len(cands)))
    play_rules = dataclasses.replace(rules, passing="none", first_lead="low_club")
    dummy = t.game == "dummy"
    own_half = mask_of_texts(view.get("half_dummy", [])) if dummy else 0
    unseen = t.deck & ~hand & ~own_half
    unseen_cards = [c for c in range(55) if unseen >> c & 1]
    sizes = [t.hand_size] * n + ([9, 9] if dummy else [])
    totals = [0.0] * len(cands)
    for _ in range(samples):
        rng.shuffle(unseen_cards)
        hands = [0] * len(sizes)
        hands[seat] = hand
        i = 0
        for h in range(len(sizes)):
            if h == seat:
                continue
            if dummy and h == seat + 2 and own_half:
                hands[h] = own_half
                continue
            for c in unseen_cards[i : i + sizes[h]]:
                hands[h] |= 1 << c
            i += sizes[h]
        dead = 0
        for c in unseen_cards[i:]:
            dead |= 1 << c
        passes = [0] * n
        for p in range(n):
            if p != seat:
                passes[p] = standard_pass(t, hands[p] & ~t.pass_forbidden, count)
        for j, mine in enumerate(cands):
            passes[seat] = mine
            after = hands[:]
            for p in range(n):
                after[p] = (hands[p] & ~passes[p]) | passes[(p - off) % n]
            s = new_game(play_rules, 0, [Layout(tuple(after), dead)])
            pts = rollout(Sim(s))
            totals[j] += pts[seat]
        if budget.expired():
            break
    best = min(totals)
    tied = [d for d, v in zip(cands, totals, strict=True) if v <= best + 1e-9]
    return fallback if fallback in tied else tied[0]

"""Expert: Pro's sampling search made stronger, and a pass chosen by simulation.

Play (``search``):
- **Plausible deals**: each deal of the unseen cards is drawn from ``PROPOSALS`` samples in
  proportion to how well it explains the other players' earlier plays and the pass this seat
  received (``inference.py``), instead of uniformly; in classic 4-player the samples themselves
  come from the learned beliefs about who holds each card (``beliefs.py``).
- **A stronger model of play**: the hand is played out with Expert's rollout policy for every
  player, where Pro plays everyone as the seed's Standard (``policy.py`` for the classic and
  dummy games: card sense for the QS and high spades, safe leads, moon running and defence;
  ``policy_double.py`` for Double Hearts; in the 28-card game the classic policy with trumps).
- **Common random numbers and pruning**: every candidate is played out on the same deals; after
  each round of deals a candidate clearly worse than the best (paired over the same deals) is
  dropped, so the rest of the work goes to the close choices.
- **Exact last tricks** (``endgame.py``, ``ENDGAME_CARDS``): in the 28-card game each deal is
  solved exactly (alpha-beta, ``Duel``) once no hand holds more than 10 cards.  With two players
  the other hand is known but for the two dead cards, so solving each deal is close to solving
  the real position.  Off in the games round the table: there, the perfect-information play
  (every hand in view) measured no better than the rollouts.
- The work is counted in full-rollout units (a rollout costs in proportion to the cards left,
  drawing and weighing a deal and a solved position their measured share), so a decision is a
  function of the view, the seed and the budget; the wall clock only stops it at the hard cap.

Passing (``simulated_pass``): every pass of three among a shortlist (the highest valued cards
and a short side suit) is tried on sampled deals of the other hands; the others pass by the
Standard rule (as Standard and Pro do), the hand is played out with the same model, and the pass
with the lowest average score wins, with the same pruning.
"""

from __future__ import annotations

import dataclasses
import math
import random
from itertools import combinations

from app.engine import Layout, Rules, Tables, new_game, tables_for
from app.engine.playout import Sim

from .basics import (
    PASS_HARD_CAP_MS,
    ROLLOUTS_PER_MS,
    Budget,
    candidates,
    standard_decision,
)
from .endgame import duel_ok, endgame_ok, solve_candidates
from .fast import double_rollout
from .fast import rollout as fast_rollout
from .inference import Plausibility
from .knowledge import Knowledge, View, mask_of_texts
from .policy import policy_ok, policy_rollout
from .standard import CARD_BITS, FACE_SHIFT, standard_pass, standard_tables

HARD_CAP_MS = 1000
# choose the pass by simulation (False: the Standard pass; the bench compares both)
SIMULATED_PASS = True
# the simulated pass: work (in full rollouts) at the default budget, else this many times the
# play budget's; the shortlist of cards; deals at least
PASS_UNITS = 12000
PASS_FACTOR = 8
PASS_SHORTLIST = 7
PASS_MIN_WORLDS = 16
# how the search models the other players: "policy" (Expert's) or "standard"
OPPONENT_MODEL = "policy"
# the play search: deals at least and at most, proposals per kept deal (inference), pruning
MIN_WORLDS = 16
MAX_WORLDS = 2000
PROPOSALS = 4
# exact play of the last tricks once no hand holds more than this many cards; the cost of one
# searched position, in full rollouts (measured): max-n (``Solver``), alpha-beta (``Duel``, the
# 28-card game: a position there is the start of a trick; ``python -m bench.endgame``)
ENDGAME_CARDS: dict[str, int] = {"twentyeight": 10}
NODE_COST = 0.012
DUEL_NODE_COST = 0.05
# drawing one proposed deal, and weighing one observed play, in full rollouts (measured)
DEAL_COST = 0.15
EVENT_COST = 0.008
# drawing a proposal from the learned beliefs instead (on top of DEAL_COST), and reading the
# view into them once per decision, in full rollouts (measured: about 0.011 ms more a deal and
# 3 ms a decision, at about 8 rollouts a ms)
BELIEFS_DEAL_COST = 0.09
BELIEFS_COST = 24.0
INFERENCE = True
PRUNE_Z = 3.0
PRUNE_MIN_GAP = 0.05


def expert_decision(
    k: Knowledge, rng: random.Random, budget_ms: int, hard_cap_ms: float | None = None
) -> int:
    budget = Budget(
        budget_ms * ROLLOUTS_PER_MS, HARD_CAP_MS if hard_cap_ms is None else hard_cap_ms
    )
    return search(k, rng, budget)


@dataclasses.dataclass(slots=True, eq=False)
class Evaluation:
    """Expert's evaluation of one decision: the candidates and, per candidate, its points on each
    deal it was played out on (every candidate on the same deals, in order, until it was pruned).

    ``alive``: the candidates never pruned (played out on all ``worlds`` deals); ``exact``: every
    deal was solved exactly (``endgame.py``) instead of rolled out; ``preferred``: the candidate
    ties go to (the Standard choice); ``cut``: the wall-clock cap stopped the search."""

    cands: list[int]
    vals: list[list[float]]
    alive: list[int]
    worlds: int
    exact: bool
    preferred: int
    cut: bool = False

    def choice(self) -> int:
        """Expert's choice: the candidate with the lowest mean (ties: ``preferred``)."""
        if len(self.cands) == 1 or not self.worlds:
            return self.cands[0] if len(self.cands) == 1 else self.preferred
        return _best(self.vals, self.alive, self.worlds, self.cands, self.preferred)

    def best_index(self) -> int:
        """The index of :meth:`choice` in ``cands``."""
        return self.cands.index(self.choice())

    def expected(self) -> list[float]:
        """Expected points of each candidate for the seat: the best candidate's mean over every
        deal plus each candidate's mean difference to it over the deals they share (paired, so a
        pruned candidate is compared on its own deals, not on a different set)."""
        if not self.worlds:
            return [0.0] * len(self.cands)
        b = self.best_index()
        vb = self.vals[b]
        base = sum(vb[: self.worlds]) / self.worlds
        out = []
        for j in range(len(self.cands)):
            vj = self.vals[j]
            n = min(len(vj), len(vb))
            if j == b or not n:
                out.append(base)
                continue
            out.append(base + sum(vj[i] - vb[i] for i in range(n)) / n)
        return out


def search(k: Knowledge, rng: random.Random, budget: Budget) -> int:
    """Monte Carlo over plausible deals with the stronger rollout policy and candidate pruning
    (:func:`evaluate_play`); the candidate with the lowest mean."""
    return evaluate_play(k, rng, budget).choice()


def evaluate_play(k: Knowledge, rng: random.Random, budget: Budget) -> Evaluation:
    """Expert's evaluation of every legal play of ``k``'s seat (the search and the game review
    share it).

    Every candidate is played out on the same deals (common random numbers); after each round of
    deals, a candidate whose paired difference to the best is clearly positive (more than
    ``PRUNE_Z`` standard errors) is dropped, so the remaining rollouts go to the close ones."""
    cands = candidates(k)
    std = standard_decision(k)
    if len(cands) == 1:
        return Evaluation(cands, [[]], [0], 0, False, cands[0])
    smart = policy_ok(k.t)
    double = k.t.game == "double"
    model = -1 if OPPONENT_MODEL == "policy" else sum(1 << h for h in k.mine)
    plaus = Plausibility(k) if INFERENCE else None
    seat = k.seat
    nc = len(cands)
    vals: list[list[float]] = [[] for _ in range(nc)]
    alive = list(range(nc))
    # work in full-hand rollout equivalents: a rollout costs in proportion to the cards left,
    # drawing a deal (with its inference) a fixed share of a full rollout
    left = sum(h.bit_count() for h in k.own_hands) + sum(k.capacity.values())
    roll_cost = max(left, 8) / max(1, k.t.n * k.t.hand_size)
    # the last tricks: exact play on each deal
    exact = exact_endgame(k)
    node_cost = DUEL_NODE_COST if duel_ok(k.t) else NODE_COST
    proposals = PROPOSALS if plaus is not None else 1
    events = len(plaus.events) if plaus is not None else 0
    beliefs = plaus is not None and plaus.beliefs is not None
    deal_cost = DEAL_COST + (BELIEFS_DEAL_COST if beliefs else 0.0)
    world_cost = proposals * (deal_cost + EVENT_COST * events)
    spent = BELIEFS_COST if beliefs else 0.0
    worlds = 0
    next_prune = MIN_WORLDS
    while worlds < MAX_WORLDS:
        if spent >= budget.rollouts and worlds >= MIN_WORLDS:
            break
        deal = plaus.draw(rng, proposals) if plaus is not None else k.sample(rng)
        base = k.sim(deal)
        if exact:
            dead = deal[k.t.holders] if len(deal) > k.t.holders else 0
            got, nodes = solve_candidates(base, seat, [cands[j] & CARD_BITS for j in alive], dead)
            for j, v in zip(alive, got, strict=True):
                vals[j].append(v)
            spent += world_cost + nodes * node_cost
        else:
            for j in alive:
                d = cands[j]
                sm = base.copy()
                if sm.play(d & CARD_BITS, d >> FACE_SHIFT):
                    pts = sm.score()
                elif smart:
                    pts = policy_rollout(sm, model)
                elif double:
                    pts = double_rollout(sm, model)
                else:
                    pts = fast_rollout(sm)
                vals[j].append(float(pts[seat]))
            spent += world_cost + len(alive) * roll_cost
        worlds += 1
        if budget.expired():
            break
        alive, next_prune = _pruned(vals, alive, worlds, next_prune)
        if len(alive) == 1:
            break
    return Evaluation(cands, vals, alive, worlds, exact, std, budget.expired())


def exact_endgame(k: Knowledge) -> bool:
    """Whether Expert solves each sampled deal of ``k``'s position exactly (``ENDGAME_CARDS``)."""
    per_hand = max(k.capacity.get(h, 0) for h in range(k.t.n) if h != k.seat)
    per_hand = max(per_hand, k.own_hands[k.seat].bit_count())
    return endgame_ok(k.t) and per_hand <= ENDGAME_CARDS.get(k.t.game, 0)


def _best(
    vals: list[list[float]], alive: list[int], worlds: int, cands: list[int], preferred: int
) -> int:
    """The candidate with the lowest mean over the ``worlds`` deals; ties go to ``preferred``
    (the Standard choice), then to the first."""
    means = {j: sum(vals[j][:worlds]) / worlds for j in alive}
    best = min(means.values())
    tied = [cands[j] for j in alive if means[j] <= best + 1e-9]
    return preferred if preferred in tied else tied[0]


def _pruned(
    vals: list[list[float]], alive: list[int], worlds: int, next_prune: int
) -> tuple[list[int], int]:
    """After a round of deals (two candidates alive at least): the candidates still alive and
    the round to prune at next.  Once ``next_prune`` deals are in, the clearly worse candidates
    go (``_prune``) and the next pruning comes a quarter more deals later (8 at least)."""
    if worlds < next_prune:
        return alive, next_prune
    return _prune(vals, alive, worlds), worlds + max(8, worlds // 4)


def _prune(vals: list[list[float]], alive: list[int], n: int) -> list[int]:
    """The candidates not clearly worse than the best (paired over the same ``n`` deals)."""
    means = {j: sum(vals[j][:n]) / n for j in alive}
    b = min(alive, key=lambda j: means[j])
    vb = vals[b]
    keep = []
    for j in alive:
        if j == b:
            keep.append(j)
            continue
        vj = vals[j]
        diffs = [vj[i] - vb[i] for i in range(n)]
        m = sum(diffs) / n
        var = sum((x - m) ** 2 for x in diffs) / (n - 1)
        se = math.sqrt(var / n)
        if m - PRUNE_Z * se <= 0 or m < PRUNE_MIN_GAP:
            keep.append(j)
    return keep


def _shortlist(t_dump: tuple[int, ...], passable: int, hand: int, count: int) -> list[int]:
    cards = [c for c in range(55) if passable >> c & 1]
    cards.sort(key=lambda c: -t_dump[c])
    short = set(cards[:PASS_SHORTLIST])
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


def _classic_sim(t: Tables, hands: list[int], dealer: int) -> Sim:
    """The play position of a classic hand once the passes are made."""
    s = object.__new__(Sim)
    s.t = t
    s.hands = hands
    s.dead = 0
    s.trick_no = 0
    s.cards = []
    s.holders = []
    s.led_suit = -1
    s.lead_face = 0
    s.broken = False
    s.taken = [0] * t.scorers
    s.won = [0] * t.scorers
    s.joker = -1
    s.played = 0
    r = t.rules
    s.moon_choice = "others" if r.moon == "choice" else r.moon
    if r.first_lead == "left_of_dealer":
        leader = (dealer + 1) % t.n
        s.first_lead_mask = 0
    else:
        low = t.clubs & -t.clubs
        leader = next(i for i, h in enumerate(hands) if h & low)
        s.first_lead_mask = low if r.first_lead == "low_club" else t.clubs
    s.order = t.orders[leader]
    return s


def simulated_pass(
    view: View,
    rules: Rules,
    rng: random.Random,
    hard_cap_ms: float | None = None,
    budget_ms: int | None = None,
) -> int:
    """The pass with the lowest average score over sampled deals (see the module docstring)."""
    units = PASS_UNITS if budget_ms is None else budget_ms * ROLLOUTS_PER_MS * PASS_FACTOR
    cap = PASS_HARD_CAP_MS if hard_cap_ms is None else hard_cap_ms
    ev = evaluate_pass(view, rules, rng, units, cap)
    if isinstance(ev, int):
        return ev
    return ev.choice()


def pass_candidates(view: View, rules: Rules) -> tuple[list[int], int]:
    """Expert's candidate passes (every choice of ``pass_count`` cards among the shortlist) and
    the Standard pass (the fallback, and where ties go)."""
    t = tables_for(rules)
    count = int(view["pass_count"])
    hand = mask_of_texts(view["hand"])
    legal = view.get("legal") or {}
    passable = mask_of_texts(legal.get("cards", []))
    st = standard_tables(t)
    shortlist = _shortlist(st.dump, passable, hand, count)
    cands = [sum(1 << c for c in combo) for combo in combinations(shortlist, count)]
    return cands, standard_pass(t, passable, count)


def evaluate_pass(
    view: View,
    rules: Rules,
    rng: random.Random,
    units: int,
    cap_ms: float,
    extra: tuple[int, ...] = (),
) -> Evaluation | int:
    """Expert's evaluation of its candidate passes (and of the passes in ``extra``, appended
    when not already among them) over sampled deals, in ``units`` of work (full rollouts) at
    most ``cap_ms`` of wall clock; the Standard pass (an int) where the pass is not simulated
    (the 28-card game, a hold hand, fewer than two candidates)."""
    t = tables_for(rules)
    seat: int = view["seat"]
    count = int(view["pass_count"])
    hand = mask_of_texts(view["hand"])
    cands, fallback = pass_candidates(view, rules)
    for e in extra:
        if e not in cands:
            cands.append(e)
    if not SIMULATED_PASS or len(cands) <= 1 or t.game not in ("classic", "double", "dummy"):
        return fallback
    n = t.n
    off = {"left": 1, "right": n - 1, "across": 2, "other": 1}.get(view["pass_direction"], 0)
    if not off:
        return fallback
    budget = Budget(units, cap_ms)
    classic = t.game == "classic"
    play_rules = dataclasses.replace(rules, passing="none", first_lead="low_club")
    smart_roll = policy_ok(t)
    model = (1 << seat) | ((1 << (seat + 2)) if t.game == "dummy" else 0)
    if OPPONENT_MODEL == "policy":
        model = -1
    dealer = int(view.get("dealer", 0) or 0)
    dummy = t.game == "dummy"
    own_half = mask_of_texts(view.get("half_dummy", [])) if dummy else 0
    unseen = t.deck & ~hand & ~own_half
    unseen_cards = [c for c in range(55) if unseen >> c & 1]
    sizes = [t.hand_size] * n + ([9, 9] if dummy else [])
    nc = len(cands)
    vals: list[list[float]] = [[] for _ in range(nc)]
    alive = list(range(nc))
    spent = 0.0
    worlds = 0
    next_prune = PASS_MIN_WORLDS
    while True:
        if worlds >= PASS_MIN_WORLDS and (spent >= budget.rollouts or budget.expired()):
            break
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
        for j in alive:
            passes[seat] = cands[j]
            after = hands[:]
            for p in range(n):
                after[p] = (hands[p] & ~passes[p]) | passes[(p - off) % n]
            if classic:
                sim = _classic_sim(t, after, dealer)
                pts = policy_rollout(sim, model) if smart_roll else fast_rollout(sim)
            else:
                g = new_game(play_rules, 0, [Layout(tuple(after), dead)])
                if smart_roll:
                    pts = policy_rollout(Sim(g), model)
                elif t.game == "double":
                    pts = double_rollout(Sim(g), model)
                else:
                    pts = fast_rollout(Sim(g))
            vals[j].append(float(pts[seat]))
        spent += len(alive) * (1.0 if classic else 3.0)
        worlds += 1
        alive, next_prune = _pruned(vals, alive, worlds, next_prune)
        if len(alive) == 1:
            break
    return Evaluation(cands, vals, alive, worlds, False, fallback, budget.expired())

"""The review of one seat's decisions: each pass and play with a choice, evaluated from the seat's
view by the Expert's own evaluation (``app.bots.expert.evaluate_play`` / ``evaluate_pass``).

See the package docstring for the input and the output shape, docs/bots.md ("Game review") for the
thresholds and the accuracy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app import engine
from app.bots.expert import Evaluation, evaluate_pass, evaluate_play
from app.bots.knowledge import Knowledge
from app.bots.players import Budget, pass_json, play_json
from app.bots.standard import CARD_BITS, FACE_SHIFT

from .calibration import FITTED_UNITS, budget_scale, calibrated, hand_cost

# a decision's loss (expected points above the best move's) from which it is marked
THRESHOLDS: dict[str, float] = {"inaccuracy": 0.5, "mistake": 1.5, "blunder": 4.0}
# a pass decision lists this many of the best candidate passes (and the one made)
PASS_OPTIONS = 5


class ReviewError(ValueError):
    """The record cannot be replayed or reviewed."""


@dataclass(frozen=True)
class ReviewBudget:
    """How much search a review spends.

    ``play_units`` / ``pass_units``: work per decision in the Expert's units (one unit is one
    full-hand rollout; a fifth of what the Expert plays (4,000) and passes (12,000) with: the
    calibration, ``calibration.py``, is fitted at these defaults, ``FITTED_UNITS``); ``seed``:
    the review's random numbers (with the position: :func:`position_rng`); ``cap_ms``:
    wall-clock safety cap of one decision; ``time_cap_s``: of the whole review (None: none);
    past it the remaining decisions get the minimum search (16 deals).  A cap that cuts a
    search makes the review no longer exact to reproduce; the output says so (``"cut": true``)."""

    play_units: int = FITTED_UNITS[0]
    pass_units: int = FITTED_UNITS[1]
    seed: int = 0
    cap_ms: float = 30_000.0
    time_cap_s: float | None = None


@dataclass(frozen=True)
class Decision:
    """One move of the reviewed seat: its index in the game's move list, the hand number, the
    seat's view just before it (``app.engine.view``) and the move made (engine move JSON).

    ``moon``: a play in a hand the seat went on to shoot the moon in, whose trick carried points
    (so the seat took them on the way to the moon); known once the hand is over, as every
    player sees it."""

    index: int
    hand: int
    view: Mapping[str, Any]
    made: Mapping[str, Any]
    moon: bool = False


def mark_of(loss: float) -> str | None:
    """The mark of a decision with this loss: the highest threshold it reaches."""
    mark = None
    for name, limit in THRESHOLDS.items():
        if loss >= limit:
            mark = name
    return mark


def _rules(record: Mapping[str, Any]) -> engine.Rules:
    preset = record.get("preset") or record.get("variant")
    options = record.get("options") or None
    try:
        return engine.make_rules(str(preset), options)
    except (engine.EngineError, ValueError) as error:
        raise ReviewError(f"cannot set up the game: {error}") from error


def decisions_of(
    state: engine.GameState, moves: Sequence[Sequence[Any]], seat: int
) -> tuple[list[Decision], int]:
    """Replay ``moves`` from ``state``; the seat's passes and plays with its view before each,
    and the number of hands the game went through (the last one possibly unfinished)."""
    out: list[Decision] = []
    tricks: list[int | None] = []  # per decision: the trick number of a play
    for number, entry in enumerate(moves):
        who, move_json = int(entry[0]), entry[1]
        try:
            move = engine.move_from_json(move_json)
            if who == seat and isinstance(move, (engine.PassCards, engine.PlayCard)):
                view = engine.view(state, seat)
                out.append(Decision(number, state.hand_no, view, engine.move_to_json(move)))
                tricks.append(state.trick_no if isinstance(move, engine.PlayCard) else None)
            closed = len(state.history)
            state = engine.apply(state, who, move)
            if len(state.history) > closed:
                _mark_moon(state, seat, out, tricks)
        except (engine.EngineError, ValueError, TypeError, KeyError) as error:
            raise ReviewError(f"move {number} ({move_json!r} by seat {who}): {error}") from error
    hands = len(state.history) + (0 if state.phase == "over" else 1)
    return out, hands


def _mark_moon(
    state: engine.GameState, seat: int, out: list[Decision], tricks: list[int | None]
) -> None:
    """After a hand closed: if the seat shot the moon in it, flag its plays into tricks that
    carried points (``Decision.moon``)."""
    result = state.history[-1]
    t = state.t
    if result.moon < 0 or result.moon != t.scorer_of[seat]:
        return
    played = state.prev_tricks
    for i, dec in enumerate(out):
        number = tricks[i]
        if dec.hand != result.hand_no or number is None or number >= len(played):
            continue
        if any(t.pos_value[c] > 0 for c in played[number].cards):
            out[i] = dataclasses.replace(dec, moon=True)


def review_seat(
    record: Mapping[str, Any],
    seat: int,
    *,
    budget: ReviewBudget,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """The review of ``seat``'s decisions in the game ``record`` (see the package docstring)."""
    rules = _rules(record)
    seed = record.get("seed")
    if seed is None:
        raise ReviewError("the game has no seed stored")
    try:
        state = engine.new_game(rules, int(seed))
    except (engine.EngineError, ValueError) as error:
        raise ReviewError(f"cannot set up the game: {error}") from error
    if not 0 <= seat < state.players:
        raise ReviewError(f"no seat {seat} in a game of {state.players}")
    decisions, hands = decisions_of(state, list(record.get("moves") or []), seat)
    return review_views(rules, seat, decisions, hands, budget=budget, progress=progress)


def _play_options(k: Knowledge, ev: Evaluation) -> list[tuple[dict[str, object], float]]:
    lead = not k.cur_cards
    exp = ev.expected()
    return [(play_json(k.t, d, lead), e) for d, e in zip(ev.cands, exp, strict=True)]


def _made_play(k: Knowledge, ev: Evaluation, made: Mapping[str, Any]) -> int:
    move = engine.move_from_json(made)
    assert isinstance(move, engine.PlayCard)
    lead = not k.cur_cards
    for j, d in enumerate(ev.cands):
        if d & CARD_BITS != move.card:
            continue
        if k.game == "double" and lead:
            face = "dark" if d >> FACE_SHIFT else "light"
            if (move.face or "light") != face:
                continue
        return j
    raise ReviewError(f"the move {dict(made)!r} is not among the legal plays")


def review_views(
    rules: engine.Rules,
    seat: int,
    decisions: Sequence[Decision],
    hands: int,
    *,
    budget: ReviewBudget,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """The review from the seat's views alone (``decisions``: see :func:`decisions_of`)."""
    started = time.perf_counter()
    per_hand: list[list[dict[str, Any]]] = [[] for _ in range(max(hands, 1))]
    cut = False
    total = len(decisions)
    scale = budget_scale(rules.preset)
    if progress is not None:
        progress(0.0)
    for done, dec in enumerate(decisions, 1):
        over = budget.time_cap_s is not None and time.perf_counter() - started > budget.time_cap_s
        cut = cut or over
        rng = position_rng(budget.seed, dec.view)
        pass_ = dec.made.get("type") == "pass"
        units = 0 if over else scale * (budget.pass_units if pass_ else budget.play_units)
        raw = evaluate_decision(rules, dec, rng, units, budget.cap_ms)
        if raw is not None:
            cut = cut or raw.cut
            while dec.hand >= len(per_hand):
                per_hand.append([])
            per_hand[dec.hand].append(_entry(dec, rules.preset, raw))
        if progress is not None and done < total:
            progress(done / total)
    out_hands = []
    all_losses: list[float] = []
    cost = hand_cost(rules)
    for number, entries in enumerate(per_hand):
        capped = cap_hand(entries, cost)
        losses = [e["loss"] for e in entries]
        all_losses.extend(losses)
        out_hands.append(
            {
                "hand": number,
                "loss": round(sum(losses), 2),
                "accuracy": _accuracy(losses),
                "capped": capped,
                "decisions": entries,
            }
        )
    marks = {name: 0 for name in THRESHOLDS}
    for entries in per_hand:
        for e in entries:
            if e["mark"]:
                marks[e["mark"]] += 1
    if progress is not None:
        progress(1.0)
    return {
        "seat": seat,
        "variant": rules.preset,
        "players": rules.players,
        "thresholds": dict(THRESHOLDS),
        "budget": {
            "play_units": budget.play_units,
            "pass_units": budget.pass_units,
            "seed": budget.seed,
        },
        "loss": round(sum(all_losses), 2),
        "accuracy": _accuracy(all_losses),
        "decisions": len(all_losses),
        "marks": marks,
        "cut": cut,
        "hands": out_hands,
    }


def _accuracy(losses: Sequence[float]) -> float | None:
    """100 times the share of the decisions within the inaccuracy threshold of the best move."""
    if not losses:
        return None
    good = sum(1 for x in losses if x < THRESHOLDS["inaccuracy"])
    return round(100.0 * good / len(losses), 1)


def _entry(dec: Decision, preset: str, raw: Raw) -> dict[str, Any]:
    """A decision's review entry: every option's expected points are the best move's plus its
    calibrated loss (:func:`calibrated`), so the loss shown is ``expected_made - expected_best``;
    a play on the way to the seat's own moon (``Decision.moon``) loses nothing."""
    options = raw.options
    best_e = options[raw.best][1]

    def shown(j: int) -> float:
        if j == raw.best or (j == raw.made and dec.moon):
            return best_e
        return best_e + calibrated(preset, options[j][1] - best_e)

    made_e = shown(raw.made)
    loss = round(made_e - best_e, 2)
    return {
        "index": dec.index,
        "kind": raw.kind,
        "trick": raw.trick,
        "made": dict(dec.made),
        "best": options[raw.best][0],
        "expected_made": round(made_e, 2),
        "expected_best": round(best_e, 2),
        "loss": loss,
        "mark": mark_of(loss),
        "exact": raw.exact,
        "deals": raw.deals,
        "moon": dec.moon,
        "options": [{"move": options[j][0], "expected": round(shown(j), 2)} for j in raw.listed],
    }


def cap_hand(entries: list[dict[str, Any]], cost: float) -> bool:
    """Scale a hand's losses down (in place) so that they sum to at most ``cost``, the most the
    hand could cost the seat (:func:`hand_cost`); marks and the made move's expected points
    follow.  Whether it had to."""
    total = sum(e["loss"] for e in entries)
    if total <= cost:
        return False
    scale = cost / total
    for e in entries:
        if not e["loss"]:
            continue
        loss = math.floor(e["loss"] * scale * 100) / 100
        made = round(e["expected_best"] + loss, 2)
        for o in e["options"]:
            if o["move"] == e["made"]:
                o["expected"] = made
        e.update(loss=loss, mark=mark_of(loss), expected_made=made)
    return True


@dataclass(frozen=True)
class Raw:
    """The evaluation of one decision before calibration: the options (move JSON, expected
    points by the evaluation), the made and best option, the options to list (best first) and
    how it was evaluated."""

    kind: str
    trick: int | None
    options: list[tuple[dict[str, object], float]]
    made: int
    best: int
    listed: list[int]
    exact: bool
    deals: int
    cut: bool

    @property
    def loss(self) -> float:
        """The raw loss: the made move's expected points above the best move's (>= 0)."""
        if self.made == self.best:
            return 0.0
        return max(0.0, self.options[self.made][1] - self.options[self.best][1])


# What engine.view adds for the page's score sheet (``sheet=True``): no evaluation reads it.
_SHEET_KEYS = frozenset({"history", "previous_tricks"})


def position_rng(seed: int, view: Mapping[str, Any]) -> random.Random:
    """The random numbers of one evaluation: the budget's seed and the position as the seat
    sees it (its view less the score sheet), never the game's seed. So one position gets one
    evaluation wherever it is asked: a hint at the table (app.review.hint) and the review of
    that move afterwards agree, and a player who followed a hint is not told it was a mistake
    (unless a wall-clock cap cut one of the two short)."""
    position = {k: v for k, v in view.items() if k not in _SHEET_KEYS}
    text = json.dumps(position, sort_keys=True, separators=(",", ":"), default=list)
    return random.Random(f"eval:{seed}:{hashlib.sha256(text.encode()).hexdigest()}")


def evaluate_decision(
    rules: engine.Rules, dec: Decision, rng: random.Random, units: int, cap_ms: float
) -> Raw | None:
    """The evaluation of one pass or play from the seat's view; None where there is no choice
    to judge (a single legal play, a pass that is not simulated)."""
    if dec.made.get("type") == "pass":
        return _evaluate_pass(rules, dec, rng, units, cap_ms)
    return _evaluate_play(rules, dec, rng, units, cap_ms)


def _evaluate_play(
    rules: engine.Rules, dec: Decision, rng: random.Random, units: int, cap_ms: float
) -> Raw | None:
    k = Knowledge(dec.view, rules)
    ev = evaluate_play(k, rng, Budget(units, cap_ms))
    if len(ev.cands) < 2:
        return None  # no choice
    made_j = _made_play(k, ev, dec.made)
    best_j = ev.best_index()
    options = _play_options(k, ev)
    listed = sorted(range(len(options)), key=lambda j: (options[j][1], j != best_j))
    listed.remove(best_j)
    listed.insert(0, best_j)
    return Raw("play", k.trick_no, options, made_j, best_j, listed, ev.exact, ev.worlds, ev.cut)


def _evaluate_pass(
    rules: engine.Rules, dec: Decision, rng: random.Random, units: int, cap_ms: float
) -> Raw | None:
    move = engine.move_from_json(dec.made)
    assert isinstance(move, engine.PassCards)
    made_mask = sum(1 << c for c in move.cards)
    ev = evaluate_pass(dec.view, rules, rng, units, cap_ms, extra=(made_mask,))
    if isinstance(ev, int):
        return None  # the pass is not simulated here (no direction, a single candidate)
    made_j = ev.cands.index(made_mask)
    best_j = ev.best_index()
    exp = ev.expected()
    options = [(pass_json(d), e) for d, e in zip(ev.cands, exp, strict=True)]
    ranked = sorted(range(len(options)), key=lambda j: (options[j][1], j != best_j))
    ranked.remove(best_j)
    listed = [best_j, *ranked[: PASS_OPTIONS - 1]]
    if made_j not in listed:
        listed.append(made_j)
    return Raw("pass", None, options, made_j, best_j, listed, False, ev.worlds, ev.cut)

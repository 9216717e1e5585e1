"""Is a review's loss what the move cost?  ``python -m bench.review --calibrate``.

Positions: one seeded hand per deal (the tournament's deals and pass directions,
``bench.tournament._setup``), every seat played by Standard but seat 0, which plays Standard's
move or, one move in three (``SLIP``, by a hash of the deal and the move), a random legal one, so
that every band of losses is met often enough; each pass and each play with a choice of seat 0
is evaluated as the review does (``app.review.analysis.evaluate_decision``, from the seat's view,
at the review's budget, with the review's random numbers) for its raw loss.

Measured cost: wherever the evaluation's best move is not the move made, both are played on from
the **true** position (the hidden hands as dealt; after a pass, the others' passes as they were
made): the seat by the Expert's rollout policy (the model the evaluation assumes for it, moon
runs included), every other player by that policy or by Standard, each of the 2^(players-1)
fields once (the same fields for both moves: paired).  A move's measured loss is the mean over
the fields of the seat's points after it minus after the best move.  Moves the evaluation finds
best cost 0 by definition.

``--out FILE`` appends one JSON line per position (preset, deal, index, kind, raw, measured);
``--fit FILE... --check FILE...`` reads two halves of the positions (different deals) and
cross-fits (per preset, one shrinkage ratio: the measured losses' sum over the raw losses'):
each half's positions are shown with the ratio fitted on the other half, never on their own;
the table compares, per band of the loss shown, the mean shown with the mean measured, with 95%
intervals of the measured mean and of the paired difference.  The ratio the review uses
(``KNOTS``) is the fit on both halves.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import random
import statistics
import time
from collections.abc import Iterable, Iterator
from typing import Any

from app import engine
from app.bots import choose_move
from app.bots.fast import double_rollout
from app.bots.policy import policy_rollout
from app.engine.playout import Sim
from app.review import Decision, ReviewBudget
from app.review.analysis import evaluate_decision, position_rng
from app.review.calibration import KNOTS, apply_knots, budget_scale

from .tournament import _setup

SEAT = 0
# the share of seat 0's moves made at random (Easy)
SLIP = 1 / 3
# the bands of the review's marks, and the band below them the fit also uses
BANDS = ((0.5, 1.5), (1.5, 4.0), (4.0, math.inf))
# the fit reads the positions with at least this raw loss
FIT_FLOOR = 0.05


def _hand(preset: str, deal: int) -> tuple[engine.Rules, list[engine.GameState], list[Any]]:
    """The deal's hand played by Standard: the rules, the state before each move, the moves."""
    opts, direction = _setup(preset, deal)
    rules = engine.make_rules(preset, opts)
    s = engine.new_game(rules, 1_000_003 * deal + 17)
    states: list[engine.GameState] = []
    moves: list[Any] = []
    while s.phase != "over":
        if s.phase == "direction":
            assert direction is not None
            move: Any = [s.dealer, {"type": "direction", "direction": direction}]
        else:
            who = engine.seats_to_act(s)[0]
            slip = who == SEAT and random.Random(f"slip:{deal}:{len(moves)}").random() < SLIP
            level = "easy" if slip else "standard"
            move = [who, choose_move(level, engine.view(s, who), len(moves), options=opts)]
        states.append(s)
        moves.append(move)
        s = engine.apply(s, move[0], engine.move_from_json(move[1]))
    return rules, states, moves


def _fields(t: engine.Tables) -> list[int]:
    """Policy masks of the holders: the seat (and its half dummy) always by the policy, each
    other player by the policy or by Standard."""
    others = [p for p in range(t.n) if p != SEAT]
    mine = 1 << SEAT | ((1 << (SEAT + 2)) if t.game == "dummy" else 0)
    out = []
    for pick in itertools.product((0, 1), repeat=len(others)):
        m = mine
        for p, on in zip(others, pick, strict=True):
            if on:
                m |= 1 << p | ((1 << (p + 2)) if t.game == "dummy" else 0)
        out.append(m)
    return out


def _play_on(
    state: engine.GameState, index: int, move: dict[str, Any], moves: list[Any]
) -> list[float]:
    """The seat's points per field after ``move`` at ``state`` (move ``index`` of the hand)."""
    s = engine.apply(state, SEAT, engine.move_from_json(move))
    later = iter(moves[index + 1 :])
    while s.phase == "pass":  # the others' passes, as they were made
        who, mv = next(m for m in later if m[0] != SEAT and m[1].get("type") == "pass")
        s = engine.apply(s, who, engine.move_from_json(mv))
    if s.phase != "play":  # the move ended the hand
        return [float(s.history[-1].points[SEAT])] * len(_fields(s.t))
    base = Sim(s)
    out = []
    for mask in _fields(s.t):
        sim = base.copy()
        if s.t.game == "double":
            pts = double_rollout(sim, mask)
        else:
            pts = policy_rollout(sim, mask)
        out.append(float(pts[SEAT]))
    return out


def positions(preset: str, deal: int, budget: ReviewBudget) -> Iterator[dict[str, Any]]:
    """The deal's positions of seat 0: raw loss by the review's evaluation, measured loss."""
    rules, states, moves = _hand(preset, deal)
    for index, (who, mv) in enumerate(moves):
        if who != SEAT or mv.get("type") not in ("pass", "play"):
            continue
        state = states[index]
        dec = Decision(index, state.hand_no, engine.view(state, SEAT), mv)
        pass_ = mv["type"] == "pass"
        units = budget_scale(preset) * (budget.pass_units if pass_ else budget.play_units)
        c0 = time.process_time()
        raw = evaluate_decision(
            rules, dec, position_rng(budget.seed, dec.view), units, budget.cap_ms
        )
        cpu = time.process_time() - c0
        if raw is None:
            continue
        measured = 0.0
        if raw.made != raw.best:
            made = _play_on(state, index, mv, moves)
            best = _play_on(state, index, dict(raw.options[raw.best][0]), moves)
            measured = statistics.fmean(a - b for a, b in zip(made, best, strict=True))
        yield {
            "preset": preset,
            "deal": deal,
            "index": index,
            "kind": raw.kind,
            "raw": round(raw.loss, 4),
            "measured": round(measured, 4),
            "cpu": round(cpu, 4),
        }


def run(preset: str, first: int, deals: int, budget: ReviewBudget, out: str | None) -> None:
    """Evaluate and measure every position of the deals; one JSON line each (to ``out`` too)."""
    sink = open(out, "a") if out else None  # noqa: SIM115 - appended line by line
    try:
        for deal in range(first, first + deals):
            for row in positions(preset, deal, budget):
                line = json.dumps(row)
                print(line, flush=True)
                if sink is not None:
                    sink.write(line + "\n")
                    sink.flush()
    finally:
        if sink is not None:
            sink.close()


def read_rows(names: Iterable[str]) -> list[dict[str, Any]]:
    """The position lines of these files (``.gz``: gzipped)."""
    rows = []
    for name in names:
        with gzip.open(name, "rt") if name.endswith(".gz") else open(name) as f:
            rows += [json.loads(x) for x in f if x.startswith('{"preset"')]
    return rows


def fit(rows: list[dict[str, Any]]) -> tuple[tuple[float, float], ...]:
    """The preset's shrinkage: the measured losses' sum over the raw losses' sum, over the
    positions with a raw loss of at least ``FIT_FLOOR`` (the made move not the best), as one
    knot ``(1, ratio)``: the loss shown is ``ratio * raw``.  (A knot per band of raw losses,
    through each band's means, was tried first: on these sample sizes it followed the noise of
    the training deals and disagreed on held-out ones, docs/bots.md "Calibration".)"""
    sel = [r for r in rows if r["raw"] >= FIT_FLOOR]
    raw = sum(r["raw"] for r in sel)
    if not sel or raw <= 0:
        return ()
    return ((1.0, round(max(0.0, sum(r["measured"] for r in sel) / raw), 3)),)


def _ci(xs: list[float]) -> float:
    return 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf


def table(
    rows: list[dict[str, Any]], knots: tuple[tuple[float, float], ...], label: str
) -> list[str]:
    """Markdown rows: per band of the loss shown (a row's ``"shown"``, else its raw loss through
    ``knots``), the mean shown (predicted) against the mean measured, and the paired difference
    with its 95% interval ("agree": the interval holds 0)."""
    out = []
    for lo, hi in BANDS:
        sel = []
        for r in rows:
            shown = r["shown"] if "shown" in r else apply_knots(knots, r["raw"])
            if lo <= round(shown, 2) < hi:
                sel.append((shown, r["measured"], r["raw"]))
        name = f"{lo:g}-{hi:g}" if hi < math.inf else f"{lo:g}+"
        if not sel:
            out.append(f"| {label} | {name} | 0 | - | - | - | - | - |")
            continue
        pred = statistics.fmean(p for p, _, _ in sel)
        meas = [m for _, m, _ in sel]
        diff = [m - p for p, m, _ in sel]
        d, h = statistics.fmean(diff), _ci(diff)
        agree = "yes" if abs(d) <= h else "no"
        out.append(
            f"| {label} | {name} | {len(sel)} | {statistics.fmean(r for _, _, r in sel):.2f}"
            f" | {pred:.2f} | {statistics.fmean(meas):.2f} ± {_ci(meas):.2f}"
            f" | {d:+.2f} ± {h:.2f} | {agree} |"
        )
    return out


def cross(
    first: list[dict[str, Any]], second: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], tuple[tuple[float, float], ...]]:
    """Two-fold cross-fitting of one preset's positions: each half's positions with the loss
    shown by the fit on the other half (``"shown"``: never a fit on its own deals), and the fit
    on both halves (what the review uses)."""
    k1, k2 = fit(first), fit(second)
    rows = [dict(r, shown=apply_knots(k2, r["raw"])) for r in first]
    rows += [dict(r, shown=apply_knots(k1, r["raw"])) for r in second]
    return rows, fit(first + second)


def report(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> None:
    """Per preset: the fit on each half and on both (``KNOTS``), then the table of the
    cross-fitted losses shown against the measured ones, and the raw losses' table."""
    presets = sorted({r["preset"] for r in first} | {r["preset"] for r in second})
    fitted: dict[str, tuple[tuple[float, float], ...]] = {}
    checked: dict[str, list[dict[str, Any]]] = {}
    for p in presets:
        a = [r for r in first if r["preset"] == p]
        b = [r for r in second if r["preset"] == p]
        checked[p], fitted[p] = cross(a, b)
        print(
            f"{p}: {len(a)} + {len(b)} positions, {len({r['deal'] for r in a + b})} deals;"
            f" ratio on the first half {fit(a)}, on the second {fit(b)}, on both {fitted[p]}"
        )
    print("KNOTS = " + json.dumps({p: [list(k) for k in ks] for p, ks in fitted.items()}))
    if any(KNOTS.get(p) != ks for p, ks in fitted.items()):
        print("(app/review/calibration.py's KNOTS differ from this fit)")
    print()
    print(
        "| preset | band (shown loss) | positions | raw loss (mean) | shown (mean)"
        " | measured (95% CI) | measured - shown (95% CI) | agree |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in presets:
        rows = checked[p]
        for line in table(rows, (), p):
            print(line)
        cpu = [r["cpu"] for r in rows]
        print(
            f"<!-- {p}: {len(rows)} positions of {len({r['deal'] for r in rows})} deals;"
            f" evaluation CPU {statistics.fmean(cpu) * 1000:.0f} ms per decision -->"
        )
    print()
    print("Without the calibration (the raw loss shown):")
    print()
    print(
        "| preset | band (raw loss) | positions | raw loss (mean) | shown (mean)"
        " | measured (95% CI) | measured - raw (95% CI) | agree |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in presets:
        rows = [r for r in first + second if r["preset"] == p]
        for line in table(rows, (), p):
            print(line)

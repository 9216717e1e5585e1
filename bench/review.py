"""Game review: how long a review takes, and how well its evaluation ranks moves.

Run: ``python -m bench.review [--preset P ...] [--hands N] [--play-units U --pass-units U]``
reviews one seat of one game per preset (bots play it: the reviewed seat Standard, the others
Standard) at the review's default budget and prints a table of the CPU and wall time per game and
per reviewed decision.  ``--hands N`` stops each game after N hands (default: the preset's whole
game, to its target score).

``python -m bench.review --calibrate --preset P --first-deal F --deals N --out FILE`` evaluates
and measures positions for the calibration of the review's losses, and ``--calibrate --fit
TRAIN... --check HELD_OUT...`` fits and checks it (``bench/calibration.py``).

``python -m bench.review --hints [--preset P] --deals N`` times a hint (``app.review.hint``) at
each pass and play of seat 0 on N tournament deals per preset (CPU ms p50, p99, most).

``python -m bench.review --strength --preset classic --deals 40`` ranks known-better against
known-worse moves on the tournament deals (``bench.tournament``: the same seeds and pass
directions): seat 0 plays Standard with a Standard field; wherever the Expert (budget
``--expert-ms``) would play another card than Standard, the review's evaluation of that position
(from seat 0's view, at the review budget) gives the expected points of both moves, and both moves
are then played on from the true position ``--playouts`` times (seat 0 as Pro at budget 20 with
different seeds, the field Standard) to see the points each actually led to.  ``--rows FILE``
(with ``--strength`` and the run's settings) sums up the position lines a run printed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app import engine
from app.bots import choose_move
from app.bots.expert import evaluate_play
from app.bots.knowledge import Knowledge
from app.bots.players import Budget, play_json
from app.review import ReviewBudget, review_seat
from app.review.hint import hint

from . import calibration
from .tournament import _setup

DEFAULT_PRESETS = (
    "classic",
    "classic-3",
    "classic-5",
    "two-player-dummy",
    "two-player-28",
    "double-hearts",
)


def play_game(preset: str, seed: int, hands: int | None) -> dict[str, Any]:
    """A game played by Standard players, as the record the review reads."""
    opts: dict[str, object] = {"end": "hands", "hands": hands} if hands else {}
    rules = engine.make_rules(preset, opts)
    s = engine.new_game(rules, seed)
    moves: list[list[Any]] = []
    while s.phase != "over":
        seat = engine.seats_to_act(s)[0]
        mv = choose_move("standard", engine.view(s, seat), len(moves))
        moves.append([seat, mv])
        s = engine.apply(s, seat, engine.move_from_json(mv))
    return {"preset": preset, "options": rules.to_options(), "seed": seed, "moves": moves}


def times(args: argparse.Namespace) -> None:
    budget = ReviewBudget(play_units=args.play_units, pass_units=args.pass_units, seed=0)
    rows = []
    for preset in args.preset or DEFAULT_PRESETS:
        record = play_game(preset, 1, args.hands)
        c0 = time.process_time()
        t0 = time.perf_counter()
        review = review_seat(record, 0, budget=budget)
        cpu = time.process_time() - c0
        wall = time.perf_counter() - t0
        n = max(1, review["decisions"])
        row = {
            "preset": preset,
            "hands": len(review["hands"]),
            "decisions": review["decisions"],
            "cpu_s": round(cpu, 1),
            "wall_s": round(wall, 1),
            "cpu_ms_per_decision": round(1000 * cpu / n),
            "loss": review["loss"],
            "accuracy": review["accuracy"],
            "load": round(os.getloadavg()[0], 1),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| preset | hands | decisions | CPU s | wall s | CPU ms / decision | load |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['preset']} | {r['hands']} | {r['decisions']} | {r['cpu_s']} | {r['wall_s']}"
            f" | {r['cpu_ms_per_decision']} | {r['load']} |"
        )


def _continue(state: engine.GameState, seat: int, opts: dict[str, object], seed: int) -> int:
    """Play the hand out from ``state``: ``seat`` as Pro (budget 20, ``seed``), the others
    Standard; the seat's points in the hand."""
    hand_no = len(state.history)
    n = 0
    while len(state.history) == hand_no:
        who = engine.seats_to_act(state)[0]
        v = engine.view(state, who)
        if who == seat:
            mv = choose_move("pro", v, seed * 1009 + n, budget_ms=20, hard_cap_ms=1e9)
        else:
            mv = choose_move("standard", v, n, options=opts)
        state = engine.apply(state, who, engine.move_from_json(mv))
        n += 1
    return state.history[-1].points[seat]


@dataclass
class _Turn:
    """One decision of a tournament deal played by Standard in every seat (``_standard_turns``):
    the position, the seat to act and its view, Standard's move there, and the game's set-up."""

    deal: int
    opts: dict[str, object]
    rules: engine.Rules
    state: engine.GameState
    seat: int
    view: dict[str, Any]
    n: int  # the game's decisions so far
    std: dict[str, object]


def _standard_turns(preset: str, first_deal: int, deals: int) -> Iterator[_Turn]:
    """Every decision of the tournament deals ``first_deal`` on (``bench.tournament``: the same
    seeds and pass directions), Standard playing every seat; the game goes on with ``std``."""
    for deal in range(first_deal, first_deal + deals):
        opts, direction = _setup(preset, deal)
        rules = engine.make_rules(preset, opts)
        s = engine.new_game(rules, 1_000_003 * deal + 17)
        n = 0
        while s.phase != "over":
            if s.phase == "direction":
                assert direction is not None
                s = engine.apply(s, s.dealer, engine.ChooseDirection(direction))
                continue
            who = engine.seats_to_act(s)[0]
            v = engine.view(s, who)
            std = choose_move("standard", v, n, options=opts)
            yield _Turn(deal, opts, rules, s, who, v, n, std)
            s = engine.apply(s, who, engine.move_from_json(std))
            n += 1


def strength(args: argparse.Namespace) -> None:
    preset = args.preset[0] if args.preset else "classic"
    seat = 0
    rows: list[dict[str, float]] = []
    c0 = time.process_time()
    for turn in _standard_turns(preset, args.first_deal, args.deals):
        s, who, v, std = turn.state, turn.seat, turn.view, turn.std
        deal, n_moves = turn.deal, turn.n
        legal = v.get("legal")
        cards = legal.get("cards", []) if isinstance(legal, dict) else []
        if who == seat and s.phase == "play" and len(cards) > 1:
            exp = choose_move(
                "expert", v, deal * 7919 + n_moves, args.expert_ms, turn.opts, hard_cap_ms=1e9
            )
            if exp != std:
                k = Knowledge(v, turn.rules)
                rng = random.Random(f"strength:{deal}:{n_moves}")
                ev = evaluate_play(k, rng, Budget(args.review_units, 1e9))
                expected = {
                    json.dumps(play_json(k.t, d, not k.cur_cards), sort_keys=True): e
                    for d, e in zip(ev.cands, ev.expected(), strict=True)
                }
                best = min(expected.values())
                e_std = expected[json.dumps(std, sort_keys=True)]
                e_exp = expected[json.dumps(exp, sort_keys=True)]
                outcome = {}
                for name, mv in (("standard", std), ("expert", exp)):
                    after = engine.apply(s, who, engine.move_from_json(mv))
                    pts = [_continue(after, seat, turn.opts, r) for r in range(args.playouts)]
                    outcome[name] = statistics.fmean(pts)
                row = {
                    "deal": deal,
                    "move": n_moves,
                    "loss_standard": e_std - best,
                    "loss_expert": e_exp - best,
                    "points_standard": outcome["standard"],
                    "points_expert": outcome["expert"],
                }
                rows.append(row)
                print(json.dumps({k2: round(x, 3) for k2, x in row.items()}), flush=True)
    cpu = time.process_time() - c0
    _strength_summary(preset, args, rows, cpu)


def _mean_ci(xs: list[float]) -> str:
    if len(xs) < 2:
        return f"{statistics.fmean(xs):.2f}" if xs else "-"
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{m:.2f} ± {h:.2f}"


def _strength_summary(
    preset: str, args: argparse.Namespace, rows: list[dict[str, float]], cpu: float
) -> None:
    n = len(rows)
    print()
    print(
        f"{preset}: deals {args.first_deal}-{args.first_deal + args.deals - 1}, {n} positions"
        f" where Expert (budget {args.expert_ms}) and Standard disagree; review budget"
        f" {args.review_units} units; {args.playouts} playouts per move; CPU {cpu:.0f} s"
    )
    if not n:
        return
    ls = [r["loss_standard"] for r in rows]
    le = [r["loss_expert"] for r in rows]
    ps = [r["points_standard"] for r in rows]
    pe = [r["points_expert"] for r in rows]
    pred = [a - b for a, b in zip(ls, le, strict=True)]  # > 0: the review prefers Expert's
    real = [a - b for a, b in zip(ps, pe, strict=True)]  # > 0: Expert's led to fewer points
    better = sum(1 for x in pred if x > 0.05)
    worse = sum(1 for x in pred if x < -0.05)
    marked = {
        name: sum(1 for x in ls if x >= limit)
        for name, limit in (("inaccuracy", 0.5), ("mistake", 1.5), ("blunder", 4.0))
    }
    agree = [
        (p > 0) == (r > 0)
        for p, r in zip(pred, real, strict=True)
        if abs(p) > 0.05 and abs(r) > 1e-9
    ]
    corr = statistics.correlation(pred, real) if n > 2 and len(set(real)) > 1 else float("nan")
    print(f"review's expected loss of Standard's move : {_mean_ci(ls)}")
    print(f"review's expected loss of Expert's move   : {_mean_ci(le)}")
    print(
        f"the review prefers Expert's move in {better} of {n} positions, Standard's in {worse}"
        f" (the rest within 0.05)"
    )
    print(f"Standard's move with a loss of at least 0.5 / 1.5 / 4: {marked}")
    print(f"points led to after Standard's move        : {_mean_ci(ps)}")
    print(f"points led to after Expert's move          : {_mean_ci(pe)}")
    print(f"actual gain of Expert's move (std - exp)   : {_mean_ci(real)}")
    print(f"predicted gain (review loss std - exp)     : {_mean_ci(pred)}")
    if agree:
        print(
            f"the review's preference and the actual outcome agree in {sum(agree)} of"
            f" {len(agree)} positions ({100 * sum(agree) / len(agree):.0f}%)"
        )
    print(f"correlation of predicted and actual gain   : {corr:.2f}")
    print("by the review's predicted gain of Expert's move over Standard's:")
    print("| predicted gain | positions | predicted (mean) | actual gain (95% CI) |")
    print("| --- | --- | --- | --- |")
    for lo, hi in ((-99.0, 0.05), (0.05, 0.5), (0.5, 1.5), (1.5, 99.0)):
        sel = [(p, r) for p, r in zip(pred, real, strict=True) if lo <= p < hi]
        if sel:
            label = f"< {hi}" if lo < -50 else (f">= {lo}" if hi > 50 else f"{lo} to {hi}")
            print(
                f"| {label} | {len(sel)} | {statistics.fmean(p for p, _ in sel):.2f}"
                f" | {_mean_ci([r for _, r in sel])} |"
            )


def hints(args: argparse.Namespace) -> None:
    """CPU time of a hint (``app.review.hint``) at each pass and play of seat 0 in hands played
    by Standard, per preset: p50, p99 and the most."""
    print("| preset | hints | CPU ms p50 | CPU ms p99 | CPU ms max | load |")
    print("| --- | --- | --- | --- | --- | --- |")
    for preset in args.preset or DEFAULT_PRESETS:
        cpu: list[float] = []
        for turn in _standard_turns(preset, args.first_deal, args.deals):
            if turn.seat == 0 and turn.state.phase in ("pass", "play"):
                c0 = time.process_time()
                hint(turn.view, turn.rules, seed=turn.n)
                cpu.append(1000 * (time.process_time() - c0))
        cpu.sort()
        p99 = cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]
        print(
            f"| {preset} | {len(cpu)} | {statistics.median(cpu):.0f} | {p99:.0f}"
            f" | {cpu[-1]:.0f} | {os.getloadavg()[0]:.1f} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--preset", action="append", help="preset(s) (default: the six games)")
    ap.add_argument("--hands", type=int, default=None, help="stop each game after N hands")
    ap.add_argument("--play-units", type=int, default=ReviewBudget.play_units)
    ap.add_argument("--pass-units", type=int, default=ReviewBudget.pass_units)
    ap.add_argument("--strength", action="store_true", help="rank Expert's vs Standard's moves")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--expert-ms", type=int, default=100, help="Expert's budget (--strength)")
    ap.add_argument(
        "--review-units", type=int, default=ReviewBudget.play_units, help="(--strength)"
    )
    ap.add_argument("--playouts", type=int, default=8, help="per move (--strength)")
    ap.add_argument(
        "--rows", action="append", help="(--strength) summarize the position lines of a run"
    )
    ap.add_argument("--hints", action="store_true", help="CPU time of a hint, per preset")
    ap.add_argument(
        "--calibrate",
        action="store_true",
        help="evaluate and measure seat 0's positions (bench/calibration.py)",
    )
    ap.add_argument("--out", help="(--calibrate) append the position lines to this file")
    ap.add_argument("--fit", action="append", help="(--calibrate) one half of the positions")
    ap.add_argument("--check", action="append", help="(--calibrate) the other half")
    args = ap.parse_args()
    if args.hints:
        hints(args)
    elif args.calibrate and (args.fit or args.check):
        calibration.report(
            calibration.read_rows(args.fit or []), calibration.read_rows(args.check or [])
        )
    elif args.calibrate:
        budget = ReviewBudget(play_units=args.play_units, pass_units=args.pass_units, seed=0)
        for preset in args.preset or DEFAULT_PRESETS:
            calibration.run(preset, args.first_deal, args.deals, budget, args.out)
    elif args.strength and args.rows:
        rows = []
        for name in args.rows:
            with open(name) as f:
                rows += [json.loads(x) for x in f if x.startswith('{"deal"')]
        _strength_summary(args.preset[0] if args.preset else "classic", args, rows, 0.0)
    elif args.strength:
        strength(args)
    else:
        times(args)


if __name__ == "__main__":
    main()

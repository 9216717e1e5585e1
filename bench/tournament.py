"""Duplicate tournament of the computer players.

Run: ``python -m bench.tournament --preset classic --tested pro --field standard --deals 1000``.

Each deal is one seeded hand.  It is played once with every seat taken by the field (the baseline),
then once per seat with the tested player in that seat and the field in the others, so the tested
player meets the same cards from every seat.  The pass direction turns with the deal number through
every direction the game has (classic: dealer's choice set by the bench; Double Hearts: left,
right, hold, as a table option; the dummy game always exchanges; the 28-card game never passes).

Printed: the tested player's points per hand, the field's points per hand in the same seats on the
same deals, the difference with a 95% confidence interval (over deals), moon rates, and decision
times (p50/p99) of the tested player for plays and passes.  Games run in ``--workers`` processes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import multiprocessing as mp
import os
import statistics
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from app.bots import choose_move
from app.engine import (
    ChooseDirection,
    apply,
    make_rules,
    move_from_json,
    new_game,
    seats_to_act,
    view,
)


@dataclass
class DealResult:
    deal: int
    tested_points: list[int] = field(default_factory=list)  # per seat
    base_points: list[int] = field(default_factory=list)  # per seat, field only
    tested_moons: int = 0  # hands in which the tested player shot the moon
    moons_against: int = 0  # hands in which another player shot with the tested player seated
    base_moons: int = 0  # moons in the baseline hand
    play_ms: list[float] = field(default_factory=list)  # the tested player's decisions
    pass_ms: list[float] = field(default_factory=list)
    # every level's decision times (tested and field), computed decisions only
    times: dict[str, dict[str, list[float]]] = field(default_factory=dict)


def _setup(preset: str, deal: int) -> tuple[dict[str, object], str | None]:
    """Table options for this deal and the direction the bench picks as dealer."""
    rules = make_rules(preset)
    opts: dict[str, object] = {"end": "hands", "hands": 1}
    if rules.game == "classic":
        dirs = (
            ["left", "right", "across", "hold"] if rules.players == 4 else ["left", "right", "hold"]
        )
        opts["passing"] = "dealer"
        return opts, dirs[deal % len(dirs)]
    if rules.game == "double":
        opts["passing"] = ["left", "right", "none"][deal % 3]
    return opts, None


def play_hand(
    preset: str,
    deal: int,
    levels: list[str],
    budgets: list[int | None],
    timed_seat: int,
    result: DealResult | None,
    memo: dict[str, dict[str, object]] | None = None,
    caps: list[float | None] | None = None,
) -> tuple[list[int], int]:
    """Play one hand of ``deal``; the hand's points per seat and the moon shooter (-1).

    ``memo`` holds the field's decisions of this deal by (level, seed, view): a decision depends
    on nothing else (budgets are rollout counts), so a field player facing the very position it
    met in an earlier hand of the deal makes the same move without searching again.  The tested
    seat (``timed_seat``) never reads it."""
    opts, direction = _setup(preset, deal)
    rules = make_rules(preset, opts)
    s = new_game(rules, 1_000_003 * deal + 17)
    n_moves = 0
    while s.phase != "over":
        if s.phase == "direction":
            assert direction is not None
            s = apply(s, s.dealer, ChooseDirection(direction))
            continue
        for seat in seats_to_act(s):
            v = view(s, seat)
            phase = s.phase
            seed = deal * 7919 + seat * 104729 + n_moves
            key = ""
            mv: dict[str, object] | None = None
            if memo is not None and seat != timed_seat:
                key = f"{levels[seat]}|{budgets[seat]}|{seed}|{json.dumps(v, sort_keys=True)}"
                mv = memo.get(key)
            if mv is None:
                c0 = time.process_time()
                t0 = time.perf_counter()
                saved = _apply_knobs(TESTED_SET) if seat == timed_seat else []
                try:
                    mv = choose_move(
                        levels[seat],
                        v,
                        seed=seed,
                        budget_ms=budgets[seat],
                        options=opts,
                        hard_cap_ms=caps[seat] if caps is not None else None,
                    )
                finally:
                    _apply_knobs(saved)
                dt = (time.perf_counter() - t0) * 1000
                dc = (time.process_time() - c0) * 1000
                if result is not None:
                    kind = "play" if phase == "play" else "pass"
                    if seat == timed_seat:
                        (result.play_ms if kind == "play" else result.pass_ms).append(dt)
                    per = result.times.setdefault(
                        levels[seat], {"play": [], "pass": [], "play_cpu": [], "pass_cpu": []}
                    )
                    per[kind].append(dt)
                    per[kind + "_cpu"].append(dc)
                if key and memo is not None:
                    memo[key] = mv
            s = apply(s, seat, move_from_json(mv))
            n_moves += 1
            if s.phase != phase and phase != "pass":
                break
    last = s.history[-1]
    return list(last.points), last.moon


Job = tuple[str, str, str, int, int | None, int | None, float | None, float | None, bool]


def run_deal(args: Job) -> DealResult:
    preset, tested, fld, deal, tested_budget, field_budget, tested_cap, field_cap, use_memo = args
    n = make_rules(preset).players
    res = DealResult(deal)
    memo: dict[str, dict[str, object]] | None = {} if use_memo else None
    base, base_moon = play_hand(
        preset, deal, [fld] * n, [field_budget] * n, -1, res, memo, [field_cap] * n
    )
    res.base_moons = int(base_moon >= 0)
    for seat in range(n):
        levels = [fld] * n
        budgets: list[int | None] = [field_budget] * n
        caps: list[float | None] = [field_cap] * n
        levels[seat] = tested
        budgets[seat] = tested_budget
        caps[seat] = tested_cap
        pts, moon = play_hand(preset, deal, levels, budgets, seat, res, memo, caps)
        res.tested_points.append(pts[seat])
        res.base_points.append(base[seat])
        res.tested_moons += int(moon == seat)
        res.moons_against += int(moon >= 0 and moon != seat)
    return res


def _ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


def summarize(
    preset: str, tested: str, fld: str, results: list[DealResult], seconds: float
) -> dict[str, Any]:
    per_deal_t = [statistics.fmean(r.tested_points) for r in results]
    per_deal_b = [statistics.fmean(r.base_points) for r in results]
    diff = [a - b for a, b in zip(per_deal_t, per_deal_b, strict=True)]
    n = make_rules(preset).players
    hands = len(results) * n
    t_mean, t_ci = _ci(per_deal_t)
    b_mean, b_ci = _ci(per_deal_b)
    d_mean, d_ci = _ci(diff)
    play = [x for r in results for x in r.play_ms]
    pas = [x for r in results for x in r.pass_ms]
    per_level: dict[str, dict[str, float]] = {}
    for lvl in sorted({lv for r in results for lv in r.times}):
        row: dict[str, float] = {}
        for kind in ("play", "pass", "play_cpu", "pass_cpu"):
            xs = [x for r in results for x in r.times.get(lvl, {}).get(kind, [])]
            row[kind + "_n"] = len(xs)
            row[kind + "_p50"] = round(_pct(xs, 0.5), 2)
            row[kind + "_p99"] = round(_pct(xs, 0.99), 2)
        per_level[lvl] = row
    return {
        "preset": preset,
        "tested": tested,
        "field": fld,
        "deals": len(results),
        "hands": hands,
        "tested_pts": round(t_mean, 3),
        "tested_ci": round(t_ci, 3),
        "field_pts": round(b_mean, 3),
        "field_ci": round(b_ci, 3),
        "diff": round(d_mean, 3),
        "diff_ci": round(d_ci, 3),
        "tested_moon_rate": round(sum(r.tested_moons for r in results) / hands, 4),
        "moon_against_rate": round(sum(r.moons_against for r in results) / hands, 4),
        "field_moon_rate": round(sum(r.base_moons for r in results) / len(results), 4),
        "play_ms_p50": round(_pct(play, 0.5), 2),
        "play_ms_p99": round(_pct(play, 0.99), 2),
        "pass_ms_p50": round(_pct(pas, 0.5), 2),
        "pass_ms_p99": round(_pct(pas, 0.99), 2),
        "per_level_ms": per_level,
        "seconds": round(seconds, 1),
    }


def print_row(r: Mapping[str, Any]) -> None:
    print(
        f"{r['preset']:16s} {r['tested']:>8s} vs {r['field']:8s} deals {r['deals']:5d}  "
        f"tested {r['tested_pts']:6.2f} ±{r['tested_ci']:.2f}  field {r['field_pts']:6.2f}  "
        f"diff {r['diff']:+6.2f} ±{r['diff_ci']:.2f}  moon {100 * r['tested_moon_rate']:.1f}%"
        f" against {100 * r['moon_against_rate']:.1f}%  ({r['seconds']:.0f} s)",
        flush=True,
    )
    for lvl, t in r.get("per_level_ms", {}).items():
        print(
            f"    {lvl:8s} play p50/p99 {t['play_p50']:.1f}/{t['play_p99']:.1f} ms wall, "
            f"{t['play_cpu_p50']:.1f}/{t['play_cpu_p99']:.1f} ms CPU ({t['play_n']} decisions)"
            f"  pass p50/p99 {t['pass_p50']:.1f}/{t['pass_p99']:.1f} ms wall, "
            f"{t['pass_cpu_p50']:.1f}/{t['pass_cpu_p99']:.1f} ms CPU ({t['pass_n']})",
            flush=True,
        )


# What a per-deal line records about the run besides its deal: deals of different runs are never
# merged into one summary.
RUN_KEYS = (
    "preset",
    "tested",
    "field",
    "tested_budget_ms",
    "field_budget_ms",
    "tested_hard_cap_ms",
    "field_hard_cap_ms",
    "settings",
)


def _open_text(path: str, mode: str = "r") -> IO[str]:
    if path.endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return open(path, mode, encoding="utf-8")  # noqa: SIM115


def _run_key(d: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(tuple(d.get(k) or []) if k == "settings" else d.get(k) for k in RUN_KEYS)


def read_deals(
    paths: list[str], only: range | None = None
) -> dict[tuple[Any, ...], dict[int, dict[str, Any]]]:
    """The per-deal lines of these files (plain or .gz), by run; a deal found twice counts once;
    with ``only``, the deals in that range."""
    runs: dict[tuple[Any, ...], dict[int, dict[str, Any]]] = {}
    for path in paths:
        with _open_text(path) as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    if only is not None and int(d["deal"]) not in only:
                        continue
                    runs.setdefault(_run_key(d), {})[int(d["deal"])] = d
    return runs


def markdown_row(r: Mapping[str, Any]) -> str:
    """The row of a summary in the tables of docs/bots.md."""
    t = r.get("per_level_ms", {}).get(r["tested"], {})

    def ms(kind: str) -> str:
        if not t.get(f"{kind}_cpu_n"):
            return "-"
        return f"{t[kind + '_cpu_p50']:.1f} / {t[kind + '_cpu_p99']:.1f}"

    budget = r.get("tested_budget_ms")
    notes = [f"budget {budget}" if budget else "default budget"]
    notes += [f"deals {r['deal_ranges']}"] if "deal_ranges" in r else []
    notes += list(r.get("settings") or [])
    cells = [
        r["preset"],
        r["tested"],
        r["field"],
        str(r["deals"]),
        f"{r['tested_pts']:.2f} ± {r['tested_ci']:.2f}",
        f"{r['field_pts']:.2f}",
        f"{r['diff']:.2f} ± {r['diff_ci']:.2f}",
        f"{100 * r['tested_moon_rate']:.1f}% / {100 * r['moon_against_rate']:.1f}%",
        ms("play"),
        ms("pass"),
        "; ".join(notes),
    ]
    return "| " + " | ".join(cells) + " |"


def summarize_files(paths: list[str], only: range | None = None) -> list[dict[str, Any]]:
    """One summary per run (``RUN_KEYS``) found in ``--per-deal`` files."""
    rows = []
    for key, deals in read_deals(paths, only).items():
        results = []
        for k in sorted(deals):
            d = deals[k]
            r = DealResult(
                k,
                list(d["tested_points"]),
                list(d["base_points"]),
                int(d["tested_moons"]),
                int(d["moons_against"]),
                int(d.get("base_moons", 0)),
                times=d.get("times", {}),
            )
            # the tested player's own times (when the file has them)
            mine = r.times.get(d["tested"], {})
            r.play_ms = list(mine.get("play", []))
            r.pass_ms = list(mine.get("pass", []))
            results.append(r)
        row = summarize(key[0], key[1], key[2], results, 0.0)
        row.update(zip(RUN_KEYS[3:], key[3:], strict=True))
        row["settings"] = list(row["settings"])
        row["first_deal"], row["last_deal"] = min(deals), max(deals)
        row["deal_ranges"] = _ranges(sorted(deals))
        rows.append(row)
    return rows


def compact(paths: list[str], out: str) -> int:
    """Write the deals of these files to ``out`` (``.gz``: compressed) for keeping in the repo:
    the tested player's decision times only, to 0.01 ms. Returns the number of deals written.
    Everything is read before ``out`` is written (through a temporary file), and ``out`` may not
    be one of the inputs."""
    if os.path.exists(out) and any(os.path.exists(p) and os.path.samefile(p, out) for p in paths):
        raise ValueError(f"--compact {out} is one of the files to summarize")
    runs = read_deals(paths)
    tmp = out + ".tmp" + (".gz" if out.endswith(".gz") else "")
    n = 0
    with _open_text(tmp, "w") as f:
        for deals in runs.values():
            for k in sorted(deals):
                d = dict(deals[k])
                mine = d.get("times", {}).get(d["tested"], {})
                d["times"] = {
                    d["tested"]: {kind: [round(x, 2) for x in xs] for kind, xs in mine.items()}
                }
                f.write(json.dumps(d, separators=(",", ":")) + "\n")
                n += 1
    os.replace(tmp, out)
    return n


def _ranges(deals: list[int]) -> str:
    """``[0, 1, 2, 5, 6]`` -> ``"0-2, 5-6"``."""
    parts: list[str] = []
    start = prev = deals[0]
    for k in [*deals[1:], None]:
        if k is not None and k == prev + 1:
            prev = k
            continue
        parts.append(f"{start}-{prev}" if prev > start else str(start))
        if k is not None:
            start = prev = k
    return ", ".join(parts)


# settings of the tested player only (--tested-set): (module, name, value), swapped in around
# each of its decisions, so a changed Expert meets today's Expert on the same deals
Knob = tuple[Any, str, Any]
TESTED_SET: list[Knob] = []


def _knob(spec: str) -> Knob:
    """``module.NAME=value`` (module in app.bots) as (module, name, value)."""
    import importlib

    target, _, value = spec.partition("=")
    mod_name, _, name = target.rpartition(".")
    mod = importlib.import_module(f"app.bots.{mod_name}")
    if not hasattr(mod, name):
        raise SystemExit(f"app.bots.{mod_name} has no setting {name}")
    return mod, name, type(getattr(mod, name))(json.loads(value))


def _apply_knobs(knobs: list[Knob]) -> list[Knob]:
    """Sets the knobs; returns the settings they replaced (apply those to undo)."""
    saved = [(mod, name, getattr(mod, name)) for mod, name, _v in knobs]
    for mod, name, value in knobs:
        setattr(mod, name, value)
    return saved


def _set_knob(spec: str) -> None:
    """``module.NAME=value`` (module in app.bots): an experiment's setting, e.g.
    ``expert.INFERENCE=0``; set before the worker processes fork."""
    _apply_knobs([_knob(spec)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--preset", action="append", help="preset(s) (default: classic)")
    ap.add_argument("--tested", default="pro", help="level of the tested player")
    ap.add_argument("--field", default="standard", help="level of the three (or more) others")
    ap.add_argument(
        "--deals",
        type=int,
        default=None,
        help="deals to play (default 1000); with --summarize, only deals --first-deal to "
        "--first-deal + DEALS - 1 are summed up",
    )
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--tested-budget-ms",
        type=int,
        default=None,
        help="search size of the tested player (rollouts = 10 per ms; default: the level's)",
    )
    ap.add_argument("--field-budget-ms", type=int, default=None)
    ap.add_argument(
        "--tested-hard-cap-ms",
        type=float,
        default=None,
        help="wall-clock safety cap of the tested player (default: the level's; 1e9 lifts it)",
    )
    ap.add_argument(
        "--field-hard-cap-ms",
        type=float,
        default=None,
        help="wall-clock safety cap of the field (default: the level's; 1e9 lifts it)",
    )
    ap.add_argument(
        "--no-memo",
        action="store_true",
        help="search again every field decision (default: a field player meeting a position it "
        "met in an earlier hand of the same deal repeats its move)",
    )
    ap.add_argument(
        "--expert-standard-pass", action="store_true", help="Expert passes as Standard does"
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="experiment: change a setting of app.bots.MODULE (e.g. expert.INFERENCE=0)",
    )
    ap.add_argument(
        "--tested-set",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="like --set, for the tested player's decisions only (e.g. --tested expert "
        "--field expert --set inference.BELIEFS=0 --tested-set inference.BELIEFS=1: a paired "
        "comparison of two Experts)",
    )
    ap.add_argument("--per-deal", default=None, help="write each deal's result (JSON lines)")
    ap.add_argument("--progress", type=int, default=50, help="print a partial summary every N")
    ap.add_argument(
        "--summarize",
        nargs="+",
        metavar="FILE",
        help="play nothing: print the summary of the deals in these --per-deal files, plain or "
        ".gz (a run split into parts with --first-deal; a deal found twice counts once; deals of "
        "runs with other budgets or --set settings are summarized apart)",
    )
    ap.add_argument(
        "--markdown",
        action="store_true",
        help="with --summarize: print each run as a row of the tables in docs/bots.md",
    )
    ap.add_argument(
        "--compact",
        metavar="OUT",
        default=None,
        help="with --summarize: also write those deals to OUT (.gz: compressed) with only the "
        "tested player's decision times, to keep a documented run in bench/results/",
    )
    args = ap.parse_args()
    if (args.compact or args.markdown) and not args.summarize:
        ap.error("--compact and --markdown need --summarize FILE...")
    if args.summarize:
        if args.compact:
            try:
                n = compact(args.summarize, args.compact)
            except (ValueError, OSError) as exc:
                ap.error(str(exc))
            print(f"{n} deals written to {args.compact}", file=sys.stderr)
        only = None
        if args.deals is not None:
            only = range(args.first_deal, args.first_deal + args.deals)
        for row in summarize_files(args.summarize, only):
            print_row(row)
            print(json.dumps(row), flush=True)
            if args.markdown:
                print(markdown_row(row), flush=True)
        return
    if args.expert_standard_pass:
        args.set.append("expert.SIMULATED_PASS=false")
    for spec in args.set:
        _set_knob(spec)
    TESTED_SET[:] = [_knob(spec) for spec in args.tested_set]
    args.set = args.set + [f"tested {spec}" for spec in args.tested_set]
    for preset in args.preset or ["classic"]:
        row = run_preset(preset, args)
        row["tested_budget_ms"] = args.tested_budget_ms
        row["settings"] = args.set
        print_row(row)
        print(json.dumps(row), flush=True)


def run_preset(preset: str, args: argparse.Namespace) -> dict[str, Any]:
    jobs: list[Job] = [
        (
            preset,
            args.tested,
            args.field,
            d,
            args.tested_budget_ms,
            args.field_budget_ms,
            args.tested_hard_cap_ms,
            args.field_hard_cap_ms,
            not args.no_memo,
        )
        for d in range(args.first_deal, args.first_deal + (args.deals or 1000))
    ]
    start = time.perf_counter()
    results: list[DealResult] = []
    out = open(args.per_deal, "a") if args.per_deal else None  # noqa: SIM115

    def progress(r: DealResult) -> None:
        results.append(r)
        if out is not None:
            out.write(
                json.dumps(
                    {
                        "preset": preset,
                        "tested": args.tested,
                        "field": args.field,
                        "deal": r.deal,
                        "tested_points": r.tested_points,
                        "base_points": r.base_points,
                        "tested_moons": r.tested_moons,
                        "moons_against": r.moons_against,
                        "base_moons": r.base_moons,
                        "tested_budget_ms": args.tested_budget_ms,
                        "field_budget_ms": args.field_budget_ms,
                        "tested_hard_cap_ms": args.tested_hard_cap_ms,
                        "field_hard_cap_ms": args.field_hard_cap_ms,
                        "settings": args.set,
                        "times": r.times,
                    }
                )
                + "\n"
            )
            out.flush()
        if args.progress and len(results) % args.progress == 0 and len(results) < len(jobs):
            row = summarize(preset, args.tested, args.field, results, time.perf_counter() - start)
            print("partial:", json.dumps(row), file=sys.stderr, flush=True)

    try:
        if args.workers > 1:
            with mp.get_context("fork").Pool(args.workers) as pool:
                for r in pool.imap_unordered(run_deal, jobs, chunksize=1):
                    progress(r)
        else:
            for j in jobs:
                progress(run_deal(j))
    finally:
        if out is not None:
            out.close()
    results.sort(key=lambda r: r.deal)
    return summarize(preset, args.tested, args.field, results, time.perf_counter() - start)


if __name__ == "__main__":
    main()

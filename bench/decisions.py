"""Decision time of the computer players at their default budgets, on one core.

Run: ``python -m bench.decisions --preset classic --level pro --level expert --hands 6``.

Plays ``--hands`` seeded hands in this one process, one seat taken by each tested level in turn
and the others by Standard, and prints the CPU time (``time.process_time``) and wall time of the
tested level's decisions: p50, p99 and the largest, for plays (forced plays, a single legal card,
left out) and passes.  The wall-clock hard caps are lifted so a busy machine shows up as longer
times instead of cut searches; compare the CPU times with the targets (Standard under 1 ms; Pro
p50 under 50 ms and p99 under 250 ms; Expert about 500 ms, hard cap 1 s, passing under 2 s).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from app.bots import LEVELS, choose_move
from app.engine import apply, make_rules, move_from_json, new_game, seats_to_act, view
from bench.tournament import _set_knob


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


def measure(preset: str, level: str, hands: int) -> dict[str, object]:
    times: dict[str, list[float]] = {"play": [], "pass": [], "play_wall": [], "pass_wall": []}
    rules = make_rules(preset, {"end": "hands", "hands": 1})
    n = rules.players
    for h in range(hands):
        s = new_game(rules, 7_000_003 + h)
        tested = h % n
        moves = 0
        while s.phase != "over":
            for seat in seats_to_act(s):
                v = view(s, seat)
                phase = s.phase
                lvl = level if seat == tested else "standard"
                legal = v.get("legal")
                forced = (
                    isinstance(legal, dict)
                    and legal.get("type") == "play"
                    and len(legal.get("cards", [])) == 1
                )
                c0 = time.process_time()
                w0 = time.perf_counter()
                mv = choose_move(lvl, v, seed=h * 1000 + moves, hard_cap_ms=1e9)
                cpu = (time.process_time() - c0) * 1000
                wall = (time.perf_counter() - w0) * 1000
                if seat == tested and not forced and phase in ("play", "pass"):
                    times[phase].append(cpu)
                    times[phase + "_wall"].append(wall)
                s = apply(s, seat, move_from_json(mv))
                moves += 1
                if s.phase != phase and phase != "pass":
                    break
    row: dict[str, object] = {"preset": preset, "level": level, "hands": hands}
    for kind, xs in times.items():
        row[kind] = {
            "n": len(xs),
            "p50": round(_pct(xs, 0.5), 2),
            "p99": round(_pct(xs, 0.99), 2),
            "max": round(max(xs), 2) if xs else float("nan"),
        }
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--preset", action="append", help="preset(s) (default: classic)")
    ap.add_argument("--level", action="append", choices=LEVELS, help="level(s) (default: all)")
    # Options of the bench scripts' common form (a repeatable --set, as bench.load's
    # --server-env).
    ap.add_argument("--hands", type=int, default=6)
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="experiment: change a setting of app.bots.MODULE (e.g. inference.BELIEFS=0)",
    )
    args = ap.parse_args()
    for spec in args.set:
        _set_knob(spec)
    for preset in args.preset or ["classic"]:
        for level in args.level or list(LEVELS):
            row = measure(preset, level, args.hands)
            out = [f"{preset:16s} {level:8s}"]
            for kind in ("play", "pass"):
                c = row[kind]
                w = row[kind + "_wall"]
                assert isinstance(c, dict) and isinstance(w, dict)
                if c["n"]:
                    out.append(
                        f"{kind} CPU p50 {c['p50']:.1f} p99 {c['p99']:.1f} max {c['max']:.1f} ms"
                        f" (wall p50 {w['p50']:.1f} p99 {w['p99']:.1f}; {c['n']} decisions)"
                    )
            out.append(f"(load average {os.getloadavg()[0]:.1f})")
            print("  ".join(out), flush=True)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

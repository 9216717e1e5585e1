"""Self-play hands of the project's own computers, recorded for training.

Run: ``python -m training.selfplay --out training/data/selfplay.jsonl --hands 400``.

Each line is one classic 4-player hand: its index, the pass direction the dealer chose and every
move in order (seat, move JSON).  The hand is the engine's seeded deal ``SEED_BASE + index``, so
replaying the moves on it rebuilds every position exactly (``beliefs_data`` does).  The file is
appended to: a run that stops is resumed by running the same command again (it starts after the
last hand written).  Prints hands and positions per second.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

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

SEED_BASE = 5_000_011
DIRECTIONS = ("left", "right", "across", "hold")
OPTIONS: dict[str, object] = {"end": "hands", "hands": 1, "passing": "dealer"}


def play(index: int, level: str, budget_ms: int | None) -> dict[str, Any]:
    """One hand of ``level`` in every seat: the record written to the file."""
    rules = make_rules("classic", OPTIONS)
    s = new_game(rules, SEED_BASE + index)
    direction = DIRECTIONS[index % len(DIRECTIONS)]
    moves: list[tuple[int, dict[str, object]]] = []
    n = 0
    while s.phase != "over":
        if s.phase == "direction":
            s = apply(s, s.dealer, ChooseDirection(direction))
            continue
        for seat in seats_to_act(s):
            phase = s.phase
            mv = choose_move(
                level,
                view(s, seat),
                seed=SEED_BASE + index * 1000 + n,
                budget_ms=budget_ms,
                options=OPTIONS,
                hard_cap_ms=1e9,
            )
            s = apply(s, seat, move_from_json(mv))
            moves.append((seat, mv))
            n += 1
            if s.phase != phase and phase != "pass":
                break
    return {"hand": index, "direction": direction, "moves": moves}


def done_hands(path: str) -> int:
    """How many hands the file already holds (a torn last line is dropped)."""
    if not os.path.exists(path):
        return 0
    good = 0
    size = 0
    with open(path, "rb") as f:
        for line in f:
            try:
                json.loads(line)
            except ValueError:
                break
            good += 1
            size += len(line)
    with open(path, "r+b") as f:
        f.truncate(size)
    return good


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hands", type=int, required=True, help="hands wanted in the file in all")
    ap.add_argument("--level", default="expert")
    ap.add_argument("--budget-ms", type=int, default=40, help="search size (default 40)")
    args = ap.parse_args()
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    start = done_hands(args.out)
    t0 = time.perf_counter()
    c0 = time.process_time()
    with open(args.out, "a") as f:
        for i in range(start, args.hands):
            rec = play(i, args.level, args.budget_ms)
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            f.flush()
            made = i + 1 - start
            if made % 10 == 0 or i + 1 == args.hands:
                wall = time.perf_counter() - t0
                cpu = time.process_time() - c0
                print(
                    f"{i + 1}/{args.hands} hands; {made / wall:.3f} hands/s wall, "
                    f"{made / max(cpu, 1e-9):.3f} hands/s CPU, "
                    f"{52 * made / max(cpu, 1e-9):.1f} positions/s CPU",
                    file=sys.stderr,
                    flush=True,
                )


if __name__ == "__main__":
    main()

"""Cost of checking a claim (``app.engine.claim``), to size ``NODE_BUDGET`` and to decide where
the server runs the check.

Run: ``python -m bench.claim [--games N] [--preset NAME ...]``.

For random games of each preset it checks, at the claimant's turn to play in every position of
the first hand, the claim of the seat to play (the server accepts a claim only then), and prints
per preset the positions checked, the accepted share, the mean and largest positions searched,
the CPU time (mean, 99th percentile, largest) and how many went over the budget.  A check is
refused when it goes over ``NODE_BUDGET``, so the largest time is bounded by the budget.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from app.engine import PRESETS, apply, legal_moves, new_game, seats_to_act
from app.engine.claim import NODE_BUDGET, claim_nodes, claim_wins_all


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=6, help="games per preset")
    ap.add_argument("--preset", action="append", help="presets (default: every one)")
    args = ap.parse_args()
    for preset in args.preset or sorted(PRESETS):
        nodes: list[int] = []
        ms: list[float] = []
        accepted = over = 0
        for seed in range(args.games):
            rng = random.Random(seed)
            s = new_game(PRESETS[preset], seed)
            while s.hand_no == 0 and s.phase != "over":
                seat = seats_to_act(s)[0]
                if s.phase == "play":
                    start = time.process_time()
                    n = claim_nodes(s, seat)
                    over += n >= NODE_BUDGET
                    ms.append((time.process_time() - start) * 1000)
                    nodes.append(n)

                    if n < NODE_BUDGET and claim_wins_all(s, seat):
                        accepted += 1
                s = apply(s, seat, rng.choice(legal_moves(s, seat)))
        ms.sort()
        row = {
            "preset": preset,
            "positions": len(ms),
            "accepted": accepted,
            "over_budget": over,
            "nodes_mean": round(statistics.fmean(nodes)),
            "nodes_max": max(nodes),
            "cpu_ms_mean": round(statistics.fmean(ms), 2),
            "cpu_ms_p99": round(ms[int(0.99 * (len(ms) - 1))], 2),
            "cpu_ms_max": round(ms[-1], 2),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

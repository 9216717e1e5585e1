"""Cost of Expert's exact play of the last tricks in the 28-card game.

Run: ``python -m bench.endgame [--deals N]``.

For positions after 3 to 7 random tricks (10 down to 6 cards in each hand) it solves each
position at the start of a trick for the seat to lead, with the two-player alpha-beta search
(``Duel``, the one Expert uses) and, up to 8 cards, with the general max-n search (``Solver``),
and prints the mean positions searched and the CPU time per solved position.  ``Duel`` counts
positions at the start of a trick, ``Solver`` every position, so compare their times.  The
figures set ``expert.DUEL_NODE_COST`` (CPU per ``Duel`` position over the CPU of one full rollout
unit).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from app.bots.endgame import Duel, Solver
from app.engine.playout import Sim

from .engine import _positions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=20, help="positions per hand size")
    args = ap.parse_args()
    for tricks in (7, 6, 5, 4, 3):
        cards = 13 - tricks
        row: dict[str, object] = {"cards_each": cards, "positions": args.deals}
        for name in ("duel", "solver"):
            if name == "solver" and cards > 8:
                continue
            nodes = []
            ms = []
            for s in _positions("two-player-28", args.deals, tricks):
                sim = Sim(s)
                me = sim.order[0]
                start = time.process_time()
                if name == "duel":
                    d = Duel(sim.t, s.dead, me)
                    d.value(sim.copy())
                    nodes.append(d.nodes)
                else:
                    sv = Solver(sim.t, s.dead, sim.moon_choice)
                    sv.value(sim.copy())
                    nodes.append(sv.nodes)
                ms.append((time.process_time() - start) * 1000)
            row[f"{name}_nodes_mean"] = round(statistics.fmean(nodes))
            row[f"{name}_cpu_ms_mean"] = round(statistics.fmean(ms), 2)
            row[f"{name}_cpu_ms_max"] = round(max(ms), 2)
            row[f"{name}_us_per_node"] = round(1000 * sum(ms) / max(1, sum(nodes)), 1)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

"""Write ``tests/bots/expert_pins.json``: ``python -m tests.bots.make_expert_pins``.

The decisions of the searching players on fixed positions, with the learned beliefs off (every
deal of a play drawn by ``Knowledge.sample``): for every preset, the positions of a few random
games, each seat to act; in play, Expert's move and its evaluation (the expected points of every
candidate) and Pro's move; in the passing, Expert's simulated pass and its evaluation; all from
fixed seeds and a budget counted in rollouts (no wall clock).
``tests/bots/test_expert_pins.py`` computes them again and compares: a change to how the unseen
cards are dealt (or to the search) that changes a single draw shows up there.  Write the file
again only when the search is meant to change, and say so in the commit.

``--check`` compares instead of writing (exit status 1 when a decision differs).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from app.bots import choose_move, inference
from app.bots.basics import ROLLOUTS_PER_MS, Budget
from app.bots.expert import PASS_FACTOR, evaluate_pass, evaluate_play
from app.bots.knowledge import Knowledge
from app.engine import PRESETS, GameState, seats_to_act, view

from .test_bots import NO_CAP, _positions

PATH = Path(__file__).with_name("expert_pins.json")
POSITIONS = 5  # random games per preset
BASE = 9100  # their first seed
BUDGET_MS = 4


def decisions() -> list[dict[str, object]]:
    """Every pinned decision, beliefs off (the caller restores ``inference.BELIEFS``)."""
    inference.BELIEFS = False
    out: list[dict[str, object]] = []
    for preset in sorted(PRESETS):
        for i, s in enumerate(_positions(preset, POSITIONS, base=BASE)):
            if s.phase == "pass":
                out += _passes(preset, i, s)
            if s.phase != "play":
                continue
            for seat in seats_to_act(s):
                v = view(s, seat)
                k = Knowledge(v, s.rules)
                if not k.legal_cards:
                    continue
                budget = Budget(BUDGET_MS * ROLLOUTS_PER_MS, NO_CAP)
                ev = evaluate_play(k, random.Random(f"pin:{preset}:{i}:{seat}"), budget)
                out.append(
                    {
                        "preset": preset,
                        "position": i,
                        "seat": seat,
                        "expert": choose_move("expert", v, 11, BUDGET_MS, hard_cap_ms=NO_CAP),
                        "pro": choose_move("pro", v, 11, BUDGET_MS, hard_cap_ms=NO_CAP),
                        "candidates": ev.cands,
                        "expected": [round(x, 9) for x in ev.expected()],
                        "worlds": ev.worlds,
                    }
                )
    return out


def _passes(preset: str, i: int, s: GameState) -> list[dict[str, object]]:
    """Expert's pass and its evaluation for each seat to pass in ``s``."""
    out: list[dict[str, object]] = []
    for seat in seats_to_act(s):
        v = view(s, seat)
        rng = random.Random(f"pin:{preset}:{i}:{seat}")
        ev = evaluate_pass(v, s.rules, rng, BUDGET_MS * ROLLOUTS_PER_MS * PASS_FACTOR, NO_CAP)
        row: dict[str, object] = {
            "preset": preset,
            "position": i,
            "seat": seat,
            "expert": choose_move("expert", v, 11, BUDGET_MS, hard_cap_ms=NO_CAP),
        }
        if not isinstance(ev, int):
            row |= {
                "candidates": ev.cands,
                "expected": [round(x, 9) for x in ev.expected()],
                "worlds": ev.worlds,
            }
        out.append(row)
    return out


def main() -> int:
    before = inference.BELIEFS
    try:
        got = decisions()
    finally:
        inference.BELIEFS = before
    if "--check" in sys.argv:
        return 0 if json.loads(PATH.read_text()) == got else 1
    PATH.write_text(json.dumps(got, indent=1) + "\n")
    print(f"{len(got)} decisions written to {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

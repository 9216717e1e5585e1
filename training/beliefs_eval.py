"""Held-out log-loss of the beliefs against today's deals (uniform and plausibility-weighted).

Run: ``python -m training.beliefs_eval --hands training/data/selfplay.jsonl``.

On the held-out hands (index ending in 0, never trained on), at every ``--every``-th card of the
play, the seat about to play: for every unseen card more than one seat could hold, the chance
given to the seat that really holds it, in nats per card (lower is better), by

- ``uniform shares``: each seat's free room over the room of the seats that can hold the card;
- ``model``: the beliefs model's probabilities (``app.bots.beliefs``);
- and the marginals of ``--draws`` deals drawn as the Expert draws them (smoothed by half a deal
  per seat): ``uniform deals`` (``Knowledge.sample``), ``plausibility`` (today's Expert:
  uniform proposals weighed by ``inference.Plausibility``), ``beliefs + plausibility`` (proposals
  from the model, then the same weights).
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable

from app.bots import expert, inference
from app.bots.beliefs import Model, features, model_for, probabilities
from app.bots.knowledge import Knowledge
from app.engine import GameState, make_rules

from .beliefs_data import positions
from .selfplay import OPTIONS

Sampler = Callable[[random.Random], list[int]]


def _truth(s: GameState, c: int) -> int:
    return next(h for h in range(len(s.hands)) if s.hands[h] >> c & 1)


def evaluate(lines: list[str], every: int, draws: int) -> dict[str, float]:
    rules = make_rules("classic", OPTIONS)
    model = model_for(rules) or Model.zero()
    zero = Model.zero()
    sums: dict[str, float] = {}
    n = 0
    for line in lines:
        rec = json.loads(line)
        if int(rec["hand"]) % 10:
            continue
        for i, (s, k) in enumerate(positions(rec)):
            if (i // 4) % every or k.seat != k.to_move:
                continue
            rows = [r for r in features(k) if len(r[1]) > 1]
            cards = {c: hs for c, hs, _f, _o in rows}
            got = {
                "uniform shares": probabilities(zero, rows),
                "model": probabilities(model, rows),
            }
            for name, beliefs in (
                ("uniform deals", None),
                ("plausibility", False),
                ("beliefs + plausibility", True),
            ):
                got[name] = _marginals(k, cards, draws, beliefs, i)
            for name, ps in got.items():
                sums[name] = sums.get(name, 0.0) + sum(
                    -math.log(ps[c][_truth(s, c)]) for c in cards
                )
            n += len(cards)
    return {name: v / max(n, 1) for name, v in sums.items()} | {"cards": n}


def _marginals(
    k: Knowledge, cards: dict[int, list[int]], draws: int, beliefs: bool | None, seed: int
) -> dict[int, dict[int, float]]:
    rng = random.Random(seed)
    counts = {c: dict.fromkeys(hs, 0.5) for c, hs in cards.items()}
    sample: Sampler
    if beliefs is None:
        sample = k.sample
    else:
        old = inference.BELIEFS
        inference.BELIEFS = beliefs
        try:
            p = inference.Plausibility(k)
        finally:
            inference.BELIEFS = old

        def sample(r: random.Random) -> list[int]:
            return p.draw(r, expert.PROPOSALS)

    for _ in range(draws):
        deal = sample(rng)
        for c, row in counts.items():
            for h in row:
                if deal[h] >> c & 1:
                    row[h] += 1
                    break
    return {c: {h: v / sum(row.values()) for h, v in row.items()} for c, row in counts.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", required=True)
    ap.add_argument("--limit", type=int, default=None, help="first N hands only")
    ap.add_argument("--every", type=int, default=3, help="every N-th card of the play")
    ap.add_argument("--draws", type=int, default=64)
    args = ap.parse_args()
    with open(args.hands) as f:
        lines = [ln for ln in f if ln.strip()][: args.limit]
    res = evaluate(lines, args.every, args.draws)
    for name, v in res.items():
        print(f"{name:24s} {v:.4f}" if name != "cards" else f"{name:24s} {int(v)}")


if __name__ == "__main__":
    main()

"""The computer players' anchor ratings, from the measured tournament results.

    python -m bench.anchors [--results bench/results/classic-expert-vs-standard-b100.jsonl.gz]

A rating (app/db/ratings.py) is pairwise Elo over whole games: each pair of seats is one
match, the lower final total wins. The tournament (bench.tournament, docs/bots.md) measures
something else: points per hand of one level against a field of the level below, on the same
deals. The conversion, stated in docs/persistence.md:

- A game to 100 lasts H hands, and one player's points in a hand spread with a standard
  deviation s; both are measured here on the all-Standard games of a kept results file (each
  deal's ``base_points``: the four seats' points in one hand). H comes from playing those hands
  in random order until a total reaches 100, many times.
- A level that takes d fewer points a hand than the level below (the tournament's difference,
  negative when better) wins a game against one such player with probability
  p = Phi(-d * sqrt(H) / (sqrt(2) * s)): the difference of two players' totals over H hands is
  about normal with mean d * H and variance 2 * s^2 * H.
- Elo: the rating gap of that expected score is 400 * log10(p / (1 - p)).

Standard is the anchor at 1500 (a new player's rating); the others are chained from the
differences in ``DIFFS``. Printed figures are what app/db/ratings.py's BOT_RATINGS holds.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import statistics
from pathlib import Path

DEFAULT_RESULTS = Path(__file__).parent / "results" / "classic-expert-vs-standard-b100.jsonl.gz"

# Points per hand of the tested level minus its field, classic 4 players (docs/bots.md):
# (tested, field, difference, 95% half-width, deals).
DIFFS = [
    ("standard", "easy", -4.52, 0.18, 1000),
    ("pro", "standard", -2.27, 0.21, 1000),
    # Expert at its default budget (what the server plays); deals 0-401, pooled.
    ("expert", "pro", -1.67, 0.34, 402),
]
ANCHOR = ("standard", 1500.0)
TARGET = 100
GAMES = 20_000


def hands_of(path: Path) -> list[list[int]]:
    """Each deal's all-Standard hand: the four seats' points."""
    opener = gzip.open if path.suffix == ".gz" else open
    hands = []
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if line:
                hands.append([int(p) for p in json.loads(line)["base_points"]])
    return hands


def game_length(hands: list[list[int]], rng: random.Random, games: int = GAMES) -> float:
    """Mean hands until a total reaches TARGET, hands drawn at random from ``hands``."""
    lengths = []
    for _ in range(games):
        totals = [0, 0, 0, 0]
        n = 0
        while max(totals) < TARGET:
            hand = rng.choice(hands)
            totals = [t + p for t, p in zip(totals, hand, strict=True)]
            n += 1
        lengths.append(n)
    return statistics.fmean(lengths)


def elo_gap(diff: float, hands: float, spread: float) -> tuple[float, float]:
    """(win probability against one player of the level below, Elo gap)."""
    z = -diff * math.sqrt(hands) / (math.sqrt(2.0) * spread)
    p = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    return p, 400.0 * math.log10(p / (1.0 - p))


def anchors(hands: float, spread: float) -> dict[str, float]:
    ratings = {ANCHOR[0]: ANCHOR[1]}
    for tested, field, diff, _half, _deals in DIFFS:
        _p, gap = elo_gap(diff, hands, spread)
        if field in ratings:
            ratings[tested] = ratings[field] + gap
        elif tested in ratings:
            ratings[field] = ratings[tested] - gap
    return ratings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    hands = hands_of(args.results)
    spread = statistics.pstdev([p for hand in hands for p in hand])
    length = game_length(hands, random.Random(args.seed))
    print(f"{len(hands)} all-Standard hands from {args.results.name}")
    print(f"points per hand of one player: sd {spread:.2f}; a game to {TARGET}: {length:.2f} hands")
    for tested, field, diff, half, deals in DIFFS:
        p, gap = elo_gap(diff, length, spread)
        lo = elo_gap(diff + half, length, spread)[1]
        hi = elo_gap(diff - half, length, spread)[1]
        print(
            f"{tested} vs {field}: {diff:+.2f} +- {half:.2f} points a hand ({deals} deals) -> "
            f"wins {p:.1%} of games against one {field} player, Elo gap {gap:.0f} "
            f"({lo:.0f} to {hi:.0f})"
        )
    rated = anchors(length, spread)
    print(
        "anchors: "
        + ", ".join(f"{k} {round(v)}" for k, v in sorted(rated.items(), key=lambda kv: kv[1]))
    )


if __name__ == "__main__":
    main()

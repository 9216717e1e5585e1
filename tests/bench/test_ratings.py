"""bench.ratings: the drawn games keep the levels' order, and every system learns it."""

from __future__ import annotations

import random
import statistics

from bench.anchors import DEFAULT_RESULTS, hands_of
from bench.ratings import LEVELS, SYSTEMS, evaluate, make_games, play_game, spearman


def test_a_stronger_level_takes_fewer_points() -> None:
    hands = hands_of(DEFAULT_RESULTS)
    rng = random.Random(3)
    games = [play_game(["easy", "standard", "pro", "expert"], hands, rng) for _ in range(300)]
    means = [statistics.fmean(g[i] for g in games) for i in range(4)]
    assert means == sorted(means, reverse=True)
    assert all(max(g) >= 100 for g in games)


def test_every_system_rates_the_levels_in_order() -> None:
    hands = hands_of(DEFAULT_RESULTS)
    levels, games = make_games(16, 600, hands, seed=1)
    assert sorted(set(levels)) == sorted(LEVELS)
    for make in SYSTEMS:
        scores = evaluate(make(), levels, games)
        assert scores.spearman > 0.8, make().name
        assert 0.6 < scores.accuracy < 0.95
        assert scores.log_loss < 0.69  # better than a coin


def test_spearman() -> None:
    assert spearman([1, 2, 3], [10, 20, 30]) == 1.0
    assert spearman([1, 2, 3], [3, 2, 1]) == -1.0

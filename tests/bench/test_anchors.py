"""The computer players' anchor ratings are the ones bench.anchors measures (issue 20: an Expert
seat was rated as a 1500 Standard)."""

from __future__ import annotations

import random
import statistics

from app.db.ratings import BOT_RATINGS, bot_rating
from app.tables import BOT_LEVELS
from bench import anchors


def test_every_computer_level_has_its_own_anchor() -> None:
    assert set(BOT_RATINGS) == set(BOT_LEVELS)
    assert bot_rating("expert") == BOT_RATINGS["expert"] != BOT_RATINGS["standard"]
    ordered = [BOT_RATINGS[level] for level in ("easy", "standard", "pro", "expert")]
    assert ordered == sorted(ordered) and len(set(ordered)) == 4


def test_the_anchors_are_what_the_kept_results_measure() -> None:
    hands = anchors.hands_of(anchors.DEFAULT_RESULTS)
    spread = statistics.pstdev([p for hand in hands for p in hand])
    length = anchors.game_length(hands, random.Random(1))
    measured = anchors.anchors(length, spread)
    assert {k: round(v) for k, v in measured.items()} == {
        k: round(v) for k, v in BOT_RATINGS.items()
    }


def test_the_conversion_is_symmetric_and_even_at_no_difference() -> None:
    p, gap = anchors.elo_gap(0.0, 10, 8)
    assert p == 0.5 and gap == 0.0
    p_better, gap_better = anchors.elo_gap(-2.0, 10, 8)
    p_worse, gap_worse = anchors.elo_gap(2.0, 10, 8)
    assert abs(p_better + p_worse - 1) < 1e-12 and abs(gap_better + gap_worse) < 1e-9
    assert gap_better > 0

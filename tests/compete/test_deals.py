"""The day's deals: fixed by the secret, the date, the preset and the version, and nothing else."""

from __future__ import annotations

from collections import Counter
from datetime import date

import pytest

from app import engine
from app.compete.deals import daily_options, daily_seed, player_version

DAY = date(2026, 11, 27)


def test_a_seed_depends_on_each_input() -> None:
    base = daily_seed("s" * 32, DAY, "classic", 0)
    assert base == daily_seed("s" * 32, DAY, "classic", 0)
    others = {
        daily_seed("t" * 32, DAY, "classic", 0),
        daily_seed("s" * 32, date(2026, 11, 28), "classic", 0),
        daily_seed("s" * 32, DAY, "omnibus", 0),
        daily_seed("s" * 32, DAY, "classic", 1),
    }
    assert base not in others and len(others) == 4
    assert 0 < base < 2**62


def test_versions_spread_over_players() -> None:
    got = Counter(player_version("s" * 32, DAY, "classic", f"p{i}", 4) for i in range(400))
    assert set(got) == {0, 1, 2, 3}
    assert min(got.values()) > 60
    with pytest.raises(ValueError):
        player_version("s" * 32, DAY, "classic", "p", 0)


def test_the_options_play_the_deals_exactly() -> None:
    options = daily_options("classic", 8)
    rules = engine.make_rules("classic", options)
    assert (rules.end, rules.hands, rules.passing) == ("hands", 8, "lrah")
    with pytest.raises(engine.RulesError):
        daily_options("no-such-preset", 8)
